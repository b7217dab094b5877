// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of activations and shape-preserving ops.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %y = "ov.Relu"(%x) : (tensor<2x3xf32>) -> tensor<2x4xf32>
}
// CHECK: ov.Relu: output 0 has type tensor<2x4xf32>, but inputs and attributes give tensor<2x3xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %y = "ov.Sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf16>
}
// CHECK: ov.Sigmoid: output 0 has type tensor<2x3xf16>, but inputs and attributes give tensor<2x3xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %y = "ov.Tanh"(%x) : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
}
// CHECK: ov.Tanh: output 0 has type tensor<2x3x1xf32>, but inputs and attributes give tensor<2x3xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xi32>
  %y = "ov.Mish"(%x) : (tensor<4xi32>) -> tensor<4xi32>
}
// CHECK: ov.Mish: input (input 0) must be a floating-point type, got i32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xi64>
  %y = "ov.SoftPlus"(%x) : (tensor<4xi64>) -> tensor<4xi64>
}
// CHECK: ov.SoftPlus: input (input 0) must be a floating-point type, got i64

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xf32>
  %y = "ov.Clamp"(%x) <{min = 6.0 : f64, max = 0.0 : f64}> : (tensor<4xf32>) -> tensor<4xf32>
}
// CHECK: ov.Clamp: min 6.0 is greater than max 0.0

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xf32>
  %y = "ov.Clamp"(%x) <{min = 0.0 : f64}> : (tensor<4xf32>) -> tensor<4xf32>
}
// CHECK: ov.Clamp: missing required attribute 'max'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xf32>
  %y = "ov.Elu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
}
// CHECK: ov.Elu: missing required attribute 'alpha'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xf32>
  %y = "ov.Elu"(%x) <{alpha = 1 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
}
// CHECK: 1 : i64 should be of base attribute float

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xf32>
  %b = "ov.Parameter"() : () -> tensor<2xf32>
  %y = "ov.Swish"(%x, %b) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
}
// CHECK: ov.Swish: beta must be a scalar, got shape [2]

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xf32>
  %b = "ov.Parameter"() : () -> tensor<f16>
  %y = "ov.Swish"(%x, %b) : (tensor<4xf32>, tensor<f16>) -> tensor<4xf32>
}
// CHECK: ov.Swish: input and beta must have the same element type, got f32 (input 0) and f16 (input 1)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xf32>
  %y = "ov.Swish"(%x, %x, %x) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
}
// CHECK: ov.Swish: expected 1 to 2 inputs, got 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4xf32>
  %s = "ov.Parameter"() : () -> tensor<4xf16>
  %y = "ov.PRelu"(%x, %s) : (tensor<1x4xf32>, tensor<4xf16>) -> tensor<1x4xf32>
}
// CHECK: ov.PRelu: data and slope must have the same element type, got f32 (input 0) and f16 (input 1)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %y = "ov.Softmax"(%x) <{axis = 2 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Softmax: axis 2 is out of range for rank 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %y = "ov.LogSoftmax"(%x) <{axis = -3 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.LogSoftmax: axis -3 is out of range for rank 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %y = "ov.Relu"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Relu: expected 1 input, got 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %y = "ov.Gelu"(%x) <{approximation_mode = 1 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: 1 : i64 should be of base attribute string
