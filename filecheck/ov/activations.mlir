// RUN: xmo-opt %s | xmo-opt | filecheck %s
// Unary activations and other shape-preserving ops round-trip.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x?xf32>
  %s = "ov.Parameter"() : () -> tensor<2x3xf32>
  %u = "ov.Parameter"() : () -> tensor<*xf16>
  %n = "ov.Parameter"() : () -> tensor<5xi32>
  %beta = "ov.Constant"() <{value = dense<1.5> : tensor<f32>}> : () -> tensor<f32>
  %slope = "ov.Constant"() <{value = dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "ov.Relu"(%x) : (tensor<1x4x?xf32>) -> tensor<1x4x?xf32>
  %1 = "ov.Sigmoid"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "ov.Tanh"(%u) : (tensor<*xf16>) -> tensor<*xf16>
  %3 = "ov.Exp"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "ov.Log"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = "ov.Sqrt"(%x) : (tensor<1x4x?xf32>) -> tensor<1x4x?xf32>
  %6 = "ov.Abs"(%n) : (tensor<5xi32>) -> tensor<5xi32>
  %7 = "ov.Negative"(%n) : (tensor<5xi32>) -> tensor<5xi32>
  %8 = "ov.Floor"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = "ov.Ceiling"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = "ov.Clamp"(%s) <{min = -1.0 : f64, max = 6.0 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %11 = "ov.Erf"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = "ov.Gelu"(%s) <{approximation_mode = "TANH"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = "ov.Gelu"(%x) : (tensor<1x4x?xf32>) -> tensor<1x4x?xf32>
  %14 = "ov.Swish"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %15 = "ov.Swish"(%s, %beta) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %16 = "ov.HSwish"(%x) : (tensor<1x4x?xf32>) -> tensor<1x4x?xf32>
  %17 = "ov.HSigmoid"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %18 = "ov.Mish"(%u) : (tensor<*xf16>) -> tensor<*xf16>
  %19 = "ov.SoftPlus"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %20 = "ov.Elu"(%s) <{alpha = 1.0 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %21 = "ov.PRelu"(%x, %slope) : (tensor<1x4x?xf32>, tensor<4xf32>) -> tensor<1x4x?xf32>
  %22 = "ov.Softmax"(%x) <{axis = -1 : i64}> : (tensor<1x4x?xf32>) -> tensor<1x4x?xf32>
  %23 = "ov.Softmax"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %24 = "ov.LogSoftmax"(%s) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %25 = "ov.LogSoftmax"(%u) <{axis = 3 : i64}> : (tensor<*xf16>) -> tensor<*xf16>
  %26 = "ov.Relu"(%s) : (tensor<2x3xf32>) -> tensor<?x?xf32>
  "ov.Result"(%0) : (tensor<1x4x?xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0 = "ov.Relu"(%x) : (tensor<1x4x?xf32>) -> tensor<1x4x?xf32>
// CHECK: %1 = "ov.Sigmoid"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %2 = "ov.Tanh"(%u) : (tensor<*xf16>) -> tensor<*xf16>
// CHECK: %3 = "ov.Exp"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %4 = "ov.Log"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %5 = "ov.Sqrt"(%x) : (tensor<1x4x?xf32>) -> tensor<1x4x?xf32>
// CHECK: %6 = "ov.Abs"(%n) : (tensor<5xi32>) -> tensor<5xi32>
// CHECK: %7 = "ov.Negative"(%n) : (tensor<5xi32>) -> tensor<5xi32>
// CHECK: %8 = "ov.Floor"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %9 = "ov.Ceiling"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %10 = "ov.Clamp"(%s) <{min = -1.000000e+00 : f64, max = 6.000000e+00 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %11 = "ov.Erf"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %12 = "ov.Gelu"(%s) <{approximation_mode = "TANH"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %13 = "ov.Gelu"(%x) : (tensor<1x4x?xf32>) -> tensor<1x4x?xf32>
// CHECK: %14 = "ov.Swish"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %15 = "ov.Swish"(%s, %beta) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK: %16 = "ov.HSwish"(%x) : (tensor<1x4x?xf32>) -> tensor<1x4x?xf32>
// CHECK: %17 = "ov.HSigmoid"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %18 = "ov.Mish"(%u) : (tensor<*xf16>) -> tensor<*xf16>
// CHECK: %19 = "ov.SoftPlus"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %20 = "ov.Elu"(%s) <{alpha = 1.000000e+00 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %21 = "ov.PRelu"(%x, %slope) : (tensor<1x4x?xf32>, tensor<4xf32>) -> tensor<1x4x?xf32>
// CHECK: %22 = "ov.Softmax"(%x) <{axis = -1 : i64}> : (tensor<1x4x?xf32>) -> tensor<1x4x?xf32>
// CHECK: %23 = "ov.Softmax"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %24 = "ov.LogSoftmax"(%s) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %25 = "ov.LogSoftmax"(%u) <{axis = 3 : i64}> : (tensor<*xf16>) -> tensor<*xf16>
// CHECK: %26 = "ov.Relu"(%s) : (tensor<2x3xf32>) -> tensor<?x?xf32>
