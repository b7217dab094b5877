// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of Reshape, Transpose, Squeeze, Unsqueeze, Concat, Split,
// VariadicSplit, DepthToSpace, SpaceToDepth.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %s = "ov.Constant"() <{value = dense<[5, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Reshape"(%x, %s) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<5x?xf32>
}
// CHECK: ov.Reshape: cannot reshape [2,3,4] (24 elements) to [5, -1]

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %s = "ov.Constant"() <{value = dense<[-1, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Reshape"(%x, %s) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
}
// CHECK: ov.Reshape: target shape [-1, -1] has more than one -1

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %s = "ov.Constant"() <{value = dense<[4, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Reshape"(%x, %s) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x5xf32>
}
// CHECK: ov.Reshape: cannot reshape [2,3,4] (24 elements) to [4,5] (20 elements)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %s = "ov.Constant"() <{value = dense<[6, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
}
// CHECK: ov.Reshape: missing required attribute 'special_zero'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %s = "ov.Constant"() <{value = dense<[6.0, 4.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y = "ov.Reshape"(%x, %s) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<2xf32>) -> tensor<6x4xf32>
}
// CHECK: ov.Reshape: target shape (input 1) must be an integer type, got f32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %s = "ov.Constant"() <{value = dense<[6, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Reshape"(%x, %s) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
}
// CHECK: ov.Reshape: output 0 has type tensor<4x6xf32>, but inputs and attributes give tensor<6x4xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %p = "ov.Constant"() <{value = dense<[0, 0, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %y = "ov.Transpose"(%x, %p) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x2x3xf32>
}
// CHECK: ov.Transpose: order [0, 0, 1] is not a permutation of the 3 input axes

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %p = "ov.Constant"() <{value = dense<[2, 1, 0]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %y = "ov.Transpose"(%x, %p) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
}
// CHECK: ov.Transpose: output 0 has type tensor<2x3x4xf32>, but inputs and attributes give tensor<4x3x2xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3xf32>
  %a = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.Squeeze"(%x, %a) : (tensor<1x3xf32>, tensor<i64>) -> tensor<3xf32>
}
// CHECK: ov.Squeeze: axis 2 is out of range for rank 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3xf32>
  %y = "ov.Squeeze"(%x) : (tensor<1x3xf32>) -> tensor<1x3xf32>
}
// CHECK: ov.Squeeze: output 0 has type tensor<1x3xf32>, but inputs and attributes give tensor<3xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %a = "ov.Constant"() <{value = dense<[0, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Unsqueeze"(%x, %a) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<1x1x2x3xf32>
}
// CHECK: ov.Unsqueeze: output 0 has type tensor<1x1x2x3xf32>, but inputs and attributes give tensor<1x2x3xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %y = "ov.Unsqueeze"(%x) : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
}
// CHECK: ov.Unsqueeze: expected 2 inputs, got 1

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %a = "ov.Constant"() <{value = dense<4> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.Unsqueeze"(%x, %a) : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3x1xf32>
}
// CHECK: ov.Unsqueeze: axis 4 is out of range for rank 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %z = "ov.Parameter"() : () -> tensor<2x4xf32>
  %y = "ov.Concat"(%x, %z) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
}
// CHECK: ov.Concat: input 1 dimension 1: dimensions 3 and 4 do not match

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %z = "ov.Parameter"() : () -> tensor<2x3x1xf32>
  %y = "ov.Concat"(%x, %z) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<4x3xf32>
}
// CHECK: ov.Concat: input 1 has rank 3, expected 2 ([2,3,1] vs [2,3])

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %y = "ov.Concat"(%x, %x) <{axis = 2 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
}
// CHECK: ov.Concat: axis 2 is out of range for rank 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %z = "ov.Parameter"() : () -> tensor<2x3xi32>
  %y = "ov.Concat"(%x, %z) <{axis = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<4x3xf32>
}
// CHECK: ov.Concat: inputs must have the same element type, got f32 (input 0) and i32 (input 1)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %y = "ov.Concat"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Concat: missing required attribute 'axis'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3xf32>
  %a = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %0, %1 = "ov.Split"(%x, %a) <{num_splits = 2 : i64}> : (tensor<2x3xf32>, tensor<i64>) -> (tensor<2x1xf32>, tensor<2x2xf32>)
}
// CHECK: ov.Split: dimension 1 (3) is not divisible by 2 splits

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x4xf32>
  %a = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %0, %1 = "ov.Split"(%x, %a) <{num_splits = 4 : i64}> : (tensor<2x4xf32>, tensor<i64>) -> (tensor<2x1xf32>, tensor<2x1xf32>)
}
// CHECK: ov.Split: shape inference gives 4 outputs, op has 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x4xf32>
  %a = "ov.Constant"() <{value = dense<[1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0, %1 = "ov.Split"(%x, %a) <{num_splits = 2 : i64}> : (tensor<2x4xf32>, tensor<2xi64>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
}
// CHECK: ov.Split: axis must be a scalar, got shape [2]

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x4xf32>
  %a = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %l = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0, %1 = "ov.VariadicSplit"(%x, %a, %l) : (tensor<2x4xf32>, tensor<i64>, tensor<2xi64>) -> (tensor<2x1xf32>, tensor<2x2xf32>)
}
// CHECK: ov.VariadicSplit: split_lengths [1, 2] do not add up to dimension 1 (4)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x4xf32>
  %a = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %l = "ov.Constant"() <{value = dense<[-1, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0, %1 = "ov.VariadicSplit"(%x, %a, %l) : (tensor<2x4xf32>, tensor<i64>, tensor<2xi64>) -> (tensor<2x?xf32>, tensor<2x?xf32>)
}
// CHECK: ov.VariadicSplit: split_lengths [-1, -1] has more than one -1

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x4xf32>
  %a = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %l = "ov.Constant"() <{value = dense<[1, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0, %1, %2 = "ov.VariadicSplit"(%x, %a, %l) : (tensor<2x4xf32>, tensor<i64>, tensor<2xi64>) -> (tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
}
// CHECK: ov.VariadicSplit: shape inference gives 2 outputs, op has 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x6x2x2xf32>
  %y = "ov.DepthToSpace"(%x) <{block_size = 2 : i64, mode = "blocks_first"}> : (tensor<1x6x2x2xf32>) -> tensor<1x1x4x4xf32>
}
// CHECK: ov.DepthToSpace: channels 6 are not divisible by block_size^2 = 4

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x8x2x2xf32>
  %y = "ov.DepthToSpace"(%x) <{block_size = 2 : i64, mode = "channels_first"}> : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
}
// CHECK: ov.DepthToSpace: unknown mode 'channels_first'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x8x2x2xf32>
  %y = "ov.DepthToSpace"(%x) <{block_size = 2 : i64}> : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
}
// CHECK: ov.DepthToSpace: missing required attribute 'mode'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x2x3x4xf32>
  %y = "ov.SpaceToDepth"(%x) <{block_size = 2 : i64, mode = "blocks_first"}> : (tensor<1x2x3x4xf32>) -> tensor<1x8x1x2xf32>
}
// CHECK: ov.SpaceToDepth: spatial dimension 2 (3) is not divisible by block_size 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x4xf32>
  %y = "ov.SpaceToDepth"(%x) <{block_size = 0 : i64, mode = "blocks_first"}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
}
// CHECK: ov.SpaceToDepth: block_size must be positive, got 0
