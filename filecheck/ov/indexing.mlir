// RUN: xmo-opt %s | xmo-opt | filecheck %s
// Gather, GatherND, ScatterUpdate, StridedSlice, Slice round-trip.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<4x5x6xf32>
  %xd = "ov.Parameter"() : () -> tensor<?x5x6xf32>
  %xu = "ov.Parameter"() : () -> tensor<*xf32>
  %idx = "ov.Parameter"() : () -> tensor<2x3xi32>
  %bidx = "ov.Parameter"() : () -> tensor<4x2xi64>
  %nd = "ov.Parameter"() : () -> tensor<3x2xi64>
  %bnd = "ov.Parameter"() : () -> tensor<4x2x1xi64>
  %upd = "ov.Parameter"() : () -> tensor<4x2x3x6xf32>
  %ax1 = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %axm = "ov.Constant"() <{value = dense<-1> : tensor<i32>}> : () -> tensor<i32>
  %b = "ov.Constant"() <{value = dense<[1, 0, 0]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %e = "ov.Constant"() <{value = dense<[3, 5, -1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %s = "ov.Constant"() <{value = dense<[1, 2, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %st = "ov.Constant"() <{value = dense<[1, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %sp = "ov.Constant"() <{value = dense<[4, -6]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ss = "ov.Constant"() <{value = dense<[2, -2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %sa = "ov.Constant"() <{value = dense<[0, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %dyn = "ov.Parameter"() : () -> tensor<3xi64>
  %0 = "ov.Gather"(%x, %idx, %ax1) : (tensor<4x5x6xf32>, tensor<2x3xi32>, tensor<i64>) -> tensor<4x2x3x6xf32>
  %1 = "ov.Gather"(%x, %bidx, %axm) <{batch_dims = 1 : i64}> : (tensor<4x5x6xf32>, tensor<4x2xi64>, tensor<i32>) -> tensor<4x5x2xf32>
  %2 = "ov.Gather"(%xd, %idx, %ax1) : (tensor<?x5x6xf32>, tensor<2x3xi32>, tensor<i64>) -> tensor<?x2x3x6xf32>
  %3 = "ov.Gather"(%xu, %idx, %ax1) : (tensor<*xf32>, tensor<2x3xi32>, tensor<i64>) -> tensor<*xf32>
  %4 = "ov.GatherND"(%x, %nd) : (tensor<4x5x6xf32>, tensor<3x2xi64>) -> tensor<3x6xf32>
  %5 = "ov.GatherND"(%x, %bnd) <{batch_dims = 1 : i64}> : (tensor<4x5x6xf32>, tensor<4x2x1xi64>) -> tensor<4x2x6xf32>
  %6 = "ov.GatherND"(%xd, %nd) : (tensor<?x5x6xf32>, tensor<3x2xi64>) -> tensor<3x6xf32>
  %7 = "ov.ScatterUpdate"(%x, %idx, %upd, %ax1) : (tensor<4x5x6xf32>, tensor<2x3xi32>, tensor<4x2x3x6xf32>, tensor<i64>) -> tensor<4x5x6xf32>
  %8 = "ov.ScatterUpdate"(%xu, %idx, %upd, %ax1) : (tensor<*xf32>, tensor<2x3xi32>, tensor<4x2x3x6xf32>, tensor<i64>) -> tensor<*xf32>
  %9 = "ov.StridedSlice"(%x, %b, %e, %s) <{begin_mask = array<i64: 0, 0, 0>, end_mask = array<i64: 0, 0, 0>}> : (tensor<4x5x6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<2x3x5xf32>
  %10 = "ov.StridedSlice"(%x, %b, %e, %s) <{begin_mask = array<i64: 1, 0, 1>, end_mask = array<i64: 0, 1, 1>, new_axis_mask = array<i64: 0>, shrink_axis_mask = array<i64: 0, 0, 0>, ellipsis_mask = array<i64: 0>}> : (tensor<4x5x6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<3x3x6xf32>
  %11 = "ov.StridedSlice"(%x, %b, %e, %s) <{begin_mask = array<i64: 0, 0, 0>, end_mask = array<i64: 0, 0, 0>, shrink_axis_mask = array<i64: 1, 0, 0>}> : (tensor<4x5x6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<3x5xf32>
  %12 = "ov.StridedSlice"(%x, %b, %e, %s) <{begin_mask = array<i64: 0, 0, 0>, end_mask = array<i64: 0, 0, 0>, new_axis_mask = array<i64: 0, 1, 0>}> : (tensor<4x5x6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<2x1x4x6xf32>
  %13 = "ov.StridedSlice"(%xd, %dyn, %e, %s) <{begin_mask = array<i64: 0, 0, 0>, end_mask = array<i64: 0, 0, 0>}> : (tensor<?x5x6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %14 = "ov.Slice"(%x, %st, %sp, %ss, %sa) : (tensor<4x5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x5x3xf32>
  %15 = "ov.Slice"(%x, %st, %sp, %ss) : (tensor<4x5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3x6xf32>
  %16 = "ov.Slice"(%xd, %st, %sp, %ss, %sa) : (tensor<?x5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x5x3xf32>
  %17 = "ov.Slice"(%xu, %st, %sp, %ss) : (tensor<*xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
  "ov.Result"(%0) : (tensor<4x2x3x6xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0 = "ov.Gather"(%x, %idx, %ax1) : (tensor<4x5x6xf32>, tensor<2x3xi32>, tensor<i64>) -> tensor<4x2x3x6xf32>
// CHECK: %1 = "ov.Gather"(%x, %bidx, %axm) <{batch_dims = 1 : i64}> : (tensor<4x5x6xf32>, tensor<4x2xi64>, tensor<i32>) -> tensor<4x5x2xf32>
// CHECK: %2 = "ov.Gather"(%xd, %idx, %ax1) : (tensor<?x5x6xf32>, tensor<2x3xi32>, tensor<i64>) -> tensor<?x2x3x6xf32>
// CHECK: %3 = "ov.Gather"(%xu, %idx, %ax1) : (tensor<*xf32>, tensor<2x3xi32>, tensor<i64>) -> tensor<*xf32>
// CHECK: %4 = "ov.GatherND"(%x, %nd) : (tensor<4x5x6xf32>, tensor<3x2xi64>) -> tensor<3x6xf32>
// CHECK: %5 = "ov.GatherND"(%x, %bnd) <{batch_dims = 1 : i64}> : (tensor<4x5x6xf32>, tensor<4x2x1xi64>) -> tensor<4x2x6xf32>
// CHECK: %6 = "ov.GatherND"(%xd, %nd) : (tensor<?x5x6xf32>, tensor<3x2xi64>) -> tensor<3x6xf32>
// CHECK: %7 = "ov.ScatterUpdate"(%x, %idx, %upd, %ax1) : (tensor<4x5x6xf32>, tensor<2x3xi32>, tensor<4x2x3x6xf32>, tensor<i64>) -> tensor<4x5x6xf32>
// CHECK: %8 = "ov.ScatterUpdate"(%xu, %idx, %upd, %ax1) : (tensor<*xf32>, tensor<2x3xi32>, tensor<4x2x3x6xf32>, tensor<i64>) -> tensor<*xf32>
// CHECK: %9 = "ov.StridedSlice"(%x, %b, %e, %s) <{begin_mask = array<i64: 0, 0, 0>, end_mask = array<i64: 0, 0, 0>}> : (tensor<4x5x6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<2x3x5xf32>
// CHECK: %10 = "ov.StridedSlice"(%x, %b, %e, %s) <{begin_mask = array<i64: 1, 0, 1>, end_mask = array<i64: 0, 1, 1>, new_axis_mask = array<i64: 0>, shrink_axis_mask = array<i64: 0, 0, 0>, ellipsis_mask = array<i64: 0>}> : (tensor<4x5x6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<3x3x6xf32>
// CHECK: %11 = "ov.StridedSlice"(%x, %b, %e, %s) <{begin_mask = array<i64: 0, 0, 0>, end_mask = array<i64: 0, 0, 0>, shrink_axis_mask = array<i64: 1, 0, 0>}> : (tensor<4x5x6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<3x5xf32>
// CHECK: %12 = "ov.StridedSlice"(%x, %b, %e, %s) <{begin_mask = array<i64: 0, 0, 0>, end_mask = array<i64: 0, 0, 0>, new_axis_mask = array<i64: 0, 1, 0>}> : (tensor<4x5x6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<2x1x4x6xf32>
// CHECK: %13 = "ov.StridedSlice"(%xd, %dyn, %e, %s) <{begin_mask = array<i64: 0, 0, 0>, end_mask = array<i64: 0, 0, 0>}> : (tensor<?x5x6xf32>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK: %14 = "ov.Slice"(%x, %st, %sp, %ss, %sa) : (tensor<4x5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x5x3xf32>
// CHECK: %15 = "ov.Slice"(%x, %st, %sp, %ss) : (tensor<4x5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3x6xf32>
// CHECK: %16 = "ov.Slice"(%xd, %st, %sp, %ss, %sa) : (tensor<?x5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x5x3xf32>
// CHECK: %17 = "ov.Slice"(%xu, %st, %sp, %ss) : (tensor<*xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
