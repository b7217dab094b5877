// RUN: xmo-opt %s -p convert-onnx-to-ov | filecheck %s
// onnxruntime's contrib ops (com.microsoft, loaded as onnx.Custom) convert
// with the built-in converters of that domain: FastGelu with a bias is the
// tanh Gelu of x + bias, QuickGelu is x * sigmoid(alpha * x).

builtin.module {
  %X = "onnx.Input"() <{name = "X"}> : () -> tensor<2x16xf32>
  %B = "onnx.Input"() <{name = "B"}> : () -> tensor<16xf32>
  %G = "onnx.Custom"(%X, %B) <{domain = "com.microsoft", op_type = "FastGelu", version = 1 : i64, output_names = ["G"], node_name = "fast_gelu"}> : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %Q = "onnx.Custom"(%G) <{domain = "com.microsoft", op_type = "QuickGelu", version = 1 : i64, output_names = ["Q"], node_name = "quick_gelu", attrs = {alpha = 1.5 : f32}}> : (tensor<2x16xf32>) -> tensor<2x16xf32>
  "onnx.Output"(%Q) <{name = "Q"}> : (tensor<2x16xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "X"
// CHECK:      %[[B:.*]] = "ov.Parameter"() <{friendly_name = "B"
// CHECK:      %[[S:.*]] = "ov.Add"(%[[X]], %[[B]])
// CHECK:      %[[G:.*]] = "ov.Gelu"(%[[S]]) <{approximation_mode = "TANH", friendly_name = "fast_gelu", tensor_names = {{\[\["G"\]\]}}}>
// CHECK:      %[[A:.*]] = "ov.Constant"() {{.*}}1.500000e+00
// CHECK:      %[[M:.*]] = "ov.Multiply"(%[[G]], %[[A]])
// CHECK:      %[[SG:.*]] = "ov.Sigmoid"(%[[M]])
// CHECK:      "ov.Multiply"(%[[G]], %[[SG]]) <{friendly_name = "quick_gelu", tensor_names = {{\[\["Q"\]\]}}
// CHECK-NOT:  onnx.
