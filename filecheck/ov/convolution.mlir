// RUN: xmo-opt %s | xmo-opt | filecheck %s
// Convolution, GroupConvolution and ConvolutionBackpropData round-trip.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x4x8x8xf32>
  %xd = "ov.Parameter"() : () -> tensor<?x4x?x?xf32>
  %xu = "ov.Parameter"() : () -> tensor<*xf32>
  %x1 = "ov.Parameter"() : () -> tensor<2x4x10xf32>
  %w = "ov.Parameter"() : () -> tensor<6x4x3x3xf32>
  %w1 = "ov.Parameter"() : () -> tensor<6x4x3xf32>
  %gw = "ov.Parameter"() : () -> tensor<2x3x2x3x3xf32>
  %dw = "ov.Parameter"() : () -> tensor<4x2x3x3xf32>
  %os = "ov.Constant"() <{value = dense<[16, 16]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "ov.Convolution"(%x, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
  %1 = "ov.Convolution"(%x, %w) <{strides = array<i64: 2, 2>, dilations = array<i64: 2, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x2x3xf32>
  %2 = "ov.Convolution"(%x, %w) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, auto_pad = "same_upper"}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32>
  %3 = "ov.Convolution"(%xd, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, auto_pad = "valid"}> : (tensor<?x4x?x?xf32>, tensor<6x4x3x3xf32>) -> tensor<?x6x?x?xf32>
  %4 = "ov.Convolution"(%xu, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<*xf32>, tensor<6x4x3x3xf32>) -> tensor<?x6x?x?xf32>
  %5 = "ov.Convolution"(%x1, %w1) <{strides = array<i64: 1>, dilations = array<i64: 1>, pads_begin = array<i64: 0>, pads_end = array<i64: 0>}> : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x8xf32>
  %6 = "ov.GroupConvolution"(%x, %gw) <{strides = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, dilations = array<i64: 1, 1>}> : (tensor<1x4x8x8xf32>, tensor<2x3x2x3x3xf32>) -> tensor<1x6x8x8xf32>
  %7 = "ov.GroupConvolution"(%xd, %gw) <{strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, dilations = array<i64: 1, 1>}> : (tensor<?x4x?x?xf32>, tensor<2x3x2x3x3xf32>) -> tensor<?x6x?x?xf32>
  %8 = "ov.ConvolutionBackpropData"(%x, %dw) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, output_padding = array<i64: 1, 1>}> : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x16x16xf32>
  %9 = "ov.ConvolutionBackpropData"(%x, %dw, %os) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, auto_pad = "same_upper"}> : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>, tensor<2xi64>) -> tensor<1x2x16x16xf32>
  %10 = "ov.ConvolutionBackpropData"(%xd, %dw) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<?x4x?x?xf32>, tensor<4x2x3x3xf32>) -> tensor<?x2x?x?xf32>
  "ov.Result"(%0) : (tensor<1x6x8x8xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0 = "ov.Convolution"(%x, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>
// CHECK: %1 = "ov.Convolution"(%x, %w) <{strides = array<i64: 2, 2>, dilations = array<i64: 2, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x2x3xf32>
// CHECK: %2 = "ov.Convolution"(%x, %w) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, auto_pad = "same_upper"}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32>
// CHECK: %3 = "ov.Convolution"(%xd, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, auto_pad = "valid"}> : (tensor<?x4x?x?xf32>, tensor<6x4x3x3xf32>) -> tensor<?x6x?x?xf32>
// CHECK: %4 = "ov.Convolution"(%xu, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<*xf32>, tensor<6x4x3x3xf32>) -> tensor<?x6x?x?xf32>
// CHECK: %5 = "ov.Convolution"(%x1, %w1) <{strides = array<i64: 1>, dilations = array<i64: 1>, pads_begin = array<i64: 0>, pads_end = array<i64: 0>}> : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x8xf32>
// CHECK: %6 = "ov.GroupConvolution"(%x, %gw) <{strides = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, dilations = array<i64: 1, 1>}> : (tensor<1x4x8x8xf32>, tensor<2x3x2x3x3xf32>) -> tensor<1x6x8x8xf32>
// CHECK: %7 = "ov.GroupConvolution"(%xd, %gw) <{strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, dilations = array<i64: 1, 1>}> : (tensor<?x4x?x?xf32>, tensor<2x3x2x3x3xf32>) -> tensor<?x6x?x?xf32>
// CHECK: %8 = "ov.ConvolutionBackpropData"(%x, %dw) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, output_padding = array<i64: 1, 1>}> : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x16x16xf32>
// CHECK: %9 = "ov.ConvolutionBackpropData"(%x, %dw, %os) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, auto_pad = "same_upper"}> : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>, tensor<2xi64>) -> tensor<1x2x16x16xf32>
// CHECK: %10 = "ov.ConvolutionBackpropData"(%xd, %dw) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>}> : (tensor<?x4x?x?xf32>, tensor<4x2x3x3xf32>) -> tensor<?x2x?x?xf32>
