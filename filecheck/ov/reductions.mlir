// RUN: xmo-opt %s | xmo-opt | filecheck %s
// Reduce* (keep_dims on/off, constant and non-constant axes) and TopK.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %xd = "ov.Parameter"() : () -> tensor<?x3x?xf32>
  %xu = "ov.Parameter"() : () -> tensor<*xf32>
  %b = "ov.Parameter"() : () -> tensor<2x3xi1>
  %ax = "ov.Parameter"() : () -> tensor<1xi64>
  %a1 = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %a02 = "ov.Constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %k = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %kd = "ov.Parameter"() : () -> tensor<i32>
  %0 = "ov.ReduceSum"(%x, %a1) : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %1 = "ov.ReduceSum"(%x, %a02) <{keep_dims = true}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<1x3x1xf32>
  %2 = "ov.ReduceMean"(%xd, %a02) : (tensor<?x3x?xf32>, tensor<2xi64>) -> tensor<3xf32>
  %3 = "ov.ReduceMax"(%x, %ax) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?xf32>
  %4 = "ov.ReduceMin"(%x, %ax) <{keep_dims = true}> : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
  %5 = "ov.ReduceProd"(%xu, %a1) : (tensor<*xf32>, tensor<i64>) -> tensor<*xf32>
  %6 = "ov.ReduceL2"(%x, %a1) <{keep_dims = true}> : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x1x4xf32>
  %7 = "ov.ReduceL1"(%xd, %a1) : (tensor<?x3x?xf32>, tensor<i64>) -> tensor<?x?xf32>
  %8 = "ov.ReduceLogicalAnd"(%b, %a1) : (tensor<2x3xi1>, tensor<i64>) -> tensor<2xi1>
  %9 = "ov.ReduceLogicalOr"(%b, %a02) <{keep_dims = true}> : (tensor<2x3xi1>, tensor<2xi64>) -> tensor<1x1xi1>
  %10, %11 = "ov.TopK"(%x, %k) <{axis = 1 : i64, mode = "max", sort = "value"}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x2x4xf32>, tensor<2x2x4xi32>)
  %12, %13 = "ov.TopK"(%x, %k) <{axis = -1 : i64, mode = "min", sort = "index", index_element_type = "i64", stable = true}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x3x2xf32>, tensor<2x3x2xi64>)
  %14, %15 = "ov.TopK"(%xd, %kd) <{axis = 0 : i64, mode = "max", sort = "none"}> : (tensor<?x3x?xf32>, tensor<i32>) -> (tensor<?x3x?xf32>, tensor<?x3x?xi32>)
  %16, %17 = "ov.TopK"(%xu, %k) <{axis = 0 : i64, mode = "max", sort = "value"}> : (tensor<*xf32>, tensor<i64>) -> (tensor<*xf32>, tensor<*xi32>)
  "ov.Result"(%0) : (tensor<2x4xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0 = "ov.ReduceSum"(%x, %a1) : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x4xf32>
// CHECK: %1 = "ov.ReduceSum"(%x, %a02) <{keep_dims = true}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<1x3x1xf32>
// CHECK: %2 = "ov.ReduceMean"(%xd, %a02) : (tensor<?x3x?xf32>, tensor<2xi64>) -> tensor<3xf32>
// CHECK: %3 = "ov.ReduceMax"(%x, %ax) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?xf32>
// CHECK: %4 = "ov.ReduceMin"(%x, %ax) <{keep_dims = true}> : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<?x?x?xf32>
// CHECK: %5 = "ov.ReduceProd"(%xu, %a1) : (tensor<*xf32>, tensor<i64>) -> tensor<*xf32>
// CHECK: %6 = "ov.ReduceL2"(%x, %a1) <{keep_dims = true}> : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x1x4xf32>
// CHECK: %7 = "ov.ReduceL1"(%xd, %a1) : (tensor<?x3x?xf32>, tensor<i64>) -> tensor<?x?xf32>
// CHECK: %8 = "ov.ReduceLogicalAnd"(%b, %a1) : (tensor<2x3xi1>, tensor<i64>) -> tensor<2xi1>
// CHECK: %9 = "ov.ReduceLogicalOr"(%b, %a02) <{keep_dims = true}> : (tensor<2x3xi1>, tensor<2xi64>) -> tensor<1x1xi1>
// CHECK: %10, %11 = "ov.TopK"(%x, %k) <{axis = 1 : i64, mode = "max", sort = "value"}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x2x4xf32>, tensor<2x2x4xi32>)
// CHECK: %12, %13 = "ov.TopK"(%x, %k) <{axis = -1 : i64, mode = "min", sort = "index", index_element_type = "i64", stable = true}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x3x2xf32>, tensor<2x3x2xi64>)
// CHECK: %14, %15 = "ov.TopK"(%xd, %kd) <{axis = 0 : i64, mode = "max", sort = "none"}> : (tensor<?x3x?xf32>, tensor<i32>) -> (tensor<?x3x?xf32>, tensor<?x3x?xi32>)
// CHECK: %16, %17 = "ov.TopK"(%xu, %k) <{axis = 0 : i64, mode = "max", sort = "value"}> : (tensor<*xf32>, tensor<i64>) -> (tensor<*xf32>, tensor<*xi32>)
