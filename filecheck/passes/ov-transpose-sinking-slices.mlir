// RUN: xmo-opt %s -p ov-transpose-sinking | filecheck %s
// Ops that select along axes (slices.py): Slice over NCHW axis 2 (H), a
// StridedSlice of W with begin/end masks and Gather of channels become ops
// on NHWC axes 1, 2 and 3 (bounds and masks permuted); the Transposes cancel.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x6x6x4xf32>
  %p1 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %p2 = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %t = "ov.Transpose"(%x, %p1) <{friendly_name = "t"}> : (tensor<1x6x6x4xf32>, tensor<4xi64>) -> tensor<1x4x6x6xf32>
  %b = "ov.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %e = "ov.Constant"() <{value = dense<[5]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %st = "ov.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ax = "ov.Constant"() <{value = dense<[2]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %s = "ov.Slice"(%t, %b, %e, %st, %ax) <{friendly_name = "slice"}> : (tensor<1x4x6x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4x4x6xf32>
  %sb = "ov.Constant"() <{value = dense<[0, 0, 0, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %se = "ov.Constant"() <{value = dense<[0, 0, 0, 6]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %ss = "ov.Constant"() <{value = dense<[1, 1, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %ss2 = "ov.StridedSlice"(%s, %sb, %se, %ss) <{begin_mask = array<i64: 1, 1, 1, 0>, end_mask = array<i64: 1, 1, 1, 0>, new_axis_mask = array<i64>, shrink_axis_mask = array<i64>, ellipsis_mask = array<i64>, friendly_name = "strided"}> : (tensor<1x4x4x6xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) -> tensor<1x4x4x2xf32>
  %gi = "ov.Constant"() <{value = dense<[0, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ga = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %g = "ov.Gather"(%ss2, %gi, %ga) <{batch_dims = 0 : i64, friendly_name = "gather"}> : (tensor<1x4x4x2xf32>, tensor<2xi64>, tensor<i64>) -> tensor<1x2x4x2xf32>
  %t2 = "ov.Transpose"(%g, %p2) <{friendly_name = "t2", tensor_names = [["y"]]}> : (tensor<1x2x4x2xf32>, tensor<4xi64>) -> tensor<1x4x2x2xf32>
  "ov.Result"(%t2) <{friendly_name = "y"}> : (tensor<1x4x2x2xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"()
// CHECK:      %[[END:.*]] = "ov.Constant"() <{value = dense<5> : tensor<1xi64>}>
// CHECK-NEXT: %[[STEP:.*]] = "ov.Constant"() <{value = dense<1> : tensor<1xi64>}>
// CHECK-NEXT: %[[AX:.*]] = "ov.Constant"() <{value = dense<1> : tensor<1xi64>}>
// CHECK-NEXT: %[[S:.*]] = "ov.Slice"(%[[X]], %{{.*}}, %[[END]], %[[STEP]], %[[AX]]) <{friendly_name = "slice"}> : ({{.*}}) -> tensor<1x4x6x4xf32>
// CHECK-NEXT: %[[B:.*]] = "ov.Constant"() <{value = dense<[0, 0, 2, 0]> : tensor<4xi64>}>
// CHECK-NEXT: %[[E:.*]] = "ov.Constant"() <{value = dense<[0, 0, 6, 0]> : tensor<4xi64>}>
// CHECK-NEXT: %[[ST:.*]] = "ov.Constant"() <{value = dense<[1, 1, 2, 1]> : tensor<4xi64>}>
// CHECK-NEXT: %[[SS:.*]] = "ov.StridedSlice"(%[[S]], %[[B]], %[[E]], %[[ST]]) <{begin_mask = array<i64: 1, 1, 0, 1>, end_mask = array<i64: 1, 1, 0, 1>, {{.*}}friendly_name = "strided"}> : ({{.*}}) -> tensor<1x4x2x4xf32>
// CHECK-NEXT: %[[GI:.*]] = "ov.Constant"() <{value = dense<[0, 2]> : tensor<2xi64>}>
// CHECK-NEXT: %[[GA:.*]] = "ov.Constant"() <{value = dense<3> : tensor<i64>}>
// CHECK-NEXT: %[[G:.*]] = "ov.Gather"(%[[SS]], %[[GI]], %[[GA]]) <{batch_dims = 0 : i64, friendly_name = "gather", tensor_names = {{\[\[}}"y"]]}> : ({{.*}}) -> tensor<1x4x2x2xf32>
// CHECK-NEXT: "ov.Result"(%[[G]]) <{friendly_name = "y"}>
// CHECK-NOT:  ov.Transpose
