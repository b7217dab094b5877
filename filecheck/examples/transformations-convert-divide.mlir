// RUN: xmo-opt %s --extensions %S/../../examples/transformations -p convert-divide | filecheck %s
// docs/transformations.md: Divide decomposed into Power(-1) and Multiply; the
// Multiply (the last new op) takes the Divide's name, every new op its
// runtime info. Integer division is left alone.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2x3xf32>
  %y = "ov.Parameter"() <{friendly_name = "y"}> : () -> tensor<3xf32>
  %d = "ov.Divide"(%x, %y) <{friendly_name = "div", rt_info = {fused_names = ["div"]}}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %i = "ov.Parameter"() <{friendly_name = "i"}> : () -> tensor<3xi32>
  %di = "ov.Divide"(%i, %i) <{friendly_name = "div_i"}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  "ov.Result"(%d) : (tensor<2x3xf32>) -> ()
  "ov.Result"(%di) : (tensor<3xi32>) -> ()
}

// CHECK:      %[[C:.*]] = "ov.Constant"() <{value = dense<-1.000000e+00> : tensor<f32>, rt_info = {fused_names = ["div"]}}>
// CHECK-NEXT: %[[P:.*]] = "ov.Power"(%y, %[[C]]) <{auto_broadcast = "numpy", rt_info = {fused_names = ["div"]}}> : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT: %[[M:.*]] = "ov.Multiply"(%x, %[[P]]) <{auto_broadcast = "numpy", rt_info = {fused_names = ["div"]}, friendly_name = "div"}>
// CHECK:      "ov.Divide"(%i, %i) <{friendly_name = "div_i"}>
// CHECK:      "ov.Result"(%[[M]])
