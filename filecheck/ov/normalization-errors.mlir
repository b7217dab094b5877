// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of MVN, NormalizeL2, BatchNormInference.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %a = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.MVN"(%x, %a) <{eps = 1.0e-05 : f64}> : (tensor<2x3x4x5xf32>, tensor<2xi64>) -> tensor<2x3x4x4xf32>
}
// CHECK: ov.MVN: output 0 has type tensor<2x3x4x4xf32>, but inputs and attributes give tensor<2x3x4x5xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xi32>
  %a = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.MVN"(%x, %a) <{eps = 1.0e-05 : f64}> : (tensor<2x3xi32>, tensor<i64>) -> tensor<2x3xi32>
}
// CHECK: ov.MVN: data (input 0) must be a floating-point type, got i32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %a = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.MVN"(%x, %a) <{eps = 1.0e-05 : f64, eps_mode = "somewhere"}> : (tensor<2x3x4x5xf32>, tensor<2xi64>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.MVN: unknown eps_mode 'somewhere'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %a = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.MVN"(%x, %a) : (tensor<2x3x4x5xf32>, tensor<2xi64>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.MVN: missing required attribute 'eps'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %a = "ov.Constant"() <{value = dense<[2, -2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.MVN"(%x, %a) <{eps = 1.0e-05 : f64}> : (tensor<2x3x4x5xf32>, tensor<2xi64>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.MVN: axis values [2, -2] repeat an axis

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %a = "ov.Constant"() <{value = dense<[[2, 3]]> : tensor<1x2xi64>}> : () -> tensor<1x2xi64>
  %y = "ov.MVN"(%x, %a) <{eps = 1.0e-05 : f64}> : (tensor<2x3x4x5xf32>, tensor<1x2xi64>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.MVN: axes (input 1) must have rank 0 or 1, got 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %a = "ov.Constant"() <{value = dense<[4]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %y = "ov.NormalizeL2"(%x, %a) <{eps = 1.0e-05 : f64, eps_mode = "add"}> : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.NormalizeL2: axis 4 is out of range for rank 4

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %a = "ov.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %y = "ov.NormalizeL2"(%x, %a) <{eps = 1.0e-05 : f64, eps_mode = "min"}> : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.NormalizeL2: unknown eps_mode 'min'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %a = "ov.Constant"() <{value = dense<[1.0]> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = "ov.NormalizeL2"(%x, %a) <{eps = 1.0e-05 : f64, eps_mode = "add"}> : (tensor<2x3x4x5xf32>, tensor<1xf32>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.NormalizeL2: axes (input 1) must be an integer type, got f32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %a = "ov.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %y = "ov.NormalizeL2"(%x, %a) <{eps = 1.0e-05 : f64}> : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.NormalizeL2: missing required attribute 'eps_mode'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %g = "ov.Parameter"() : () -> tensor<4xf32>
  %y = "ov.BatchNormInference"(%x, %g, %g, %g, %g) <{epsilon = 1.0e-05 : f64}> : (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.BatchNormInference: gamma size vs data channels: dimensions 3 and 4 do not match

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %g = "ov.Parameter"() : () -> tensor<3xf32>
  %h = "ov.Parameter"() : () -> tensor<3xf16>
  %y = "ov.BatchNormInference"(%x, %g, %g, %h, %g) <{epsilon = 1.0e-05 : f64}> : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf16>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.BatchNormInference: inputs must have the same element type, got f32 (input 0) and f16 (input 3)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %g = "ov.Parameter"() : () -> tensor<3xf32>
  %h = "ov.Parameter"() : () -> tensor<1x3xf32>
  %y = "ov.BatchNormInference"(%x, %g, %h, %g, %g) <{epsilon = 1.0e-05 : f64}> : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.BatchNormInference: beta (input 2) must have rank 1, got 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3xf32>
  %g = "ov.Parameter"() : () -> tensor<3xf32>
  %y = "ov.BatchNormInference"(%x, %g, %g, %g, %g) <{epsilon = 1.0e-05 : f64}> : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
}
// CHECK: ov.BatchNormInference: data must have rank 2 or more, got [3]

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %g = "ov.Parameter"() : () -> tensor<3xf32>
  %y = "ov.BatchNormInference"(%x, %g, %g, %g) <{epsilon = 1.0e-05 : f64}> : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.BatchNormInference: expected 5 inputs, got 4

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %g = "ov.Parameter"() : () -> tensor<3xf32>
  %y = "ov.BatchNormInference"(%x, %g, %g, %g, %g) : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
}
// CHECK: ov.BatchNormInference: missing required attribute 'epsilon'
