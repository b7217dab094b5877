// RUN: xmo-opt %s -p ov-constant-fold,ov-dce | filecheck %s
// Constant sub-graphs fold (ShapeOf of a static shape, arithmetic on
// constants); a result much larger than its inputs stays an op.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2x3x4xf32>
  %s = "ov.ShapeOf"(%x) <{output_type = "i64"}> : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %i = "ov.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ax = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %g = "ov.Gather"(%s, %i, %ax) : (tensor<3xi64>, tensor<1xi64>, tensor<i64>) -> tensor<1xi64>
  %m1 = "ov.Constant"() <{value = dense<[-1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %t = "ov.Concat"(%g, %m1) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = "ov.Reshape"(%x, %t) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  "ov.Result"(%r) : (tensor<?x?xf32>) -> ()
  %one = "ov.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %big = "ov.Constant"() <{value = dense<[4096, 4096]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %b = "ov.Broadcast"(%one, %big) <{mode = "numpy"}> : (tensor<f32>, tensor<2xi64>) -> tensor<4096x4096xf32>
  "ov.Result"(%b) : (tensor<4096x4096xf32>) -> ()
}

// CHECK:      %{{.*}} = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2x3x4xf32>
// CHECK-NEXT: %{{.*}} = "ov.Constant"() <{value = dense<[2, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: %{{.*}} = "ov.Reshape"(%{{.*}}, %{{.*}}) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
// CHECK-NOT:  ov.ShapeOf
// CHECK-NOT:  ov.Gather
// CHECK-NOT:  ov.Concat
// CHECK:      "ov.Broadcast"
