// RUN: xmo-opt %s -p onnx-canonicalize | filecheck %s
// RUN: xmo-opt %s -p onnx-canonicalize,convert-onnx-to-ov | filecheck %s --check-prefix=OV
// Identity and inference-mode Dropout disappear; their output names become
// aliases of the forwarded value and reach the OpenVINO tensor names.

builtin.module {
  %x = "onnx.Input"() <{name = "x"}> : () -> tensor<2x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %a = "onnx.Abs"(%x) <{output_names = ["a"], node_name = "abs"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %i = "onnx.Identity"(%a) <{output_names = ["a_copy"], node_name = "id"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = "onnx.Dropout"(%i) <{output_names = ["dropped"], node_name = "drop"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = "onnx.Relu"(%d) <{output_names = ["r"], node_name = "relu"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "onnx.Output"(%r) <{name = "r"}> : (tensor<2x3xf32>) -> ()
}

// CHECK:     "onnx.Abs"(%x) <{output_names = ["a"], node_name = "abs"}> {onnx.aliases = {{\[\["a_copy", "dropped"\]\]}}}
// CHECK-NOT: onnx.Identity
// CHECK-NOT: onnx.Dropout
// CHECK:     "onnx.Relu"(%a)

// OV: "ov.Abs"(%{{.*}}) <{friendly_name = "abs", tensor_names = {{\[\["a", "a_copy", "dropped"\]\]}}}>
