// RUN: xmo-opt %S/Inputs/caffe_small.prototxt | filecheck %s
// RUN: xmo-opt %S/Inputs/caffe_small.prototxt | xmo-opt | filecheck %s
// A deploy prototxt (no .caffemodel beside it) loaded into the caffe dialect:
// the Input layer's top is a ranked caffe.Input, each layer one generic
// caffe.Layer carrying its type, blob names and the *_param fields the file
// sets; in-place layers (top == bottom) get a value of their own; the blob
// nobody consumes is the output. The printed module parses back.

// CHECK:      builtin.module {
// CHECK-NEXT:   %0 = "caffe.Input"() <{blob_name = "data"}> : () -> tensor<1x2x5x5xf32>
// CHECK-NEXT:   %1 = "caffe.Layer"(%0) <{layer_name = "relu", layer_type = "ReLU", bottoms = ["data"], tops = ["data"], params = {relu_param = {negative_slope = 2.500000e-01 : f64}}}> : (tensor<1x2x5x5xf32>) -> tensor<*xf32>
// CHECK-NEXT:   %2 = "caffe.Layer"(%1) <{layer_name = "pool", layer_type = "Pooling", bottoms = ["data"], tops = ["pool"], params = {pooling_param = {pool = "MAX", kernel_size = 2 : i64, stride = 2 : i64}}}> : (tensor<*xf32>) -> tensor<*xf32>
// CHECK-NEXT:   %3 = "caffe.Layer"(%2) <{layer_name = "drop", layer_type = "Dropout", bottoms = ["pool"], tops = ["pool"], params = {}}> : (tensor<*xf32>) -> tensor<*xf32>
// CHECK-NEXT:   %4 = "caffe.Layer"(%3) <{layer_name = "flat", layer_type = "Flatten", bottoms = ["pool"], tops = ["flat"], params = {}}> : (tensor<*xf32>) -> tensor<*xf32>
// CHECK-NEXT:   "caffe.Output"(%4) <{blob_name = "flat"}> : (tensor<*xf32>) -> ()
// CHECK-NEXT: }
