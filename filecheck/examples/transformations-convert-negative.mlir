// RUN: xmo-opt %s --extensions %S/../../examples/transformations -p convert-negative | filecheck %s
// docs/transformations.md: replacing Negative with Multiply by -1. The
// Multiply takes the Negative's name, tensor names and runtime info.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x3xf32>
  %n = "ov.Negative"(%x) <{friendly_name = "neg", tensor_names = [["y"]], rt_info = {fused_names = ["neg"]}}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "ov.Result"(%n) <{friendly_name = "out"}> : (tensor<2x3xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"()
// CHECK-NEXT: %[[C:.*]] = "ov.Constant"() <{value = dense<-1.000000e+00> : tensor<f32>, rt_info = {fused_names = ["neg"]}}>
// CHECK-NEXT: %[[M:.*]] = "ov.Multiply"(%[[X]], %[[C]]) <{friendly_name = "neg", rt_info = {fused_names = ["neg"]}, tensor_names = {{\[\["y"\]\]}}}>
// CHECK-NEXT: "ov.Result"(%[[M]])
// CHECK-NOT:  ov.Negative
