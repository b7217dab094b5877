// RUN: xmo-opt %s -p convert-kaldi-to-ov | filecheck %s
// The Kaldi context window: Offset only shifts a value's frame margins, Append
// slices each part to the frames all parts have (rows 0..-2 for the frame t-1,
// rows 1.. for t) before the Concat, an affine component is a MatMul with the
// transposed weights plus the bias, and the output is named after its node.

builtin.module {
  %x = "kaldi.Input"() <{node_name = "input"}> : () -> tensor<?x2xf32>
  %o = "kaldi.Descriptor"(%x) <{kind = "Offset", node_name = "affine", args = [-1 : i64]}> : (tensor<?x2xf32>) -> tensor<*xf32>
  %a = "kaldi.Descriptor"(%o, %x) <{kind = "Append", node_name = "affine", args = []}> : (tensor<*xf32>, tensor<?x2xf32>) -> tensor<*xf32>
  %y = "kaldi.Component"(%a) <{component_type = "FixedAffineComponent", node_name = "affine", component_name = "affine", fields = {LinearParams = dense<[[1.0, 0.0, 0.0, 1.0]]> : tensor<1x4xf32>, BiasParams = dense<[0.5]> : tensor<1xf32>}}> : (tensor<*xf32>) -> tensor<*xf32>
  %r = "kaldi.Component"(%y) <{component_type = "RectifiedLinearComponent", node_name = "relu", component_name = "relu", fields = {Dim = 1 : i64}}> : (tensor<*xf32>) -> tensor<*xf32>
  "kaldi.Output"(%r) <{node_name = "output"}> : (tensor<*xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "input", tensor_names = {{\[\["input"\]\]}}}> : () -> tensor<?x2xf32>
// CHECK:      %[[E0:.*]] = "ov.Constant"() <{value = dense<-1> : tensor<1xi64>
// CHECK:      %[[S0:.*]] = "ov.Slice"(%[[X]], %{{.*}}, %[[E0]], %{{.*}}, %{{.*}}) {{.*}} -> tensor<?x2xf32>
// CHECK:      %[[B1:.*]] = "ov.Constant"() <{value = dense<1> : tensor<1xi64>
// CHECK:      %[[S1:.*]] = "ov.Slice"(%[[X]], %[[B1]], {{.*}} -> tensor<?x2xf32>
// CHECK-NEXT: %[[C:.*]] = "ov.Concat"(%[[S0]], %[[S1]]) <{axis = 1 : i64{{.*}}}> : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x4xf32>
// CHECK:      %[[M:.*]] = "ov.MatMul"(%[[C]], %{{.*}}) <{transpose_a = false, transpose_b = true{{.*}}}> : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x1xf32>
// CHECK:      %[[A:.*]] = "ov.Add"(%[[M]], %{{.*}}) <{friendly_name = "affine", tensor_names = {{\[\["affine"\]\]}}}>
// CHECK-NEXT: %[[R:.*]] = "ov.Relu"(%[[A]]) <{friendly_name = "relu", tensor_names = {{\[\["relu", "output"\]\]}}}>
// CHECK-NEXT: "ov.Result"(%[[R]])
// CHECK-NOT: kaldi.
