// RUN: xmo-opt %s -p ov-transpose-sinking | filecheck %s
// NHWC graph as a TensorFlow frontend emits it: the Transpose after the conv
// sinks through the bias Add (its [C] constant becomes [1,C,1,1]) and Relu
// down to the Result; the Transpose stands in for relu (its friendly and
// tensor names), the moved Relu is "relu/sunk". ShapeOf of the NHWC value
// becomes Gather(ShapeOf(nchw), [0,2,3,1]) so the batch stays dynamic.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<?x8x8x3xf32>
  %p1 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %t1 = "ov.Transpose"(%x, %p1) <{friendly_name = "to_nchw"}> : (tensor<?x8x8x3xf32>, tensor<4xi64>) -> tensor<?x3x8x8xf32>
  %w = "ov.Constant"() <{value = dense<0.5> : tensor<4x3x1x1xf32>}> : () -> tensor<4x3x1x1xf32>
  %c = "ov.Convolution"(%t1, %w) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, friendly_name = "conv"}> : (tensor<?x3x8x8xf32>, tensor<4x3x1x1xf32>) -> tensor<?x4x8x8xf32>
  %p2 = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %t2 = "ov.Transpose"(%c, %p2) <{friendly_name = "to_nhwc"}> : (tensor<?x4x8x8xf32>, tensor<4xi64>) -> tensor<?x8x8x4xf32>
  %b = "ov.Constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %a = "ov.Add"(%t2, %b) <{friendly_name = "bias"}> : (tensor<?x8x8x4xf32>, tensor<4xf32>) -> tensor<?x8x8x4xf32>
  %r = "ov.Relu"(%a) <{friendly_name = "relu", tensor_names = [["features"]]}> : (tensor<?x8x8x4xf32>) -> tensor<?x8x8x4xf32>
  "ov.Result"(%r) <{friendly_name = "features"}> : (tensor<?x8x8x4xf32>) -> ()
  %s = "ov.ShapeOf"(%t2) <{output_type = "i64", friendly_name = "shape", tensor_names = [["shape"]]}> : (tensor<?x8x8x4xf32>) -> tensor<4xi64>
  "ov.Result"(%s) <{friendly_name = "shape_out"}> : (tensor<4xi64>) -> ()
}

// CHECK:      %[[ORDER:.*]] = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}>
// CHECK:      %[[X:.*]] = "ov.Parameter"()
// CHECK:      %[[T1:.*]] = "ov.Transpose"(%[[X]], %{{.*}}) <{friendly_name = "to_nchw"}>
// CHECK:      %[[C:.*]] = "ov.Convolution"(%[[T1]], %{{.*}})
// CHECK-NEXT: %[[B:.*]] = "ov.Constant"() <{value = dense<{{.*}}> : tensor<1x4x1x1xf32>}>
// CHECK-NEXT: %[[A:.*]] = "ov.Add"(%[[C]], %[[B]]) <{friendly_name = "bias"}> : (tensor<?x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<?x4x8x8xf32>
// CHECK-NEXT: %[[R:.*]] = "ov.Relu"(%[[A]]) <{friendly_name = "relu/sunk"}> : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
// CHECK-NEXT: %[[OUT:.*]] = "ov.Transpose"(%[[R]], %[[ORDER]]) <{friendly_name = "relu", tensor_names = {{\[\[}}"features"]]}> : (tensor<?x4x8x8xf32>, tensor<4xi64>) -> tensor<?x8x8x4xf32>
// CHECK-NEXT: "ov.Result"(%[[OUT]]) <{friendly_name = "features"}>
// CHECK-NEXT: %[[S:.*]] = "ov.ShapeOf"(%[[C]]) <{output_type = "i64", friendly_name = "shape/sunk"}>
// CHECK-NEXT: %[[G:.*]] = "ov.Gather"(%[[S]], %[[ORDER]], %{{.*}}) <{friendly_name = "shape", tensor_names = {{\[\[}}"shape"]]}>
// CHECK-NEXT: "ov.Result"(%[[G]])
// CHECK-NOT:  ov.Transpose
