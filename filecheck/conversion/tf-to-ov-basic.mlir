// RUN: xmo-opt %s -p convert-tf-to-ov | filecheck %s
// Graph I/O, names and the NHWC layout through the TF -> ov legalization: the
// Placeholder becomes a Parameter, Consts keep their payload, the NHWC Conv2D
// runs as an NCHW Convolution between two layout transposes (its HWIO filter
// transposed to OIHW), BiasAdd broadcasts on the last axis, the NoOp and the
// control edge vanish, and Identity adds its names to the value it forwards.

builtin.module {
  %x = "tf.Placeholder"() <{node_name = "x", dtype = f32, shape = #tf.shape<[?, 4, 4, 3]>}> : () -> tensor<?x4x4x3xf32>
  %w = "tf.Const"() <{node_name = "w", dtype = f32, value = dense<5.000000e-01> : tensor<1x1x3x2xf32>}> : () -> tensor<1x1x3x2xf32>
  %b = "tf.Const"() <{node_name = "b", dtype = f32, value = dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %conv = "tf.Conv2D"(%x, %w) <{node_name = "conv", T = f32, strides = array<i64: 1, 1, 1, 1>, padding = "SAME", data_format = "NHWC"}> : (tensor<?x4x4x3xf32>, tensor<1x1x3x2xf32>) -> tensor<*xf32>
  %ba = "tf.BiasAdd"(%conv, %b) <{node_name = "bias", T = f32, data_format = "NHWC"}> : (tensor<*xf32>, tensor<2xf32>) -> tensor<*xf32>
  "tf.NoOp"() <{node_name = "init"}> : () -> ()
  %r = "tf.Relu"(%ba) <{node_name = "relu", control_inputs = ["init"], T = f32}> : (tensor<*xf32>) -> tensor<*xf32>
  %id = "tf.Identity"(%r) <{node_name = "out", T = f32}> : (tensor<*xf32>) -> tensor<*xf32>
  "tf.Output"(%id) <{tensor_name = "out"}> : (tensor<*xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x", tensor_names = {{\[\["x", "x:0"\]\]}}}> : () -> tensor<?x4x4x3xf32>
// CHECK-NEXT: %[[W:.*]] = "ov.Constant"() <{value = dense<5.000000e-01> : tensor<1x1x3x2xf32>, friendly_name = "w", tensor_names = {{\[\["w", "w:0"\]\]}}}>
// CHECK-NEXT: %[[B:.*]] = "ov.Constant"() <{value = dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>, friendly_name = "b", tensor_names = {{\[\["b", "b:0"\]\]}}}>
// CHECK-NEXT: %[[P1:.*]] = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>
// CHECK-NEXT: %[[XT:.*]] = "ov.Transpose"(%[[X]], %[[P1]]) {{.*}} -> tensor<?x3x4x4xf32>
// CHECK-NEXT: %[[P2:.*]] = "ov.Constant"() <{value = dense<[3, 2, 0, 1]> : tensor<4xi64>
// CHECK-NEXT: %[[WT:.*]] = "ov.Transpose"(%[[W]], %[[P2]]) {{.*}} -> tensor<2x3x1x1xf32>
// CHECK-NEXT: %[[C:.*]] = "ov.Convolution"(%[[XT]], %[[WT]]) <{auto_pad = "same_upper", {{.*}}strides = array<i64: 1, 1>{{.*}}}> : (tensor<?x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<?x2x4x4xf32>
// CHECK-NEXT: %[[P3:.*]] = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>
// CHECK-NEXT: %[[Y:.*]] = "ov.Transpose"(%[[C]], %[[P3]]) <{friendly_name = "conv", tensor_names = {{\[\["conv", "conv:0"\]\]}}}> : (tensor<?x2x4x4xf32>, tensor<4xi64>) -> tensor<?x4x4x2xf32>
// CHECK-NEXT: %[[A:.*]] = "ov.Add"(%[[Y]], %[[B]]) <{friendly_name = "bias", tensor_names = {{\[\["bias", "bias:0"\]\]}}}>
// CHECK-NEXT: %[[R:.*]] = "ov.Relu"(%[[A]]) <{friendly_name = "relu", tensor_names = {{\[\["relu", "relu:0", "out", "out:0"\]\]}}}>
// CHECK-NEXT: "ov.Result"(%[[R]]) : (tensor<?x4x4x2xf32>) -> ()
// CHECK-NOT: tf.
