// RUN: xmo-opt %s -p ov-infer-shapes | filecheck %s
// ov-infer-shapes: dynamic result types become static, a chain propagates, a
// constant-driven Reshape gets its static shape.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %r = "ov.Relu"(%x) : (tensor<2x3x4xf32>) -> tensor<?x?x?xf32>
  %e = "ov.Exp"(%r) : (tensor<?x?x?xf32>) -> tensor<*xf32>
  %c = "ov.Constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %a = "ov.Add"(%e, %c) : (tensor<*xf32>, tensor<4xf32>) -> tensor<*xf32>
  %s = "ov.Constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.Reshape"(%a, %s) <{special_zero = true}> : (tensor<*xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %w = "ov.Constant"() <{value = dense<0.5> : tensor<12x5xf32>}> : () -> tensor<12x5xf32>
  %m = "ov.MatMul"(%y, %w) : (tensor<?x?xf32>, tensor<12x5xf32>) -> tensor<?x?xf32>
  %k = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %v, %i = "ov.TopK"(%m, %k) <{axis = 1 : i64, mode = "max", sort = "value"}> : (tensor<?x?xf32>, tensor<i64>) -> (tensor<?x?xf32>, tensor<?x?xi32>)
  "ov.Result"(%v) : (tensor<?x?xf32>) -> ()
}

// CHECK:      %r = "ov.Relu"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: %e = "ov.Exp"(%r) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK:      %a = "ov.Add"(%e, %c) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK:      %y = "ov.Reshape"(%a, %s) <{special_zero = true}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
// CHECK:      %m = "ov.MatMul"(%y, %w) : (tensor<2x12xf32>, tensor<12x5xf32>) -> tensor<2x5xf32>
// CHECK:      %v, %i = "ov.TopK"(%m, %k) <{axis = 1 : i64, mode = "max", sort = "value"}> : (tensor<2x5xf32>, tensor<i64>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
// CHECK-NEXT: "ov.Result"(%v) : (tensor<2x2xf32>) -> ()
