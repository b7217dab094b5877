// RUN: xmo-opt %s | xmo-opt | filecheck %s
// Reshape, Transpose, Squeeze, Unsqueeze, Concat, Split, VariadicSplit,
// DepthToSpace, SpaceToDepth round-trip.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %xd = "ov.Parameter"() : () -> tensor<?x3x4xf32>
  %xu = "ov.Parameter"() : () -> tensor<*xf32>
  %one = "ov.Parameter"() : () -> tensor<1x3x1x4xf32>
  %img = "ov.Parameter"() : () -> tensor<1x8x2x3xf32>
  %shp = "ov.Parameter"() : () -> tensor<3xi64>
  %s1 = "ov.Constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s2 = "ov.Constant"() <{value = dense<[4, 6]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %perm = "ov.Constant"() <{value = dense<[2, 0, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %ax0 = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %ax2 = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %axs = "ov.Constant"() <{value = dense<[0, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %uax = "ov.Constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %len = "ov.Constant"() <{value = dense<[1, -1, 2]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %0 = "ov.Reshape"(%x, %s1) <{special_zero = true}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  %1 = "ov.Reshape"(%x, %s2) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<4x6xf32>
  %2 = "ov.Reshape"(%xd, %s1) <{special_zero = true}> : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
  %3 = "ov.Reshape"(%x, %shp) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %4 = "ov.Transpose"(%x, %perm) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<4x2x3xf32>
  %5 = "ov.Transpose"(%xd, %shp) : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %6 = "ov.Transpose"(%xu, %perm) : (tensor<*xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %7 = "ov.Squeeze"(%one) : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
  %8 = "ov.Squeeze"(%one, %axs) : (tensor<1x3x1x4xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  %9 = "ov.Squeeze"(%xu, %ax0) : (tensor<*xf32>, tensor<i64>) -> tensor<*xf32>
  %10 = "ov.Unsqueeze"(%x, %uax) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<1x2x3x4x1xf32>
  %11 = "ov.Unsqueeze"(%xd, %ax0) : (tensor<?x3x4xf32>, tensor<i64>) -> tensor<1x?x3x4xf32>
  %12 = "ov.Concat"(%x, %xd, %x) <{axis = 0 : i64}> : (tensor<2x3x4xf32>, tensor<?x3x4xf32>, tensor<2x3x4xf32>) -> tensor<?x3x4xf32>
  %13 = "ov.Concat"(%x, %x) <{axis = -1 : i64}> : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  %14 = "ov.Concat"(%x, %xu) <{axis = 1 : i64}> : (tensor<2x3x4xf32>, tensor<*xf32>) -> tensor<2x?x4xf32>
  %15, %16 = "ov.Split"(%x, %ax2) <{num_splits = 2 : i64}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>)
  %17, %18, %19 = "ov.Split"(%xd, %ax0) <{num_splits = 3 : i64}> : (tensor<?x3x4xf32>, tensor<i64>) -> (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<?x3x4xf32>)
  %20, %21, %22 = "ov.VariadicSplit"(%x, %ax2, %len) : (tensor<2x3x4xf32>, tensor<i64>, tensor<3xi64>) -> (tensor<2x3x1xf32>, tensor<2x3x1xf32>, tensor<2x3x2xf32>)
  %23, %24, %25 = "ov.VariadicSplit"(%xu, %ax2, %len) : (tensor<*xf32>, tensor<i64>, tensor<3xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  %26 = "ov.DepthToSpace"(%img) <{block_size = 2 : i64, mode = "blocks_first"}> : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %27 = "ov.DepthToSpace"(%xu) <{block_size = 2 : i64, mode = "depth_first"}> : (tensor<*xf32>) -> tensor<*xf32>
  %28 = "ov.SpaceToDepth"(%26) <{block_size = 2 : i64, mode = "depth_first"}> : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  %29 = "ov.SpaceToDepth"(%xd) <{block_size = 2 : i64, mode = "blocks_first"}> : (tensor<?x3x4xf32>) -> tensor<?x6x2xf32>
  "ov.Result"(%0) : (tensor<2x12xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0 = "ov.Reshape"(%x, %s1) <{special_zero = true}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
// CHECK: %1 = "ov.Reshape"(%x, %s2) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<2xi32>) -> tensor<4x6xf32>
// CHECK: %2 = "ov.Reshape"(%xd, %s1) <{special_zero = true}> : (tensor<?x3x4xf32>, tensor<2xi64>) -> tensor<?x12xf32>
// CHECK: %3 = "ov.Reshape"(%x, %shp) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK: %4 = "ov.Transpose"(%x, %perm) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<4x2x3xf32>
// CHECK: %5 = "ov.Transpose"(%xd, %shp) : (tensor<?x3x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK: %6 = "ov.Transpose"(%xu, %perm) : (tensor<*xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK: %7 = "ov.Squeeze"(%one) : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
// CHECK: %8 = "ov.Squeeze"(%one, %axs) : (tensor<1x3x1x4xf32>, tensor<2xi64>) -> tensor<3x4xf32>
// CHECK: %9 = "ov.Squeeze"(%xu, %ax0) : (tensor<*xf32>, tensor<i64>) -> tensor<*xf32>
// CHECK: %10 = "ov.Unsqueeze"(%x, %uax) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<1x2x3x4x1xf32>
// CHECK: %11 = "ov.Unsqueeze"(%xd, %ax0) : (tensor<?x3x4xf32>, tensor<i64>) -> tensor<1x?x3x4xf32>
// CHECK: %12 = "ov.Concat"(%x, %xd, %x) <{axis = 0 : i64}> : (tensor<2x3x4xf32>, tensor<?x3x4xf32>, tensor<2x3x4xf32>) -> tensor<?x3x4xf32>
// CHECK: %13 = "ov.Concat"(%x, %x) <{axis = -1 : i64}> : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
// CHECK: %14 = "ov.Concat"(%x, %xu) <{axis = 1 : i64}> : (tensor<2x3x4xf32>, tensor<*xf32>) -> tensor<2x?x4xf32>
// CHECK: %15, %16 = "ov.Split"(%x, %ax2) <{num_splits = 2 : i64}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>)
// CHECK: %17, %18, %19 = "ov.Split"(%xd, %ax0) <{num_splits = 3 : i64}> : (tensor<?x3x4xf32>, tensor<i64>) -> (tensor<?x3x4xf32>, tensor<?x3x4xf32>, tensor<?x3x4xf32>)
// CHECK: %20, %21, %22 = "ov.VariadicSplit"(%x, %ax2, %len) : (tensor<2x3x4xf32>, tensor<i64>, tensor<3xi64>) -> (tensor<2x3x1xf32>, tensor<2x3x1xf32>, tensor<2x3x2xf32>)
// CHECK: %23, %24, %25 = "ov.VariadicSplit"(%xu, %ax2, %len) : (tensor<*xf32>, tensor<i64>, tensor<3xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
// CHECK: %26 = "ov.DepthToSpace"(%img) <{block_size = 2 : i64, mode = "blocks_first"}> : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
// CHECK: %27 = "ov.DepthToSpace"(%xu) <{block_size = 2 : i64, mode = "depth_first"}> : (tensor<*xf32>) -> tensor<*xf32>
// CHECK: %28 = "ov.SpaceToDepth"(%26) <{block_size = 2 : i64, mode = "depth_first"}> : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
// CHECK: %29 = "ov.SpaceToDepth"(%xd) <{block_size = 2 : i64, mode = "blocks_first"}> : (tensor<?x3x4xf32>) -> tensor<?x6x2xf32>
