// Conv block: Convolution + bias, BatchNorm, Relu, GroupConvolution, PRelu, AvgPool, MaxPool (both outputs), Clamp.
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x2x8x8xf32>
  %w = "ov.Constant"() <{value = dense<[[[[-0.75, -0.5, -0.25], [0.0, 0.25, 0.5], [0.75, -0.75, -0.5]], [[-0.25, 0.0, 0.25], [0.5, 0.75, -0.75], [-0.5, -0.25, 0.0]]], [[[0.25, 0.5, 0.75], [-0.75, -0.5, -0.25], [0.0, 0.25, 0.5]], [[0.75, -0.75, -0.5], [-0.25, 0.0, 0.25], [0.5, 0.75, -0.75]]], [[[-0.5, -0.25, 0.0], [0.25, 0.5, 0.75], [-0.75, -0.5, -0.25]], [[0.0, 0.25, 0.5], [0.75, -0.75, -0.5], [-0.25, 0.0, 0.25]]], [[[0.5, 0.75, -0.75], [-0.5, -0.25, 0.0], [0.25, 0.5, 0.75]], [[-0.75, -0.5, -0.25], [0.0, 0.25, 0.5], [0.75, -0.75, -0.5]]]]> : tensor<4x2x3x3xf32>}> : () -> tensor<4x2x3x3xf32>
  %conv = "ov.Convolution"(%x, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>}> : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x8x8xf32>
  %bias = "ov.Constant"() <{value = dense<[[[[-1.0]], [[-0.5]], [[0.0]], [[0.5]]]]> : tensor<1x4x1x1xf32>}> : () -> tensor<1x4x1x1xf32>
  %biased = "ov.Add"(%conv, %bias) : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %gamma = "ov.Constant"() <{value = dense<[1.0, 0.5, 2.0, 1.5]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %beta = "ov.Constant"() <{value = dense<[0.0, 0.25, -0.5, 1.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %mean = "ov.Constant"() <{value = dense<[0.5, -0.5, 0.25, 0.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %var = "ov.Constant"() <{value = dense<[1.0, 2.0, 0.5, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %bn = "ov.BatchNormInference"(%biased, %gamma, %beta, %mean, %var) <{epsilon = 1.0e-05 : f64}> : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %relu = "ov.Relu"(%bn) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %gw = "ov.Constant"() <{value = dense<[[[[[-0.5, -0.25, 0.0], [0.25, 0.5, -0.5], [-0.25, 0.0, 0.25]], [[0.5, -0.5, -0.25], [0.0, 0.25, 0.5], [-0.5, -0.25, 0.0]]], [[[0.25, 0.5, -0.5], [-0.25, 0.0, 0.25], [0.5, -0.5, -0.25]], [[0.0, 0.25, 0.5], [-0.5, -0.25, 0.0], [0.25, 0.5, -0.5]]]], [[[[-0.25, 0.0, 0.25], [0.5, -0.5, -0.25], [0.0, 0.25, 0.5]], [[-0.5, -0.25, 0.0], [0.25, 0.5, -0.5], [-0.25, 0.0, 0.25]]], [[[0.5, -0.5, -0.25], [0.0, 0.25, 0.5], [-0.5, -0.25, 0.0]], [[0.25, 0.5, -0.5], [-0.25, 0.0, 0.25], [0.5, -0.5, -0.25]]]]]> : tensor<2x2x2x3x3xf32>}> : () -> tensor<2x2x2x3x3xf32>
  %gconv = "ov.GroupConvolution"(%relu, %gw) <{strides = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, dilations = array<i64: 1, 1>}> : (tensor<1x4x8x8xf32>, tensor<2x2x2x3x3xf32>) -> tensor<1x4x8x8xf32>
  %slope = "ov.Constant"() <{value = dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %prelu = "ov.PRelu"(%gconv, %slope) : (tensor<1x4x8x8xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %avg = "ov.AvgPool"(%prelu) <{kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, "exclude-pad" = true, dilations = array<i64: 1, 1>}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %pool, %pool_idx = "ov.MaxPool"(%avg) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>, index_element_type = "i64"}> : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi64>)
  %clamp = "ov.Clamp"(%pool) <{min = -2.0 : f64, max = 2.0 : f64}> : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  "ov.Result"(%clamp) : (tensor<1x4x4x4xf32>) -> ()
  "ov.Result"(%pool_idx) : (tensor<1x4x4x4xi64>) -> ()
}
