// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of elementwise ops, Select and Convert.

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<4xf32>
  %c = "ov.Add"(%a, %b) : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Add: shapes [2,3] and [1,4] cannot be broadcast together (dimension 3 vs 4)

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<2x3xi32>
  %c = "ov.Multiply"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
}
// CHECK: ov.Multiply: inputs must have the same element type, got f32 (input 0) and i32 (input 1)

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %c = "ov.Subtract"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
}
// CHECK: ov.Subtract: output 0 has type tensor<3x2xf32>, but inputs and attributes give tensor<2x3xf32>

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<3xf32>
  %c = "ov.Maximum"(%a, %b) <{auto_broadcast = "none"}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Maximum: auto_broadcast=none requires equal shapes: shapes [2,3] and [3] have different ranks

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %c = "ov.Divide"(%a, %a) <{auto_broadcast = "sideways"}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Divide: unsupported auto_broadcast mode 'sideways'

// -----

builtin.module {
  %p = "ov.Parameter"() : () -> tensor<2xi1>
  %c = "ov.Add"(%p, %p) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
}
// CHECK: ov.Add: arithmetic on boolean inputs is not supported

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %c = "ov.Equal"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Equal: output 0 has type tensor<2x3xf32>, but inputs and attributes give tensor<2x3xi1>

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %c = "ov.LogicalAnd"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
}
// CHECK: ov.LogicalAnd: logical operand (input 0) must be boolean, got f32

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2xi32>
  %c = "ov.LogicalNot"(%a) : (tensor<2xi32>) -> tensor<2xi1>
}
// CHECK: ov.LogicalNot: logical operand (input 0) must be boolean, got i32

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %c = "ov.Select"(%a, %a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Select: condition (input 0) must be boolean, got f32

// -----

builtin.module {
  %p = "ov.Parameter"() : () -> tensor<2x3xi1>
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<2x3xf16>
  %c = "ov.Select"(%p, %a, %b) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
}
// CHECK: ov.Select: then and else must have the same element type, got f32 (input 1) and f16 (input 2)

// -----

builtin.module {
  %p = "ov.Parameter"() : () -> tensor<4x3xi1>
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %c = "ov.Select"(%p, %a, %a) : (tensor<4x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Select: shapes [2,3] and [4,3] cannot be broadcast together (dimension 2 vs 4)

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %c = "ov.Convert"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf16>
}
// CHECK: ov.Convert: missing required attribute 'destination_type'

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %c = "ov.Convert"(%a) <{destination_type = "f16"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Convert: output 0 has type tensor<2x3xf32>, but inputs and attributes give tensor<2x3xf16>

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %c = "ov.Convert"(%a) <{destination_type = "dynamic"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Convert: attribute destination_type must be a concrete element type, got 'dynamic'

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %c = "ov.Convert"(%a) <{destination_type = "float99"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Convert: attribute 'destination_type': unknown element type 'float99'

// -----

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %c = "ov.Add"(%a, %a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Add: expected 2 inputs, got 3
