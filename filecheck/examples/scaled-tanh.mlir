// RUN: xmo-opt %s --extensions %S/../../examples/custom_op --split-input-file --verify-diagnostics | filecheck %s
// The README's new-operation walkthrough: ScaledTanh parses, verifies, prints,
// and its verifier rejects bad input.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x?xf32>
  %y = "ov.ScaledTanh"(%x) <{alpha = 2.0 : f64, beta = 0.5 : f64}> : (tensor<1x?xf32>) -> tensor<1x?xf32>
  "ov.Result"(%y) : (tensor<1x?xf32>) -> ()
}
// CHECK: %y = "ov.ScaledTanh"(%x) <{alpha = 2.000000e+00 : f64, beta = 5.000000e-01 : f64}> : (tensor<1x?xf32>) -> tensor<1x?xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xi32>
  %y = "ov.ScaledTanh"(%x) <{beta = 0.5 : f64}> : (tensor<4xi32>) -> tensor<4xi32>
}
// CHECK: ov.ScaledTanh: expects a floating-point input, got i32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xf32>
  %y = "ov.ScaledTanh"(%x) : (tensor<4xf32>) -> tensor<4xf32>
}
// CHECK: ov.ScaledTanh: missing required attribute 'beta'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4xf32>
  %y = "ov.ScaledTanh"(%x) <{beta = 1.0 : f64}> : (tensor<4xf32>) -> tensor<5xf32>
}
// CHECK: ov.ScaledTanh: output 0 has type tensor<5xf32>, but inputs and attributes give tensor<4xf32>
