// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of Gather, GatherND, ScatterUpdate, StridedSlice, Slice.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<2xf32>
  %a = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.Gather"(%x, %i, %a) : (tensor<4x5x6xf32>, tensor<2xf32>, tensor<i64>) -> tensor<2x5x6xf32>
}
// CHECK: ov.Gather: indices (input 1) must be an integer type, got f32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<2xi32>
  %a = "ov.Constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.Gather"(%x, %i, %a) : (tensor<4x5x6xf32>, tensor<2xi32>, tensor<i64>) -> tensor<4x5x2xf32>
}
// CHECK: ov.Gather: axis 3 is out of range for rank 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<2xi32>
  %a = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.Gather"(%x, %i, %a) : (tensor<4x5x6xf32>, tensor<2xi32>, tensor<i64>) -> tensor<4x5x6xf32>
}
// CHECK: ov.Gather: output 0 has type tensor<4x5x6xf32>, but inputs and attributes give tensor<4x2x6xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<3x2xi32>
  %a = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.Gather"(%x, %i, %a) <{batch_dims = 1 : i64}> : (tensor<4x5x6xf32>, tensor<3x2xi32>, tensor<i64>) -> tensor<4x2x6xf32>
}
// CHECK: ov.Gather: batch dimension 0: dimensions 4 and 3 do not match

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<4x2xi32>
  %a = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.Gather"(%x, %i, %a) <{batch_dims = 1 : i64}> : (tensor<4x5x6xf32>, tensor<4x2xi32>, tensor<i64>) -> tensor<4x2x5x6xf32>
}
// CHECK: ov.Gather: batch_dims 1 must not exceed axis 0

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<2xi32>
  %y = "ov.Gather"(%x, %i) : (tensor<4x5x6xf32>, tensor<2xi32>) -> tensor<2x5x6xf32>
}
// CHECK: ov.Gather: expected 3 inputs, got 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<2x4xi64>
  %y = "ov.GatherND"(%x, %i) : (tensor<4x5x6xf32>, tensor<2x4xi64>) -> tensor<2xf32>
}
// CHECK: ov.GatherND: indices last dimension 4 plus batch_dims 0 exceeds the data rank 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<i64>
  %y = "ov.GatherND"(%x, %i) : (tensor<4x5x6xf32>, tensor<i64>) -> tensor<f32>
}
// CHECK: ov.GatherND: indices must have rank 1 or more

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<4x2xi64>
  %y = "ov.GatherND"(%x, %i) <{batch_dims = -1 : i64}> : (tensor<4x5x6xf32>, tensor<4x2xi64>) -> tensor<4x6xf32>
}
// CHECK: ov.GatherND: batch_dims must not be negative, got -1

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<3x2xi64>
  %y = "ov.GatherND"(%x, %i) : (tensor<4x5x6xf32>, tensor<3x2xi64>) -> tensor<3x5xf32>
}
// CHECK: ov.GatherND: output 0 has type tensor<3x5xf32>, but inputs and attributes give tensor<3x6xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<2xi32>
  %u = "ov.Parameter"() : () -> tensor<2x5x6xf16>
  %a = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.ScatterUpdate"(%x, %i, %u, %a) : (tensor<4x5x6xf32>, tensor<2xi32>, tensor<2x5x6xf16>, tensor<i64>) -> tensor<4x5x6xf32>
}
// CHECK: ov.ScatterUpdate: data and updates must have the same element type, got f32 (input 0) and f16 (input 2)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<2xi32>
  %u = "ov.Parameter"() : () -> tensor<2x5x6xf32>
  %a = "ov.Constant"() <{value = dense<-4> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.ScatterUpdate"(%x, %i, %u, %a) : (tensor<4x5x6xf32>, tensor<2xi32>, tensor<2x5x6xf32>, tensor<i64>) -> tensor<4x5x6xf32>
}
// CHECK: ov.ScatterUpdate: axis -4 is out of range for rank 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %i = "ov.Parameter"() : () -> tensor<2xf32>
  %u = "ov.Parameter"() : () -> tensor<2x5x6xf32>
  %a = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.ScatterUpdate"(%x, %i, %u, %a) : (tensor<4x5x6xf32>, tensor<2xf32>, tensor<2x5x6xf32>, tensor<i64>) -> tensor<4x5x6xf32>
}
// CHECK: ov.ScatterUpdate: indices (input 1) must be an integer type, got f32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %b = "ov.Constant"() <{value = dense<[0, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %e = "ov.Constant"() <{value = dense<[2, 2, 2]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %y = "ov.StridedSlice"(%x, %b, %e, %b) <{begin_mask = array<i64: 0, 0>, end_mask = array<i64: 0, 0>}> : (tensor<4x5x6xf32>, tensor<2xi64>, tensor<3xi64>, tensor<2xi64>) -> tensor<2x2x6xf32>
}
// CHECK: ov.StridedSlice: begin, end and stride have different lengths [2, 3]

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %b = "ov.Constant"() <{value = dense<[0, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s = "ov.Constant"() <{value = dense<[1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.StridedSlice"(%x, %b, %b, %s) <{begin_mask = array<i64: 1, 1>, end_mask = array<i64: 1, 1>}> : (tensor<4x5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x5x6xf32>
}
// CHECK: ov.StridedSlice: stride must not be zero

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %b = "ov.Constant"() <{value = dense<[9, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.StridedSlice"(%x, %b, %b, %b) <{begin_mask = array<i64: 0, 0>, end_mask = array<i64: 0, 0>, shrink_axis_mask = array<i64: 1, 0>}> : (tensor<4x5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<0x6xf32>
}
// CHECK: ov.StridedSlice: shrink index 9 is out of range for dimension 4

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %b = "ov.Constant"() <{value = dense<[0, 0, 0, 0]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %y = "ov.StridedSlice"(%x, %b, %b, %b) <{begin_mask = array<i64: 1, 1, 1, 1>, end_mask = array<i64: 1, 1, 1, 1>}> : (tensor<4x5x6xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) -> tensor<4x5x6x1xf32>
}
// CHECK: ov.StridedSlice: 4 sliced dimensions for data of rank 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %b = "ov.Constant"() <{value = dense<[0, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.StridedSlice"(%x, %b, %b, %b) <{begin_mask = array<i64: 0, 0>, end_mask = array<i64: 0, 0>, ellipsis_mask = array<i64: 1, 1>}> : (tensor<4x5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x5x6xf32>
}
// CHECK: ov.StridedSlice: ellipsis_mask has more than one set bit

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %b = "ov.Constant"() <{value = dense<[0, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.StridedSlice"(%x, %b, %b, %b) <{end_mask = array<i64: 0, 0>}> : (tensor<4x5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x5x6xf32>
}
// CHECK: ov.StridedSlice: missing required attribute 'begin_mask'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %s = "ov.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %e = "ov.Constant"() <{value = dense<[2]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %st = "ov.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %y = "ov.Slice"(%x, %s, %e, %st) : (tensor<4x5x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x5x6xf32>
}
// CHECK: ov.Slice: step must not be zero

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %s = "ov.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %e = "ov.Constant"() <{value = dense<[2, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Slice"(%x, %s, %e, %s) : (tensor<4x5x6xf32>, tensor<1xi64>, tensor<2xi64>, tensor<1xi64>) -> tensor<2x5x6xf32>
}
// CHECK: ov.Slice: start, stop, step and axes have different lengths [1, 2]

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %s = "ov.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %o = "ov.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %a = "ov.Constant"() <{value = dense<[3]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %y = "ov.Slice"(%x, %s, %o, %o, %a) : (tensor<4x5x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x5x1xf32>
}
// CHECK: ov.Slice: axis 3 is out of range for rank 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %s = "ov.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %o = "ov.Constant"() <{value = dense<[2]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %st = "ov.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %y = "ov.Slice"(%x, %s, %o, %st) : (tensor<4x5x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x5x6xf32>
}
// CHECK: ov.Slice: output 0 has type tensor<4x5x6xf32>, but inputs and attributes give tensor<2x5x6xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %s = "ov.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %y = "ov.Slice"(%x, %s, %s) : (tensor<4x5x6xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x5x6xf32>
}
// CHECK: ov.Slice: expected 4 to 5 inputs, got 3
