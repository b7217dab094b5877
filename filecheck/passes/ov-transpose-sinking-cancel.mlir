// RUN: xmo-opt %s -p ov-transpose-sinking | filecheck %s
// T(Relu(T(x, [0,3,1,2])), [0,2,3,1]) cancels completely: the Result's tensor
// name moves to the Relu, which keeps its friendly name. A Transpose of a
// constant folds; two Transposes in a row merge into one.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x4x4x3xf32>
  %p1 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %p2 = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %t1 = "ov.Transpose"(%x, %p1) <{friendly_name = "t1"}> : (tensor<1x4x4x3xf32>, tensor<4xi64>) -> tensor<1x3x4x4xf32>
  %r = "ov.Relu"(%t1) <{friendly_name = "relu"}> : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %t2 = "ov.Transpose"(%r, %p2) <{friendly_name = "t2", tensor_names = [["y"]]}> : (tensor<1x3x4x4xf32>, tensor<4xi64>) -> tensor<1x4x4x3xf32>
  "ov.Result"(%t2) <{friendly_name = "y"}> : (tensor<1x4x4x3xf32>) -> ()
  %c = "ov.Constant"() <{value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %p3 = "ov.Constant"() <{value = dense<[1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ct = "ov.Transpose"(%c, %p3) <{friendly_name = "ct", tensor_names = [["ct"]]}> : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  "ov.Result"(%ct) <{friendly_name = "ct"}> : (tensor<3x2xf32>) -> ()
  %m1 = "ov.Transpose"(%x, %p2) <{friendly_name = "m1"}> : (tensor<1x4x4x3xf32>, tensor<4xi64>) -> tensor<1x4x3x4xf32>
  %m2 = "ov.Transpose"(%m1, %p2) <{friendly_name = "m2", tensor_names = [["m"]]}> : (tensor<1x4x3x4xf32>, tensor<4xi64>) -> tensor<1x3x4x4xf32>
  "ov.Result"(%m2) <{friendly_name = "m"}> : (tensor<1x3x4x4xf32>) -> ()
}

// CHECK:      %[[ORDER:.*]] = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}>
// CHECK-NEXT: %[[X:.*]] = "ov.Parameter"()
// CHECK-NEXT: %[[R:.*]] = "ov.Relu"(%[[X]]) <{friendly_name = "relu", tensor_names = {{\[\[}}"y"]]}> : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
// CHECK-NEXT: "ov.Result"(%[[R]]) <{friendly_name = "y"}>
// CHECK:      %[[CT:.*]] = "ov.Constant"() <{value = dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>, friendly_name = "ct", tensor_names = {{\[\[}}"ct"]]}>
// CHECK-NEXT: "ov.Result"(%[[CT]])
// CHECK-NEXT: %[[M:.*]] = "ov.Transpose"(%[[X]], %[[ORDER]]) <{friendly_name = "m2", tensor_names = {{\[\[}}"m"]]}>
// CHECK-NEXT: "ov.Result"(%[[M]])
// CHECK-NOT:  ov.Transpose
