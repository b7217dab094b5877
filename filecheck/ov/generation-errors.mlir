// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of Broadcast, Tile, Pad, ShapeOf, Range.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x2xf32>
  %t = "ov.Constant"() <{value = dense<[2, 3, 5]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %y = "ov.Broadcast"(%x, %t) : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<2x3x5xf32>
}
// CHECK: ov.Broadcast: shape [3,2] cannot be broadcast to [2,3,5]

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x1xf32>
  %t = "ov.Constant"() <{value = dense<[3, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Broadcast"(%x, %t) <{mode = "explicit"}> : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x5xf32>
}
// CHECK: ov.Broadcast: explicit mode needs the axes_mapping input

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x1xf32>
  %t = "ov.Constant"() <{value = dense<[2, 3, 5]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %m = "ov.Constant"() <{value = dense<[2, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Broadcast"(%x, %t, %m) <{mode = "explicit"}> : (tensor<3x1xf32>, tensor<3xi64>, tensor<2xi64>) -> tensor<2x3x5xf32>
}
// CHECK: ov.Broadcast: axes_mapping [2, 1] must be increasing

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x1xf32>
  %t = "ov.Constant"() <{value = dense<[3.0, 5.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y = "ov.Broadcast"(%x, %t) : (tensor<3x1xf32>, tensor<2xf32>) -> tensor<3x5xf32>
}
// CHECK: ov.Broadcast: target_shape (input 1) must be an integer type, got f32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x1xf32>
  %t = "ov.Constant"() <{value = dense<[3, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Broadcast"(%x, %t) : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x1xf32>
}
// CHECK: ov.Broadcast: output 0 has type tensor<3x1xf32>, but inputs and attributes give tensor<3x5xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x1xf32>
  %r = "ov.Constant"() <{value = dense<[2, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Tile"(%x, %r) : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<6x1xf32>
}
// CHECK: ov.Tile: repeats [2, -1] must not be negative

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x1xf32>
  %r = "ov.Constant"() <{value = dense<[2, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Tile"(%x, %r) : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<6x1xf32>
}
// CHECK: ov.Tile: output 0 has type tensor<6x1xf32>, but inputs and attributes give tensor<6x2xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x4xf32>
  %b = "ov.Constant"() <{value = dense<[1, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %e = "ov.Constant"() <{value = dense<[1, 1, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %y = "ov.Pad"(%x, %b, %e) : (tensor<3x4xf32>, tensor<2xi64>, tensor<3xi64>) -> tensor<5x6xf32>
}
// CHECK: ov.Pad: pads_begin has 2 values, pads_end 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x4xf32>
  %b = "ov.Constant"() <{value = dense<[1, 1, 0]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %y = "ov.Pad"(%x, %b, %b) : (tensor<3x4xf32>, tensor<3xi64>, tensor<3xi64>) -> tensor<5x6xf32>
}
// CHECK: ov.Pad: pads_begin has 3 values for data of rank 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x4xf32>
  %b = "ov.Constant"() <{value = dense<[3, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Pad"(%x, %b, %b) <{pad_mode = "reflect"}> : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<9x4xf32>
}
// CHECK: ov.Pad: reflect padding of dimension 0 (3) by (3, 3) exceeds 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x4xf32>
  %b = "ov.Constant"() <{value = dense<[-2, -2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Pad"(%x, %b, %b) : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x0xf32>
}
// CHECK: ov.Pad: padding makes dimension 0 negative (3 + -2 + -2)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x4xf32>
  %b = "ov.Constant"() <{value = dense<[1, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Pad"(%x, %b, %b) <{pad_mode = "wrap"}> : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x6xf32>
}
// CHECK: ov.Pad: unknown pad_mode 'wrap'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x4xf32>
  %b = "ov.Constant"() <{value = dense<[1, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %v = "ov.Constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %y = "ov.Pad"(%x, %b, %b, %v) : (tensor<3x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<i32>) -> tensor<5x6xf32>
}
// CHECK: ov.Pad: data and pad_value must have the same element type, got f32 (input 0) and i32 (input 3)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x4xf32>
  %y = "ov.ShapeOf"(%x) <{output_type = "f32"}> : (tensor<3x4xf32>) -> tensor<2xf32>
}
// CHECK: ov.ShapeOf: attribute output_type must be one of ['i32', 'i64'], got f32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x4xf32>
  %y = "ov.ShapeOf"(%x) : (tensor<3x4xf32>) -> tensor<3xi64>
}
// CHECK: ov.ShapeOf: output 0 has type tensor<3xi64>, but inputs and attributes give tensor<2xi64>

// -----

builtin.module {
  %a = "ov.Constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %b = "ov.Constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
  %y = "ov.Range"(%a, %b, %a) <{output_type = "i32"}> : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
}
// CHECK: ov.Range: step must not be zero

// -----

builtin.module {
  %a = "ov.Constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %b = "ov.Constant"() <{value = dense<[5, 6]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %y = "ov.Range"(%a, %b, %a) <{output_type = "i32"}> : (tensor<i32>, tensor<2xi32>, tensor<i32>) -> tensor<?xi32>
}
// CHECK: ov.Range: stop must be a scalar, got shape [2]

// -----

builtin.module {
  %a = "ov.Constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %b = "ov.Constant"() <{value = dense<5> : tensor<i32>}> : () -> tensor<i32>
  %c = "ov.Constant"() <{value = dense<2> : tensor<i32>}> : () -> tensor<i32>
  %y = "ov.Range"(%a, %b, %c) <{output_type = "i32"}> : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2xi32>
}
// CHECK: ov.Range: output 0 has type tensor<2xi32>, but inputs and attributes give tensor<3xi32>

// -----

builtin.module {
  %a = "ov.Constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %y = "ov.Range"(%a, %a, %a) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
}
// CHECK: ov.Range: missing required attribute 'output_type'
