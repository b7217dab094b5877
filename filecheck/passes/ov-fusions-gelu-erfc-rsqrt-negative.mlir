// RUN: xmo-opt %s -p ov-fusions,ov-dce | filecheck %s
// gelu-erf-fusion on TensorFlow's GELU (0.5 * x * Erfc(-x / sqrt 2), Erfc converted as
// 1 - Erf, the negation a Negative), rsqrt-to-power (1 / Sqrt(v) -> Power(v, -0.5)),
// negative-fold (z + -x -> z - x). Near miss: a Negative as the minuend stays.

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x8xf32>
  %1 = "ov.Parameter"() <{friendly_name = "z", tensor_names = [["z"]]}> : () -> tensor<2x8xf32>
  %2 = "ov.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %3 = "ov.Negative"(%0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %4 = "ov.Constant"() <{value = dense<0.707106769> : tensor<f32>}> : () -> tensor<f32>
  %5 = "ov.Multiply"(%3, %4) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %6 = "ov.Erf"(%5) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %7 = "ov.Subtract"(%2, %6) : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %8 = "ov.Constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %9 = "ov.Multiply"(%8, %0) : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %10 = "ov.Multiply"(%9, %7) <{friendly_name = "gelu", tensor_names = [["gelu"]]}> : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%10) <{friendly_name = "gelu"}> : (tensor<2x8xf32>) -> ()
  %11 = "ov.Multiply"(%1, %1) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %12 = "ov.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %13 = "ov.Add"(%11, %12) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %14 = "ov.Sqrt"(%13) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %15 = "ov.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %16 = "ov.Divide"(%15, %14) <{friendly_name = "rsqrt", tensor_names = [["rsqrt"]]}> : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%16) <{friendly_name = "rsqrt"}> : (tensor<2x8xf32>) -> ()
  %17 = "ov.Negative"(%0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %18 = "ov.Add"(%1, %17) <{friendly_name = "sub", tensor_names = [["sub"]]}> : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%18) <{friendly_name = "sub"}> : (tensor<2x8xf32>) -> ()
  %19 = "ov.Negative"(%1) <{friendly_name = "kept_neg"}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %20 = "ov.Subtract"(%19, %0) <{friendly_name = "neg_minuend", tensor_names = [["neg_minuend"]]}> : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%20) <{friendly_name = "neg_minuend"}> : (tensor<2x8xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"
// CHECK-NEXT: %[[Z:.*]] = "ov.Parameter"() <{friendly_name = "z"
// CHECK-NEXT: %[[G:.*]] = "ov.Gelu"(%[[X]]) <{approximation_mode = "ERF", friendly_name = "gelu", tensor_names = {{\[\[}}"gelu"]]}>
// CHECK-NOT:  "ov.Erf"
// CHECK:      %[[H:.*]] = "ov.Constant"() <{value = dense<-5.000000e-01> : tensor<f32>}>
// CHECK-NEXT: "ov.Power"(%{{.*}}, %[[H]]) <{friendly_name = "rsqrt", tensor_names = {{\[\[}}"rsqrt"]]}>
// CHECK:      "ov.Subtract"(%[[Z]], %[[X]]) <{friendly_name = "sub", tensor_names = {{\[\[}}"sub"]]}>
// CHECK:      %[[N:.*]] = "ov.Negative"(%[[Z]]) <{friendly_name = "kept_neg"}>
// CHECK-NEXT: "ov.Subtract"(%[[N]], %[[X]]) <{friendly_name = "neg_minuend"
