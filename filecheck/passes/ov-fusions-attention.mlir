// RUN: xmo-opt %s -p ov-fusions | filecheck %s
// Attention fusion (passes/ov_fusions/attention.py): Q*a @ (K^T*b) + mask ->
// Softmax(-1) -> @ V becomes ScaledDotProductAttention(Q, K, V, mask, a*b); K^T
// written as Transpose(k, [0, 2, 3, 1]) becomes Transpose(k, [0, 2, 1, 3]).
// Near miss: the Softmax over axis 2.

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "q", tensor_names = [["q"]]}> : () -> tensor<2x3x5x8xf32>
  %1 = "ov.Parameter"() <{friendly_name = "k", tensor_names = [["k"]]}> : () -> tensor<2x5x3x8xf32>
  %2 = "ov.Parameter"() <{friendly_name = "v", tensor_names = [["v"]]}> : () -> tensor<2x3x5x8xf32>
  %3 = "ov.Parameter"() <{friendly_name = "mask", tensor_names = [["mask"]]}> : () -> tensor<2x1x1x5xf32>
  %4 = "ov.Constant"() <{value = dense<0.594603539> : tensor<f32>}> : () -> tensor<f32>
  %5 = "ov.Multiply"(%0, %4) : (tensor<2x3x5x8xf32>, tensor<f32>) -> tensor<2x3x5x8xf32>
  %6 = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %7 = "ov.Transpose"(%1, %6) : (tensor<2x5x3x8xf32>, tensor<4xi64>) -> tensor<2x3x8x5xf32>
  %8 = "ov.Multiply"(%7, %4) : (tensor<2x3x8x5xf32>, tensor<f32>) -> tensor<2x3x8x5xf32>
  %9 = "ov.MatMul"(%5, %8) : (tensor<2x3x5x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x5x5xf32>
  %10 = "ov.Add"(%9, %3) : (tensor<2x3x5x5xf32>, tensor<2x1x1x5xf32>) -> tensor<2x3x5x5xf32>
  %11 = "ov.Softmax"(%10) <{axis = -1 : i64}> : (tensor<2x3x5x5xf32>) -> tensor<2x3x5x5xf32>
  %12 = "ov.MatMul"(%11, %2) <{friendly_name = "attn", tensor_names = [["attn"]]}> : (tensor<2x3x5x5xf32>, tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32>
  "ov.Result"(%12) <{friendly_name = "attn"}> : (tensor<2x3x5x8xf32>) -> ()
  %13 = "ov.Constant"() <{value = dense<[0, 1, 3, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %14 = "ov.Transpose"(%2, %13) : (tensor<2x3x5x8xf32>, tensor<4xi64>) -> tensor<2x3x8x5xf32>
  %15 = "ov.MatMul"(%0, %14) : (tensor<2x3x5x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x5x5xf32>
  %16 = "ov.Softmax"(%15) <{axis = 2 : i64}> : (tensor<2x3x5x5xf32>) -> tensor<2x3x5x5xf32>
  %17 = "ov.MatMul"(%16, %2) <{friendly_name = "not_attn", tensor_names = [["not_attn"]]}> : (tensor<2x3x5x5xf32>, tensor<2x3x5x8xf32>) -> tensor<2x3x5x8xf32>
  "ov.Result"(%17) <{friendly_name = "not_attn"}> : (tensor<2x3x5x8xf32>) -> ()
}

// CHECK:      %[[P:.*]] = "ov.Constant"() <{value = dense<[0, 2, 1, 3]> : tensor<4xi64>}>
// CHECK-NEXT: %[[K:.*]] = "ov.Transpose"(%1, %[[P]]) <{friendly_name = "attn/Transpose"}>
// CHECK-NEXT: %[[S:.*]] = "ov.Constant"() <{value = dense<0.353553{{[0-9]*}}> : tensor<f32>}>
// CHECK-NEXT: "ov.ScaledDotProductAttention"(%0, %[[K]], %2, %3, %[[S]]) <{causal = false, friendly_name = "attn", tensor_names = {{\[\[}}"attn"]]}>
// CHECK-NOT:  "ov.Multiply"
// CHECK:      "ov.Softmax"({{.*}}) <{axis = 2 : i64}>
// CHECK:      "ov.MatMul"({{.*}}friendly_name = "not_attn"
