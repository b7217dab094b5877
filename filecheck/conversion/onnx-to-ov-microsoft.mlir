// RUN: xmo-opt %s -p convert-onnx-to-ov | filecheck %s
// onnxruntime's contrib ops (com.microsoft, loaded as onnx.Custom) convert
// with the built-in converters of that domain: FastGelu with a bias is the
// tanh Gelu of x + bias, QuickGelu is x * sigmoid(alpha * x),
// SkipLayerNormalization one MVN of input + skip times gamma plus beta.

builtin.module {
  %X = "onnx.Input"() <{name = "X"}> : () -> tensor<2x16xf32>
  %B = "onnx.Input"() <{name = "B"}> : () -> tensor<16xf32>
  %G = "onnx.Custom"(%X, %B) <{domain = "com.microsoft", op_type = "FastGelu", version = 1 : i64, output_names = ["G"], node_name = "fast_gelu"}> : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %Q = "onnx.Custom"(%G) <{domain = "com.microsoft", op_type = "QuickGelu", version = 1 : i64, output_names = ["Q"], node_name = "quick_gelu", attrs = {alpha = 1.5 : f32}}> : (tensor<2x16xf32>) -> tensor<2x16xf32>
  %L = "onnx.Custom"(%Q, %X, %B, %B) <{domain = "com.microsoft", op_type = "SkipLayerNormalization", version = 1 : i64, output_names = ["L"], node_name = "skip_ln", attrs = {epsilon = 9.99999974E-6 : f32}}> : (tensor<2x16xf32>, tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  "onnx.Output"(%L) <{name = "L"}> : (tensor<2x16xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "X"
// CHECK:      %[[B:.*]] = "ov.Parameter"() <{friendly_name = "B"
// CHECK:      %[[S:.*]] = "ov.Add"(%[[X]], %[[B]])
// CHECK:      %[[G:.*]] = "ov.Gelu"(%[[S]]) <{approximation_mode = "TANH", friendly_name = "fast_gelu", tensor_names = {{\[\["G"\]\]}}}>
// CHECK:      %[[A:.*]] = "ov.Constant"() {{.*}}1.500000e+00
// CHECK:      %[[M:.*]] = "ov.Multiply"(%[[G]], %[[A]])
// CHECK:      %[[SG:.*]] = "ov.Sigmoid"(%[[M]])
// CHECK:      %[[Q:.*]] = "ov.Multiply"(%[[G]], %[[SG]]) <{friendly_name = "quick_gelu", tensor_names = {{\[\["Q"\]\]}}
// CHECK:      %[[SUM:.*]] = "ov.Add"(%[[Q]], %[[X]])
// CHECK:      %[[N:.*]] = "ov.MVN"(%[[SUM]], %{{.*}}) <{eps = 9.99{{[0-9]*}}e-06 : f64, normalize_variance = true, eps_mode = "INSIDE_SQRT"
// CHECK:      %[[SC:.*]] = "ov.Multiply"(%[[N]], %[[B]])
// CHECK:      "ov.Add"(%[[SC]], %[[B]]) <{friendly_name = "skip_ln", tensor_names = {{\[\["L"\]\]}}
// CHECK-NOT:  onnx.
