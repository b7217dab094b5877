// RUN: xmo-opt %s --extensions %S/../../examples/transformations -p 'insert-scale{node=conv scale=0.5}' | filecheck %s
// docs/transformations.md: inserting an op after a node and moving its
// consumers (the new Multiply keeps reading the node).

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2x3xf32>
  %r = "ov.Relu"(%x) <{friendly_name = "conv", tensor_names = [["conv_out"]]}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = "ov.Exp"(%r) <{friendly_name = "exp"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "ov.Result"(%e) : (tensor<2x3xf32>) -> ()
  "ov.Result"(%r) : (tensor<2x3xf32>) -> ()
}

// CHECK:      %[[C:.*]] = "ov.Constant"() <{value = dense<5.000000e-01> : tensor<f32>}>
// CHECK-NEXT: %[[R:.*]] = "ov.Relu"(%x) <{friendly_name = "conv", tensor_names = {{\[\["conv_out"\]\]}}}>
// CHECK-NEXT: %[[S:.*]] = "ov.Multiply"(%[[R]], %[[C]]) <{friendly_name = "conv/scale"}>
// CHECK-NEXT: "ov.Exp"(%[[S]])
// CHECK:      "ov.Result"(%[[S]])
