// RUN: xmo-opt %s --extensions %S/../../examples/transformations -p ov-init-node-info,mish-fusion | filecheck %s
// docs/transformations.md: fusing x * tanh(softplus(x)) into Mish. After
// ov-init-node-info every op lists its own name in fused_names; the Mish
// lists the three ops it replaces.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2x5xf32>
  %sp = "ov.SoftPlus"(%x) <{friendly_name = "softplus"}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %t = "ov.Tanh"(%sp) <{friendly_name = "tanh"}> : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %m = "ov.Multiply"(%t, %x) <{friendly_name = "mish", tensor_names = [["y"]]}> : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  "ov.Result"(%m) <{friendly_name = "out"}> : (tensor<2x5xf32>) -> ()
}

// CHECK:      %[[M:.*]] = "ov.Mish"(%x) <{rt_info = {fused_names = ["mish", "softplus", "tanh"]}, friendly_name = "mish", tensor_names = {{\[\["y"\]\]}}}>
// CHECK-NEXT: "ov.Result"(%[[M]])
// CHECK-NOT:  ov.Tanh
