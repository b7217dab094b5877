// RUN: xmo-opt %s -p ov-fuse-linear | filecheck %s
// Convolution -> Add(bias) -> Multiply(per-channel) -> Add(shift): the scale
// enters the weights and the two Adds merge; the last Add keeps its names.
// Near miss: a Multiply whose constant varies along a spatial axis stays.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x1x2x2xf32>
  %w = "ov.Constant"() <{value = dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %conv = "ov.Convolution"(%x, %w) <{friendly_name = "conv", strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, auto_pad = "explicit"}> : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %b = "ov.Constant"() <{value = dense<[[[[1.0]], [[1.0]]]]> : tensor<1x2x1x1xf32>}> : () -> tensor<1x2x1x1xf32>
  %add = "ov.Add"(%conv, %b) <{friendly_name = "bias", auto_broadcast = "numpy"}> : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %s = "ov.Constant"() <{value = dense<[[[[3.0]], [[0.5]]]]> : tensor<1x2x1x1xf32>}> : () -> tensor<1x2x1x1xf32>
  %mul = "ov.Multiply"(%add, %s) <{friendly_name = "bn/mul", auto_broadcast = "numpy"}> : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %t = "ov.Constant"() <{value = dense<[[[[10.0]], [[20.0]]]]> : tensor<1x2x1x1xf32>}> : () -> tensor<1x2x1x1xf32>
  %y = "ov.Add"(%mul, %t) <{friendly_name = "bn/add", auto_broadcast = "numpy", tensor_names = [["y"]]}> : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  "ov.Result"(%y) <{friendly_name = "y"}> : (tensor<1x2x2x2xf32>) -> ()
  %sp = "ov.Constant"() <{value = dense<[[[[1.0], [2.0]]]]> : tensor<1x1x2x1xf32>}> : () -> tensor<1x1x2x1xf32>
  %conv2 = "ov.Convolution"(%x, %w) <{friendly_name = "conv2", strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, auto_pad = "explicit"}> : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %near = "ov.Multiply"(%conv2, %sp) <{friendly_name = "near", auto_broadcast = "numpy"}> : (tensor<1x2x2x2xf32>, tensor<1x1x2x1xf32>) -> tensor<1x2x2x2xf32>
  "ov.Result"(%near) <{friendly_name = "near"}> : (tensor<1x2x2x2xf32>) -> ()
}

// CHECK:      %[[W:.*]] = "ov.Constant"() <{value = dense<{{\[\[\[\[}}3.000000e+00]]], {{\[\[\[}}1.000000e+00]]]]> : tensor<2x1x1x1xf32>, friendly_name = "conv/fused_weights"}>
// CHECK-NEXT: %[[C:.*]] = "ov.Convolution"(%x, %[[W]]) <{{.*}}friendly_name = "conv"}>
// CHECK-NEXT: %[[B:.*]] = "ov.Constant"() <{value = dense<{{\[\[\[\[}}1.300000e+01]], {{\[\[}}2.050000e+01]]]]>
// CHECK-NEXT: %y = "ov.Add"(%[[C]], %[[B]]) <{auto_broadcast = "numpy", friendly_name = "bn/add", tensor_names = {{\[\[}}"y"]]}>
// CHECK-NOT:  "ov.Multiply"(%[[C]]
// CHECK:      %near = "ov.Multiply"(%conv2, %sp)
