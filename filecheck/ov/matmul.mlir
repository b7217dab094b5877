// RUN: xmo-opt %s | xmo-opt | filecheck %s
// MatMul: batched, transposed, vector operands, dynamic dims and rank.

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %b = "ov.Parameter"() : () -> tensor<4x5xf32>
  %bt = "ov.Parameter"() : () -> tensor<5x4xf32>
  %c = "ov.Parameter"() : () -> tensor<7x1x3x4xf32>
  %v = "ov.Parameter"() : () -> tensor<4xf32>
  %d = "ov.Parameter"() : () -> tensor<?x?x4xf32>
  %u = "ov.Parameter"() : () -> tensor<*xf32>
  %0 = "ov.MatMul"(%a, %b) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %1 = "ov.MatMul"(%a, %bt) <{transpose_b = true}> : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  %2 = "ov.MatMul"(%b, %a) <{transpose_a = true, transpose_b = true}> : (tensor<4x5xf32>, tensor<2x3x4xf32>) -> tensor<2x5x3xf32>
  %3 = "ov.MatMul"(%c, %a) <{transpose_b = true}> : (tensor<7x1x3x4xf32>, tensor<2x3x4xf32>) -> tensor<7x2x3x3xf32>
  %4 = "ov.MatMul"(%a, %v) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  %5 = "ov.MatMul"(%v, %b) : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  %6 = "ov.MatMul"(%v, %v) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %7 = "ov.MatMul"(%d, %b) : (tensor<?x?x4xf32>, tensor<4x5xf32>) -> tensor<?x?x5xf32>
  %8 = "ov.MatMul"(%u, %b) : (tensor<*xf32>, tensor<4x5xf32>) -> tensor<*xf32>
  "ov.Result"(%0) : (tensor<2x3x5xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0 = "ov.MatMul"(%a, %b) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
// CHECK: %1 = "ov.MatMul"(%a, %bt) <{transpose_b = true}> : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
// CHECK: %2 = "ov.MatMul"(%b, %a) <{transpose_a = true, transpose_b = true}> : (tensor<4x5xf32>, tensor<2x3x4xf32>) -> tensor<2x5x3xf32>
// CHECK: %3 = "ov.MatMul"(%c, %a) <{transpose_b = true}> : (tensor<7x1x3x4xf32>, tensor<2x3x4xf32>) -> tensor<7x2x3x3xf32>
// CHECK: %4 = "ov.MatMul"(%a, %v) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3xf32>
// CHECK: %5 = "ov.MatMul"(%v, %b) : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
// CHECK: %6 = "ov.MatMul"(%v, %v) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
// CHECK: %7 = "ov.MatMul"(%d, %b) : (tensor<?x?x4xf32>, tensor<4x5xf32>) -> tensor<?x?x5xf32>
// CHECK: %8 = "ov.MatMul"(%u, %b) : (tensor<*xf32>, tensor<4x5xf32>) -> tensor<*xf32>
