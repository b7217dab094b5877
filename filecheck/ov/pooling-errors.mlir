// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of MaxPool and AvgPool.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x7x7xf32>
  %0, %1 = "ov.MaxPool"(%x) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>}> : (tensor<1x3x7x7xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>)
}
// CHECK: ov.MaxPool: output 0 has type tensor<1x3x4x4xf32>, but inputs and attributes give tensor<1x3x3x3xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x7x7xf32>
  %0, %1 = "ov.MaxPool"(%x) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>}> : (tensor<1x3x7x7xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3x3x3xi32>)
}
// CHECK: ov.MaxPool: output 1 has type tensor<1x3x3x3xi32>, but inputs and attributes give tensor<1x3x3x3xi64>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x7x7xf32>
  %0, %1 = "ov.MaxPool"(%x) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>, index_element_type = "f32"}> : (tensor<1x3x7x7xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>)
}
// CHECK: ov.MaxPool: attribute index_element_type must be one of ['i32', 'i64'], got f32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x7x7xf32>
  %0 = "ov.MaxPool"(%x) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>}> : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
}
// CHECK: ov.MaxPool: expected 2 outputs, got 1

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x7x7xf32>
  %0, %1 = "ov.MaxPool"(%x) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2, 2>}> : (tensor<1x3x7x7xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>)
}
// CHECK: ov.MaxPool: inputs and attributes disagree on the number of spatial dims (2 vs 3)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x7x7xf32>
  %0 = "ov.AvgPool"(%x) <{kernel = array<i64: 0, 2>, strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = true}> : (tensor<1x3x7x7xf32>) -> tensor<1x3x7x6xf32>
}
// CHECK: ov.AvgPool: kernel [0, 2] must be positive

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x7x7xf32>
  %0 = "ov.AvgPool"(%x) <{kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = true, rounding_type = "round"}> : (tensor<1x3x7x7xf32>) -> tensor<1x3x6x6xf32>
}
// CHECK: ov.AvgPool: unknown rounding_type 'round'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x7x7xf32>
  %0 = "ov.AvgPool"(%x) <{kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x3x7x7xf32>) -> tensor<1x3x6x6xf32>
}
// CHECK: ov.AvgPool: missing required attribute 'exclude-pad'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x7xf32>
  %0 = "ov.AvgPool"(%x) <{kernel = array<i64: 2>, strides = array<i64: 1>, pads_begin = array<i64: 0>, pads_end = array<i64: 0>, "exclude-pad" = true}> : (tensor<3x7xf32>) -> tensor<3x6xf32>
}
// CHECK: ov.AvgPool: inputs and attributes disagree on the number of spatial dims (0 vs 1)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x7x7xf32>
  %0 = "ov.AvgPool"(%x) <{kernel = array<i64: 8, 8>, strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = true}> : (tensor<1x3x7x7xf32>) -> tensor<1x3x1x1xf32>
}
// CHECK: ov.AvgPool: window (kernel 8, dilation 1) is larger than the padded input dimension 7
