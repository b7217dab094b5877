// RUN: not xmo-opt %s -p convert-caffe-to-ov 2>&1 | filecheck %s
// One report for every layer that cannot be converted: a layer type without
// a converter, and a Python layer no extension provides an extractor for
// (keyed by its module.layer); the layer depending on a failed one is not
// reported again.

builtin.module {
  %0 = "caffe.Input"() <{blob_name = "data"}> : () -> tensor<1x2x5x5xf32>
  %1 = "caffe.Layer"(%0) <{layer_name = "odd", layer_type = "Mystery", bottoms = ["data"], tops = ["odd"], params = {}}> : (tensor<1x2x5x5xf32>) -> tensor<*xf32>
  %2 = "caffe.Layer"(%0) <{layer_name = "py", layer_type = "Python", bottoms = ["data"], tops = ["py"], params = {python_param = {module = "rpn.layers", layer = "ProposalLayer"}}}> : (tensor<1x2x5x5xf32>) -> tensor<*xf32>
  %3 = "caffe.Layer"(%1) <{layer_name = "after", layer_type = "ReLU", bottoms = ["odd"], tops = ["after"], params = {}}> : (tensor<*xf32>) -> tensor<*xf32>
  "caffe.Output"(%3) <{blob_name = "after"}> : (tensor<*xf32>) -> ()
  "caffe.Output"(%2) <{blob_name = "py"}> : (tensor<*xf32>) -> ()
}

// CHECK:      xmo-opt: error: List of operations that cannot be converted:
// CHECK-NEXT:   Mystery (1): odd
// CHECK-NEXT:       reason: no converter for this layer type
// CHECK-NEXT:   Python:rpn.layers.ProposalLayer (1): py
// CHECK-NEXT:       reason: Python layer rpn.layers.ProposalLayer: no extension provides an extractor for it
// CHECK-NOT:    after
