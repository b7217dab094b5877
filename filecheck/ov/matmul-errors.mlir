// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of MatMul.

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<4x5xf32>
  %c = "ov.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
}
// CHECK: ov.MatMul: inner dimensions of [2,3] x [4,5]: dimensions 3 and 4 do not match

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<5x3xf32>
  %c = "ov.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<5x3xf32>) -> tensor<2x5xf32>
}
// CHECK: ov.MatMul: inner dimensions of [2,3] x [5,3]: dimensions 3 and 5 do not match

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<3x5xf16>
  %c = "ov.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<3x5xf16>) -> tensor<2x5xf32>
}
// CHECK: ov.MatMul: matrix operands must have the same element type, got f32 (input 0) and f16 (input 1)

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<3x5xf32>
  %c = "ov.MatMul"(%a, %b) <{transpose_a = true}> : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
}
// CHECK: ov.MatMul: inner dimensions of [2,3] x [3,5]: dimensions 2 and 3 do not match

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<3x3x5xf32>
  %c = "ov.MatMul"(%a, %b) : (tensor<2x2x3xf32>, tensor<3x3x5xf32>) -> tensor<3x2x5xf32>
}
// CHECK: ov.MatMul: shapes [2] and [3] cannot be broadcast together (dimension 2 vs 3)

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<f32>
  %b = "ov.Parameter"() : () -> tensor<3x5xf32>
  %c = "ov.MatMul"(%a, %b) : (tensor<f32>, tensor<3x5xf32>) -> tensor<5xf32>
}
// CHECK: ov.MatMul: MatMul operands must not be scalars

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<3x5xf32>
  %c = "ov.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<5x2xf32>
}
// CHECK: ov.MatMul: output 0 has type tensor<5x2xf32>, but inputs and attributes give tensor<2x5xf32>

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<3x5xf32>
  %c = "ov.MatMul"(%a, %b) <{transpose_a = "yes"}> : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
}
// CHECK: "yes" should be of base attribute integer
