// RUN: xmo-opt %s -p convert-onnx-to-ov | filecheck %s
// Graph I/O, initializers and names through the ONNX -> ov legalization.

builtin.module {
  %x = "onnx.Input"() <{name = "x", dim_params = ["N", ""]}> : () -> tensor<?x3xf32>
  %w = "onnx.Initializer"() <{name = "w", value = dense<[0.0, 1.0, 2.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %y = "onnx.Add"(%x, %w) <{output_names = ["y"], node_name = "add1"}> : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %z = "onnx.Abs"(%y) <{output_names = ["z"]}> : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %c = "onnx.Cast"(%z) <{to = 7 : i64, output_names = ["c"]}> : (tensor<?x3xf32>) -> tensor<?x3xi64>
  "onnx.Output"(%c) <{name = "c"}> : (tensor<?x3xi64>) -> ()
}

// CHECK:      %{{.*}} = "ov.Parameter"() <{friendly_name = "x", tensor_names = {{\[\["x"\]\]}}}> : () -> tensor<?x3xf32>
// CHECK-NEXT: %{{.*}} = "ov.Constant"() <{value = dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>, friendly_name = "w", tensor_names = {{\[\["w"\]\]}}}>
// CHECK-NEXT: %{{.*}} = "ov.Add"(%{{.*}}, %{{.*}}) <{friendly_name = "add1", tensor_names = {{\[\["y"\]\]}}}> : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: %{{.*}} = "ov.Abs"(%{{.*}}) <{friendly_name = "z", tensor_names = {{\[\["z"\]\]}}}>
// CHECK-NEXT: %{{.*}} = "ov.Convert"(%{{.*}}) <{destination_type = "i64", friendly_name = "c", tensor_names = {{\[\["c"\]\]}}}> : (tensor<?x3xf32>) -> tensor<?x3xi64>
// CHECK-NEXT: "ov.Result"(%{{.*}}) : (tensor<?x3xi64>) -> ()
// CHECK-NOT: onnx.
