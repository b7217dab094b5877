// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of Interpolate (opset11).

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x10x20xf32>
  %s = "ov.Constant"() <{value = dense<[20, 40]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %a = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Interpolate"(%x, %s, %a) <{mode = "nearest"}> : (tensor<1x3x10x20xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x20x20xf32>
}
// CHECK: ov.Interpolate: output 0 has type tensor<1x3x20x20xf32>, but inputs and attributes give tensor<1x3x20x40xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x10x20xf32>
  %s = "ov.Constant"() <{value = dense<[2.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %a = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Interpolate"(%x, %s, %a) <{mode = "nearest"}> : (tensor<1x3x10x20xf32>, tensor<2xf32>, tensor<2xi64>) -> tensor<1x3x20x40xf32>
}
// CHECK: ov.Interpolate: sizes (input 1) must be an integer type, got f32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x10x20xf32>
  %s = "ov.Constant"() <{value = dense<[20, 40]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %a = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Interpolate"(%x, %s, %a) <{mode = "nearest", shape_calculation_mode = "scales"}> : (tensor<1x3x10x20xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x20x40xf32>
}
// CHECK: ov.Interpolate: scales (input 1) must be a floating-point type, got i64

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x10x20xf32>
  %s = "ov.Constant"() <{value = dense<[20, 40]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %a = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Interpolate"(%x, %s, %a) <{mode = "nearest", shape_calculation_mode = "both"}> : (tensor<1x3x10x20xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x20x40xf32>
}
// CHECK: ov.Interpolate: unknown shape_calculation_mode 'both'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x10x20xf32>
  %s = "ov.Constant"() <{value = dense<[20, 40]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %a = "ov.Constant"() <{value = dense<[2, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Interpolate"(%x, %s, %a) <{mode = "nearest"}> : (tensor<1x3x10x20xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x20x40xf32>
}
// CHECK: ov.Interpolate: axes [2, -1] must not be negative (opset11)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x10x20xf32>
  %s = "ov.Constant"() <{value = dense<[20, 40]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %a = "ov.Constant"() <{value = dense<[2, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Interpolate"(%x, %s, %a) <{mode = "nearest"}> : (tensor<1x3x10x20xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x20x40xf32>
}
// CHECK: ov.Interpolate: axis values [2, 2] repeat an axis

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x10x20xf32>
  %s = "ov.Constant"() <{value = dense<[20, 40]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %a = "ov.Constant"() <{value = dense<[1, 2, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %y = "ov.Interpolate"(%x, %s, %a) <{mode = "nearest"}> : (tensor<1x3x10x20xf32>, tensor<2xi64>, tensor<3xi64>) -> tensor<1x?x?x?xf32>
}
// CHECK: ov.Interpolate: sizes has 2 values for 3 axes

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x10x20xf32>
  %s = "ov.Constant"() <{value = dense<[20, 40]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %a = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Interpolate"(%x, %s, %a) : (tensor<1x3x10x20xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x20x40xf32>
}
// CHECK: ov.Interpolate: missing required attribute 'mode'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x10x20xf32>
  %s = "ov.Constant"() <{value = dense<[20, 40]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %a = "ov.Constant"() <{value = dense<[2.0, 3.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y = "ov.Interpolate"(%x, %s, %a) <{mode = "nearest"}> : (tensor<1x3x10x20xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<1x3x20x40xf32>
}
// CHECK: ov.Interpolate: axes (input 2) must be an integer type, got f32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x10x20xf32>
  %y = "ov.Interpolate"(%x) <{mode = "nearest"}> : (tensor<1x3x10x20xf32>) -> tensor<1x3x10x20xf32>
}
// CHECK: ov.Interpolate: expected 2 to 3 inputs, got 1
