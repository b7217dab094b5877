// RUN: xmo-opt %s -p ov-cse,ov-dce | filecheck %s
// ov-cse: a MatMul weight equal to another constant transposed (a tied LM head's W^T
// beside the embedding's W) reads that constant with transpose_b; the copy goes.
// Near miss: W^T + 1 stays.

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "ids", tensor_names = [["ids"]]}> : () -> tensor<2xi64>
  %1 = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x4xf32>
  %2 = "ov.Constant"() <{value = dense<[[0.000000e+00, 2.500000e-01, 5.000000e-01, 7.500000e-01], [1.000000e+00, 1.250000e+00, 1.500000e+00, 1.750000e+00], [2.000000e+00, 2.250000e+00, 2.500000e+00, 2.750000e+00], [3.000000e+00, 3.250000e+00, 3.500000e+00, 3.750000e+00], [4.000000e+00, 4.250000e+00, 4.500000e+00, 4.750000e+00]]> : tensor<5x4xf32>}> : () -> tensor<5x4xf32>
  %3 = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %4 = "ov.Gather"(%2, %0, %3) <{friendly_name = "wte", tensor_names = [["emb"]]}> : (tensor<5x4xf32>, tensor<2xi64>, tensor<i64>) -> tensor<2x4xf32>
  "ov.Result"(%4) <{friendly_name = "emb"}> : (tensor<2x4xf32>) -> ()
  %5 = "ov.Constant"() <{value = dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [2.500000e-01, 1.250000e+00, 2.250000e+00, 3.250000e+00, 4.250000e+00], [5.000000e-01, 1.500000e+00, 2.500000e+00, 3.500000e+00, 4.500000e+00], [7.500000e-01, 1.750000e+00, 2.750000e+00, 3.750000e+00, 4.750000e+00]]> : tensor<4x5xf32>}> : () -> tensor<4x5xf32>
  %6 = "ov.MatMul"(%1, %5) <{friendly_name = "lm_head", tensor_names = [["logits"]]}> : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  "ov.Result"(%6) <{friendly_name = "logits"}> : (tensor<2x5xf32>) -> ()
  %7 = "ov.Constant"() <{value = dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00], [1.250000e+00, 2.250000e+00, 3.250000e+00, 4.250000e+00, 5.250000e+00], [1.500000e+00, 2.500000e+00, 3.500000e+00, 4.500000e+00, 5.500000e+00], [1.750000e+00, 2.750000e+00, 3.750000e+00, 4.750000e+00, 5.750000e+00]]> : tensor<4x5xf32>}> : () -> tensor<4x5xf32>
  %8 = "ov.MatMul"(%1, %7) <{friendly_name = "other", tensor_names = [["other"]]}> : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  "ov.Result"(%8) <{friendly_name = "other"}> : (tensor<2x5xf32>) -> ()
}

// CHECK:      %[[W:.*]] = "ov.Constant"() <{value = dense<{{\[\[}}0.000000e+00, 2.500000e-01
// CHECK:      "ov.Gather"(%[[W]],
// CHECK:      "ov.MatMul"(%1, %[[W]]) <{friendly_name = "lm_head", tensor_names = {{\[\[}}"logits"]], transpose_b = true}> : (tensor<2x4xf32>, tensor<5x4xf32>) -> tensor<2x5xf32>
// CHECK-NOT:  "ov.Constant"() <{value = dense<{{\[\[}}0.000000e+00, 1.000000e+00
// CHECK:      %[[O:.*]] = "ov.Constant"() <{value = dense<{{\[\[}}1.000000e+00, 2.000000e+00
// CHECK-NEXT: "ov.MatMul"(%1, %[[O]]) <{friendly_name = "other", tensor_names = {{\[\[}}"other"]]}> : (tensor<2x4xf32>, tensor<4x5xf32>)
