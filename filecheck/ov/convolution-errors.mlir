// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of Convolution, GroupConvolution, ConvolutionBackpropData.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<6x4x3x3xf32>
  %y = "ov.Convolution"(%x, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
}
// CHECK: ov.Convolution: output 0 has type tensor<1x6x8x8xf32>, but inputs and attributes give tensor<1x6x6x6xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<6x5x3x3xf32>
  %y = "ov.Convolution"(%x, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<6x5x3x3xf32>) -> tensor<1x6x6x6xf32>
}
// CHECK: ov.Convolution: input channels vs filter input channels: dimensions 4 and 5 do not match

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<6x4x3x3xf16>
  %y = "ov.Convolution"(%x, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf16>) -> tensor<1x6x6x6xf32>
}
// CHECK: ov.Convolution: data and filters must have the same element type, got f32 (input 0) and f16 (input 1)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<6x4x3x3xf32>
  %y = "ov.Convolution"(%x, %w) <{strides = array<i64: 1, 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
}
// CHECK: ov.Convolution: inputs and attributes disagree on the number of spatial dims (2 vs 3)

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<6x4x3x3xf32>
  %y = "ov.Convolution"(%x, %w) <{strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
}
// CHECK: ov.Convolution: missing required attribute 'dilations'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x2x2xf32>
  %w = "ov.Parameter"() : () -> tensor<6x4x3x3xf32>
  %y = "ov.Convolution"(%x, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x2x2xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x1x1xf32>
}
// CHECK: ov.Convolution: window (kernel 3, dilation 1) is larger than the padded input dimension 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<6x4x3x3xf32>
  %y = "ov.Convolution"(%x, %w) <{strides = array<i64: 0, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
}
// CHECK: ov.Convolution: strides and dilations must be positive

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<6x4x3x3xf32>
  %y = "ov.Convolution"(%x, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, auto_pad = "sometimes"}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
}
// CHECK: ov.Convolution: unknown auto_pad 'sometimes'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x6x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<2x3x2x3x3xf32>
  %y = "ov.GroupConvolution"(%x, %w) <{strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, dilations = array<i64: 1, 1>}> : (tensor<1x6x8x8xf32>, tensor<2x3x2x3x3xf32>) -> tensor<1x6x6x6xf32>
}
// CHECK: ov.GroupConvolution: input channels vs groups * filter input channels: dimensions 6 and 4 do not match

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<2x3x2x3x3xf32>
  %y = "ov.GroupConvolution"(%x, %w) <{strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, dilations = array<i64: 1, 1>}> : (tensor<1x4x8x8xf32>, tensor<2x3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
}
// CHECK: ov.GroupConvolution: output 0 has type tensor<1x3x6x6xf32>, but inputs and attributes give tensor<1x6x6x6xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<4x2x3x3xf32>
  %s = "ov.Constant"() <{value = dense<[16, 16, 16]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %y = "ov.ConvolutionBackpropData"(%x, %w, %s) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>, tensor<3xi64>) -> tensor<1x2x16x16xf32>
}
// CHECK: ov.ConvolutionBackpropData: output_shape has 3 values for 2 spatial dims

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<3x2x3x3xf32>
  %y = "ov.ConvolutionBackpropData"(%x, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x10x10xf32>
}
// CHECK: ov.ConvolutionBackpropData: input channels vs filter input channels: dimensions 4 and 3 do not match

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %w = "ov.Parameter"() : () -> tensor<4x2x3x3xf32>
  %y = "ov.ConvolutionBackpropData"(%x, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x8x8xf32>
}
// CHECK: ov.ConvolutionBackpropData: output 0 has type tensor<1x2x8x8xf32>, but inputs and attributes give tensor<1x2x10x10xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %y = "ov.Convolution"(%x) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>) -> tensor<1x6x6x6xf32>
}
// CHECK: ov.Convolution: expected 2 inputs, got 1
