// RUN: not xmo-opt %s -p ov-infer-shapes 2>&1 | filecheck %s
// ov-infer-shapes: a declared type that contradicts the inferred one is an
// error. Each module verifies as written (a dynamic input hides the conflict);
// refining the producer exposes it.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<6xf32>
  %r = "ov.Relu"(%x) : (tensor<6xf32>) -> tensor<?xf32>
  %e = "ov.Exp"(%r) : (tensor<?xf32>) -> tensor<5xf32>
  "ov.Result"(%e) : (tensor<5xf32>) -> ()
}
// CHECK: ov.Exp: output 0 is tensor<5xf32>, inputs give tensor<6xf32>
