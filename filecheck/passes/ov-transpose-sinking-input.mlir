// RUN: xmo-opt %s -p ov-transpose-sinking | filecheck %s
// RUN: xmo-opt %s -p ov-transpose-sinking,ov-fuse-linear,ov-dce | filecheck %s --check-prefix=FUSED
// Backward sinking to the input: the NHWC->NCHW Transpose a TF frontend puts before a
// convolution moves above the input's pre-processing and zero Pad (pads permuted) to the
// input, which reads nothing else; the Pad then enters the convolution.

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x6x6x3xf32>
  %1 = "ov.Constant"() <{value = dense<0.00784313772> : tensor<f32>}> : () -> tensor<f32>
  %2 = "ov.Multiply"(%0, %1) <{friendly_name = "scale"}> : (tensor<1x6x6x3xf32>, tensor<f32>) -> tensor<1x6x6x3xf32>
  %3 = "ov.Constant"() <{value = dense<[0, 1, 2, 0]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %4 = "ov.Constant"() <{value = dense<[0, 2, 1, 0]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %5 = "ov.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %6 = "ov.Pad"(%2, %3, %4, %5) <{pad_mode = "constant", friendly_name = "pad"}> : (tensor<1x6x6x3xf32>, tensor<4xi64>, tensor<4xi64>, tensor<f32>) -> tensor<1x9x9x3xf32>
  %7 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %8 = "ov.Transpose"(%6, %7) <{friendly_name = "conv/to_nchw"}> : (tensor<1x9x9x3xf32>, tensor<4xi64>) -> tensor<1x3x9x9xf32>
  %9 = "ov.Constant"() <{value = dense<[[[[0.553260565]], [[0.217600614]], [[-0.0579899885]]], [[[-2.31893611]], [[0.431494176]], [[-2.12627983]]]]> : tensor<2x3x1x1xf32>}> : () -> tensor<2x3x1x1xf32>
  %10 = "ov.Convolution"(%8, %9) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, friendly_name = "conv", tensor_names = [["out"]]}> : (tensor<1x3x9x9xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x9x9xf32>
  "ov.Result"(%10) <{friendly_name = "out"}> : (tensor<1x2x9x9xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"
// CHECK:      %[[T:.*]] = "ov.Transpose"(%[[X]], %{{.*}}) : (tensor<1x6x6x3xf32>, tensor<4xi64>) -> tensor<1x3x6x6xf32>
// CHECK-NEXT: %[[S:.*]] = "ov.Multiply"(%[[T]], %{{.*}}) <{friendly_name = "scale"}>
// CHECK:      %[[B:.*]] = "ov.Constant"() <{value = dense<[0, 0, 1, 2]> : tensor<4xi64>}>
// CHECK-NEXT: %[[E:.*]] = "ov.Constant"() <{value = dense<[0, 0, 2, 1]> : tensor<4xi64>}>
// CHECK-NEXT: "ov.Pad"(%[[S]], %[[B]], %[[E]], %{{.*}}) <{pad_mode = "constant", friendly_name = "pad"}> : (tensor<1x3x6x6xf32>, tensor<4xi64>, tensor<4xi64>, tensor<f32>) -> tensor<1x3x9x9xf32>
// CHECK-NOT:  "ov.Transpose"

// FUSED-NOT:  "ov.Pad"
// FUSED:      "ov.Convolution"({{.*}}pads_begin = array<i64: 1, 2>, pads_end = array<i64: 2, 1>
