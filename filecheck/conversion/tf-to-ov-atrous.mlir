// RUN: xmo-opt %s -p convert-tf-to-ov,ov-dce | filecheck %s
// TF's atrous convolution (passes/tf_to_ov/families/atrous.py), as Keras'
// dilated Conv1D freezes: SpaceToBatchND (block 2, pads [2, 2]) ->
// ExpandDims(-3) -> VALID Conv2D -> Squeeze(-3) -> BatchToSpaceND (crops
// [0, 0]) is one Convolution with dilations [1, 2] and pads [0, 2] / [0, 2];
// the BatchToSpaceND's names go to its result. Near miss: the same chain
// with a SAME Conv2D converts op by op (SpaceToBatchND as Pad / Reshape /
// Transpose / Reshape).

builtin.module {
  %x = "tf.Placeholder"() <{node_name = "x", dtype = f32, shape = #tf.shape<[2, 16, 3]>}> : () -> tensor<2x16x3xf32>
  %block = "tf.Const"() <{node_name = "block", dtype = i32, value = dense<2> : tensor<1xi32>}> : () -> tensor<1xi32>
  %pads = "tf.Const"() <{node_name = "pads", dtype = i32, value = dense<2> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %s2b = "tf.SpaceToBatchND"(%x, %block, %pads) <{node_name = "s2b", T = f32, Tblock_shape = i32, Tpaddings = i32}> : (tensor<2x16x3xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<*xf32>
  %dim = "tf.Const"() <{node_name = "dim", dtype = i32, value = dense<-3> : tensor<i32>}> : () -> tensor<i32>
  %expand = "tf.ExpandDims"(%s2b, %dim) <{node_name = "expand", T = f32, Tdim = i32}> : (tensor<*xf32>, tensor<i32>) -> tensor<*xf32>
  %w = "tf.Const"() <{node_name = "w", dtype = f32, value = dense<5.000000e-01> : tensor<1x3x3x5xf32>}> : () -> tensor<1x3x3x5xf32>
  %conv = "tf.Conv2D"(%expand, %w) <{node_name = "conv", T = f32, dilations = array<i64: 1, 1, 1, 1>, padding = "VALID", strides = array<i64: 1, 1, 1, 1>}> : (tensor<*xf32>, tensor<1x3x3x5xf32>) -> tensor<*xf32>
  %squeeze = "tf.Squeeze"(%conv) <{node_name = "squeeze", T = f32, squeeze_dims = array<i64: -3>}> : (tensor<*xf32>) -> tensor<*xf32>
  %block2 = "tf.Const"() <{node_name = "block2", dtype = i32, value = dense<2> : tensor<1xi32>}> : () -> tensor<1xi32>
  %crops = "tf.Const"() <{node_name = "crops", dtype = i32, value = dense<0> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
  %y = "tf.BatchToSpaceND"(%squeeze, %block2, %crops) <{node_name = "y", T = f32, Tblock_shape = i32, Tcrops = i32}> : (tensor<*xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<*xf32>
  "tf.Output"(%y) <{tensor_name = "y"}> : (tensor<*xf32>) -> ()
  %s2b_b = "tf.SpaceToBatchND"(%x, %block, %pads) <{node_name = "s2b_b", T = f32, Tblock_shape = i32, Tpaddings = i32}> : (tensor<2x16x3xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<*xf32>
  %expand_b = "tf.ExpandDims"(%s2b_b, %dim) <{node_name = "expand_b", T = f32, Tdim = i32}> : (tensor<*xf32>, tensor<i32>) -> tensor<*xf32>
  %conv_b = "tf.Conv2D"(%expand_b, %w) <{node_name = "conv_b", T = f32, dilations = array<i64: 1, 1, 1, 1>, padding = "SAME", strides = array<i64: 1, 1, 1, 1>}> : (tensor<*xf32>, tensor<1x3x3x5xf32>) -> tensor<*xf32>
  %squeeze_b = "tf.Squeeze"(%conv_b) <{node_name = "squeeze_b", T = f32, squeeze_dims = array<i64: -3>}> : (tensor<*xf32>) -> tensor<*xf32>
  %y_b = "tf.BatchToSpaceND"(%squeeze_b, %block2, %crops) <{node_name = "y_b", T = f32, Tblock_shape = i32, Tcrops = i32}> : (tensor<*xf32>, tensor<1xi32>, tensor<1x2xi32>) -> tensor<*xf32>
  "tf.Output"(%y_b) <{tensor_name = "y_b"}> : (tensor<*xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"
// CHECK:      %[[U:.*]] = "ov.Unsqueeze"(%[[X]], %{{.*}}) {{.*}} -> tensor<2x1x16x3xf32>
// CHECK:      %[[T:.*]] = "ov.Transpose"(%[[U]], %{{.*}}) {{.*}} -> tensor<2x3x1x16xf32>
// CHECK:      %[[C:.*]] = "ov.Convolution"(%[[T]], %{{.*}}) <{auto_pad = "explicit", pads_begin = array<i64: 0, 2>, pads_end = array<i64: 0, 2>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 2>{{.*}}}> : (tensor<2x3x1x16xf32>, tensor<5x3x1x3xf32>) -> tensor<2x5x1x16xf32>
// CHECK:      %[[Y:.*]] = "ov.Transpose"(%[[C]], %{{.*}}) {{.*}} -> tensor<2x1x16x5xf32>
// CHECK:      %[[S:.*]] = "ov.Squeeze"(%[[Y]], %{{.*}}) <{friendly_name = "y", tensor_names = {{\[\["y", "y:0"\]\]}}}> : (tensor<2x1x16x5xf32>, tensor<1xi64>) -> tensor<2x16x5xf32>
// CHECK-NEXT: "ov.Result"(%[[S]])
// CHECK:      "ov.Pad"(%[[X]],
// CHECK:      "ov.Convolution"({{.*}}) <{auto_pad = "same_upper", {{.*}}dilations = array<i64: 1, 1>
// CHECK-NOT:  "ov.Convolution"
// CHECK:      "ov.Reshape"({{.*}}) <{special_zero = false, friendly_name = "y_b", tensor_names = {{\[\["y_b", "y_b:0"\]\]}}}> : (tensor<2x10x2x5xf32>, tensor<3xi64>) -> tensor<2x20x5xf32>
