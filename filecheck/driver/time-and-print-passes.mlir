// RUN: xmo-opt %s -p ov-infer-shapes,ov-dce --time-passes | filecheck %s --check-prefix=TIME
// RUN: xmo-opt %s -p ov-infer-shapes,ov-dce --print-between-passes | filecheck %s --check-prefix=PRINT

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %r = "ov.Relu"(%x) : (tensor<2x3xf32>) -> tensor<?x?xf32>
  %unused = "ov.Exp"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "ov.Result"(%r) : (tensor<?x?xf32>) -> ()
}

// TIME: Pass ov-infer-shapes took {{[0-9.e-]+}} seconds
// TIME: Pass ov-dce took {{[0-9.e-]+}} seconds
// PRINT: IR after ov-infer-shapes:
// PRINT: "ov.Relu"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// PRINT: "ov.Exp"
// PRINT: builtin.module
// PRINT-NOT: "ov.Exp"
