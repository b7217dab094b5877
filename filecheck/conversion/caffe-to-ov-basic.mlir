// RUN: xmo-opt %s -p convert-caffe-to-ov | filecheck %s
// Caffe layers legalized: a leaky ReLU (PRelu), Caffe's ceil-rounded pooling
// as floor rounding with the end pads that give Caffe's size (5 -> 3), an
// in-place Dropout (its blob name moves to the value it forwards), Flatten.
// The op giving a layer's top takes the layer name; the top's final value
// takes the blob name, except an input's: it stays the Parameter's alone.

builtin.module {
  %0 = "caffe.Input"() <{blob_name = "data"}> : () -> tensor<1x2x5x5xf32>
  %1 = "caffe.Layer"(%0) <{layer_name = "relu", layer_type = "ReLU", bottoms = ["data"], tops = ["data"], params = {relu_param = {negative_slope = 2.500000e-01 : f64}}}> : (tensor<1x2x5x5xf32>) -> tensor<*xf32>
  %2 = "caffe.Layer"(%1) <{layer_name = "pool", layer_type = "Pooling", bottoms = ["data"], tops = ["pool"], params = {pooling_param = {pool = "MAX", kernel_size = 2 : i64, stride = 2 : i64}}}> : (tensor<*xf32>) -> tensor<*xf32>
  %3 = "caffe.Layer"(%2) <{layer_name = "drop", layer_type = "Dropout", bottoms = ["pool"], tops = ["pool"], params = {}}> : (tensor<*xf32>) -> tensor<*xf32>
  %4 = "caffe.Layer"(%3) <{layer_name = "flat", layer_type = "Flatten", bottoms = ["pool"], tops = ["flat"], params = {}}> : (tensor<*xf32>) -> tensor<*xf32>
  "caffe.Output"(%4) <{blob_name = "flat"}> : (tensor<*xf32>) -> ()
}

// CHECK:      %[[P:.*]] = "ov.Parameter"() <{friendly_name = "data", tensor_names = {{\[\["data"\]\]}}}> : () -> tensor<1x2x5x5xf32>
// CHECK:      %[[R:.*]] = "ov.PRelu"(%[[P]], %{{.*}}) <{friendly_name = "relu"}>
// CHECK:      %[[M:.*]], %{{.*}} = "ov.MaxPool"(%[[R]]) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 1, 1>, rounding_type = "floor"{{.*}}friendly_name = "pool", tensor_names = {{\[\["pool"\], \[\]\]}}}> : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
// CHECK:      %[[F:.*]] = "ov.Reshape"(%[[M]], %{{.*}}) <{special_zero = true, friendly_name = "flat", tensor_names = {{\[\["flat"\]\]}}}> : (tensor<1x2x3x3xf32>, tensor<2xi64>) -> tensor<1x18xf32>
// CHECK:      "ov.Result"(%[[F]])
