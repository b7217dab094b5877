// RUN: xmo-opt %s --extensions %S/../../examples/transformations -p pack-to-unsqueeze-concat | filecheck %s
// docs/transformations.md: a framework op (Pack) replaced by opset ops.

builtin.module {
  %a = "ov.Parameter"() <{friendly_name = "a"}> : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() <{friendly_name = "b"}> : () -> tensor<2x3xf32>
  %p = "ov.Pack"(%a, %b) <{axis = 1 : i64, friendly_name = "pack", tensor_names = [["packed"]]}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2x3xf32>
  "ov.Result"(%p) : (tensor<2x2x3xf32>) -> ()
}

// CHECK:      %[[AX:.*]] = "ov.Constant"() <{value = dense<1> : tensor<1xi64>}>
// CHECK-NEXT: %[[U0:.*]] = "ov.Unsqueeze"(%a, %[[AX]]) <{friendly_name = "pack/unsqueeze_0"}> : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1x3xf32>
// CHECK-NEXT: %[[U1:.*]] = "ov.Unsqueeze"(%b, %[[AX]]) <{friendly_name = "pack/unsqueeze_1"}>
// CHECK-NEXT: %[[C:.*]] = "ov.Concat"(%[[U0]], %[[U1]]) <{axis = 1 : i64, friendly_name = "pack", tensor_names = {{\[\["packed"\]\]}}}> : (tensor<2x1x3xf32>, tensor<2x1x3xf32>) -> tensor<2x2x3xf32>
// CHECK-NEXT: "ov.Result"(%[[C]])
