// RUN: xmo-opt %s --extensions %S/../../examples/transformations -p eliminate-nop-convert | filecheck %s
// docs/transformations.md: eliminating an op while its names survive. The
// Relu feeding the eliminated Convert takes its friendly and tensor names.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2x3xf32>
  %r = "ov.Relu"(%x) <{friendly_name = "relu"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = "ov.Convert"(%r) <{destination_type = "f32", friendly_name = "to_f32", tensor_names = [["y"]]}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "ov.Result"(%c) <{friendly_name = "out"}> : (tensor<2x3xf32>) -> ()
}

// CHECK:      %[[R:.*]] = "ov.Relu"(%x) <{friendly_name = "to_f32", tensor_names = {{\[\["y"\]\]}}}>
// CHECK-NEXT: "ov.Result"(%[[R]])
// CHECK-NOT:  ov.Convert
