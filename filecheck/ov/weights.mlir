// RUN: xmo-opt %s | filecheck %s
// RUN: xmo-opt %s | xmo-opt | filecheck %s
// RUN: xmo-opt %s --elide-weights | filecheck %s --check-prefix=ELIDE
// Large constants are dense_resource blobs kept as numpy arrays; the text form
// round-trips through the resources section, and --elide-weights drops payloads.

builtin.module {
  %w = "ov.Constant"() <{value = dense_resource<conv1_w> : tensor<2x3x2x2xf32>}> : () -> tensor<2x3x2x2xf32>
  "ov.Result"(%w) : (tensor<2x3x2x2xf32>) -> ()
}

{-#
  dialect_resources: {
    builtin: {
      conv1_w: "0x10000000000000000000803f0000004000004040000080400000a0400000c0400000e0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000a0410000a8410000b0410000b841"
    }
  }
#-}

// CHECK: "ov.Constant"() <{value = dense_resource<conv1_w> : tensor<2x3x2x2xf32>}>
// CHECK: dialect_resources: {
// CHECK:   builtin: {
// CHECK:     conv1_w: "0x10000000000000000000803f0000004000004040
// ELIDE: "ov.Constant"() <{value = dense_resource<conv1_w> : tensor<2x3x2x2xf32>}>
// ELIDE-NOT: dialect_resources
