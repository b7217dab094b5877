// Upsampling: Interpolate nearest by sizes and linear_onnx by scales, a stride-2 ConvolutionBackpropData.
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x2x4x4xf32>
  %sizes = "ov.Constant"() <{value = dense<[8, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %axes = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %near = "ov.Interpolate"(%x, %sizes, %axes) <{mode = "nearest", shape_calculation_mode = "sizes", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor"}> : (tensor<1x2x4x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2x8x6xf32>
  %scales = "ov.Constant"() <{value = dense<[2.0, 1.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %lin = "ov.Interpolate"(%x, %scales, %axes) <{mode = "linear_onnx", shape_calculation_mode = "scales", coordinate_transformation_mode = "half_pixel"}> : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xi64>) -> tensor<1x2x8x6xf32>
  %dw = "ov.Constant"() <{value = dense<[[[[-0.5, -0.25, 0.0], [0.25, 0.5, -0.5], [-0.25, 0.0, 0.25]], [[0.5, -0.5, -0.25], [0.0, 0.25, 0.5], [-0.5, -0.25, 0.0]], [[0.25, 0.5, -0.5], [-0.25, 0.0, 0.25], [0.5, -0.5, -0.25]]], [[[0.0, 0.25, 0.5], [-0.5, -0.25, 0.0], [0.25, 0.5, -0.5]], [[-0.25, 0.0, 0.25], [0.5, -0.5, -0.25], [0.0, 0.25, 0.5]], [[-0.5, -0.25, 0.0], [0.25, 0.5, -0.5], [-0.25, 0.0, 0.25]]]]> : tensor<2x3x3x3xf32>}> : () -> tensor<2x3x3x3xf32>
  %up = "ov.ConvolutionBackpropData"(%x, %dw) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, output_padding = array<i64: 1, 1>}> : (tensor<1x2x4x4xf32>, tensor<2x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  "ov.Result"(%near) : (tensor<1x2x8x6xf32>) -> ()
  "ov.Result"(%up) : (tensor<1x3x8x8xf32>) -> ()
  "ov.Result"(%lin) : (tensor<1x2x8x6xf32>) -> ()
}
