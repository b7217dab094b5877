// RUN: not xmo-opt %s -p ov-infer-shapes 2>&1 | filecheck %s
// ov-infer-shapes: refining a dynamic-rank value to rank 2 contradicts a
// consumer that declared a rank-3 shape.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %r = "ov.Relu"(%x) : (tensor<2x3xf32>) -> tensor<*xf32>
  %s = "ov.ShapeOf"(%r) : (tensor<*xf32>) -> tensor<3xi64>
  "ov.Result"(%s) : (tensor<3xi64>) -> ()
}
// CHECK: ov.ShapeOf: output 0 is tensor<3xi64>, inputs give tensor<2xi64>
