// RUN: xmo-opt %s -p ov-transpose-sinking | filecheck %s
// Concat and Split (concat_split.py): a Transpose on every Concat input sinks
// below the Concat (its axis 1 becomes 3), then below the Split (its axis
// constant becomes 3) and cancels against the Transposes after each output,
// whose tensor names the Split outputs take.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x4x4x3xf32>
  %y = "ov.Parameter"() <{friendly_name = "y", tensor_names = [["y"]]}> : () -> tensor<1x4x4x5xf32>
  %p1 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %p2 = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %tx = "ov.Transpose"(%x, %p1) <{friendly_name = "tx"}> : (tensor<1x4x4x3xf32>, tensor<4xi64>) -> tensor<1x3x4x4xf32>
  %ty = "ov.Transpose"(%y, %p1) <{friendly_name = "ty"}> : (tensor<1x4x4x5xf32>, tensor<4xi64>) -> tensor<1x5x4x4xf32>
  %c = "ov.Concat"(%tx, %ty) <{axis = 1 : i64, friendly_name = "concat"}> : (tensor<1x3x4x4xf32>, tensor<1x5x4x4xf32>) -> tensor<1x8x4x4xf32>
  %axis = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %s:2 = "ov.Split"(%c, %axis) <{num_splits = 2 : i64, friendly_name = "split"}> : (tensor<1x8x4x4xf32>, tensor<i64>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>)
  %o0 = "ov.Transpose"(%s#0, %p2) <{friendly_name = "o0", tensor_names = [["a"]]}> : (tensor<1x4x4x4xf32>, tensor<4xi64>) -> tensor<1x4x4x4xf32>
  %o1 = "ov.Transpose"(%s#1, %p2) <{friendly_name = "o1", tensor_names = [["b"]]}> : (tensor<1x4x4x4xf32>, tensor<4xi64>) -> tensor<1x4x4x4xf32>
  "ov.Result"(%o0) <{friendly_name = "a"}> : (tensor<1x4x4x4xf32>) -> ()
  "ov.Result"(%o1) <{friendly_name = "b"}> : (tensor<1x4x4x4xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"
// CHECK-NEXT: %[[Y:.*]] = "ov.Parameter"() <{friendly_name = "y"
// CHECK-NEXT: %[[C:.*]] = "ov.Concat"(%[[X]], %[[Y]]) <{axis = 3 : i64, friendly_name = "concat"}> : (tensor<1x4x4x3xf32>, tensor<1x4x4x5xf32>) -> tensor<1x4x4x8xf32>
// CHECK-NEXT: %[[A:.*]] = "ov.Constant"() <{value = dense<3> : tensor<i64>}>
// CHECK-NEXT: %[[S:.*]], %[[S1:.*]] = "ov.Split"(%[[C]], %[[A]]) <{num_splits = 2 : i64, friendly_name = "split", tensor_names = {{\[\[}}"a"], ["b"]]}> : (tensor<1x4x4x8xf32>, tensor<i64>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>)
// CHECK-NEXT: "ov.Result"(%[[S]]) <{friendly_name = "a"}>
// CHECK-NEXT: "ov.Result"(%[[S1]]) <{friendly_name = "b"}>
// CHECK-NOT:  ov.Transpose
