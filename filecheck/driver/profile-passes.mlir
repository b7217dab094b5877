// RUN: env XMO_PROFILE_PASS_ENABLE=1 xmo-opt %s --extensions %S/../../examples/transformations -p ov-infer-shapes,example-rewrites -o %t.mlir 2>&1 | filecheck %s
// XMO_PROFILE_PASS_ENABLE: one line per pass (name, wall time, changed?),
// one line per matcher of a GraphRewrite.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %n = "ov.Negative"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "ov.Result"(%n) : (tensor<2x3xf32>) -> ()
}

// CHECK:      xmo-profile: ov-infer-shapes {{[0-9]+\.[0-9]+}} ms unchanged
// CHECK-NEXT: xmo-profile: example-rewrites {{[0-9]+\.[0-9]+}} ms changed
// CHECK-NEXT: xmo-profile: matcher mish-fusion {{[0-9]+\.[0-9]+}} ms unchanged (0/0 applied)
// CHECK-NEXT: xmo-profile: matcher convert-negative {{[0-9]+\.[0-9]+}} ms changed (1/1 applied)
// CHECK-NEXT: xmo-profile: matcher convert-divide {{[0-9]+\.[0-9]+}} ms unchanged (0/0 applied)
// CHECK-NEXT: xmo-profile: matcher eliminate-nop-convert {{[0-9]+\.[0-9]+}} ms unchanged (0/0 applied)
