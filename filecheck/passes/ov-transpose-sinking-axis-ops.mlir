// RUN: xmo-opt %s -p ov-transpose-sinking | filecheck %s
// Ops along an axis (axis_ops.py): Softmax over the NCHW channel axis 1 and
// CumSum over axis -1 (W) become Softmax over NHWC axis 3 and CumSum over
// axis 2; the Transposes cancel.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x4x4x3xf32>
  %p1 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %p2 = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %t = "ov.Transpose"(%x, %p1) <{friendly_name = "t"}> : (tensor<1x4x4x3xf32>, tensor<4xi64>) -> tensor<1x3x4x4xf32>
  %s = "ov.Softmax"(%t) <{axis = 1 : i64, friendly_name = "softmax"}> : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %a = "ov.Constant"() <{value = dense<-1> : tensor<i64>}> : () -> tensor<i64>
  %c = "ov.CumSum"(%s, %a) <{exclusive = false, reverse = false, friendly_name = "cumsum"}> : (tensor<1x3x4x4xf32>, tensor<i64>) -> tensor<1x3x4x4xf32>
  %t2 = "ov.Transpose"(%c, %p2) <{friendly_name = "t2", tensor_names = [["y"]]}> : (tensor<1x3x4x4xf32>, tensor<4xi64>) -> tensor<1x4x4x3xf32>
  "ov.Result"(%t2) <{friendly_name = "y"}> : (tensor<1x4x4x3xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"()
// CHECK-NEXT: %[[S:.*]] = "ov.Softmax"(%[[X]]) <{axis = 3 : i64, friendly_name = "softmax"}> : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK-NEXT: %[[A:.*]] = "ov.Constant"() <{value = dense<2> : tensor<i64>}>
// CHECK-NEXT: %[[C:.*]] = "ov.CumSum"(%[[S]], %[[A]]) <{exclusive = false, reverse = false, friendly_name = "cumsum", tensor_names = {{\[\[}}"y"]]}>
// CHECK-NEXT: "ov.Result"(%[[C]]) <{friendly_name = "y"}>
// CHECK-NOT:  ov.Transpose
