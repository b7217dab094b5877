// RUN: xmo-opt %s -p ov-infer-shapes | filecheck %s
// Shape-carrying sub-graph: ShapeOf of a static input, Range from constants,
// Split/Concat and a Reshape whose target is a constant; a data-dependent op
// (NonZero) sees its refined operand but keeps a dynamic count.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x6x4xf32>
  %sh = "ov.ShapeOf"(%x) : (tensor<1x6x4xf32>) -> tensor<?xi64>
  %ax = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %p, %q = "ov.Split"(%x, %ax) <{num_splits = 2 : i64}> : (tensor<1x6x4xf32>, tensor<i64>) -> (tensor<?x?x?xf32>, tensor<*xf32>)
  %cat = "ov.Concat"(%q, %p) <{axis = -1 : i64}> : (tensor<*xf32>, tensor<?x?x?xf32>) -> tensor<*xf32>
  %t = "ov.Constant"() <{value = dense<[3, 8]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %rs = "ov.Reshape"(%cat, %t) <{special_zero = false}> : (tensor<*xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %r0 = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %r1 = "ov.Constant"() <{value = dense<8> : tensor<i64>}> : () -> tensor<i64>
  %r2 = "ov.Constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %rg = "ov.Range"(%r0, %r1, %r2) <{output_type = "i64"}> : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %nz = "ov.NonZero"(%rs) : (tensor<?x?xf32>) -> tensor<?x?xi64>
  "ov.Result"(%nz) : (tensor<?x?xi64>) -> ()
}

// CHECK: %sh = "ov.ShapeOf"(%x) : (tensor<1x6x4xf32>) -> tensor<3xi64>
// CHECK: %p, %q = "ov.Split"(%x, %ax) <{num_splits = 2 : i64}> : (tensor<1x6x4xf32>, tensor<i64>) -> (tensor<1x3x4xf32>, tensor<1x3x4xf32>)
// CHECK: %cat = "ov.Concat"(%q, %p) <{axis = -1 : i64}> : (tensor<1x3x4xf32>, tensor<1x3x4xf32>) -> tensor<1x3x8xf32>
// CHECK: %rs = "ov.Reshape"(%cat, %t) <{special_zero = false}> : (tensor<1x3x8xf32>, tensor<2xi64>) -> tensor<3x8xf32>
// CHECK: %rg = "ov.Range"(%r0, %r1, %r2) <{output_type = "i64"}> : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<3xi64>
// CHECK: %nz = "ov.NonZero"(%rs) : (tensor<3x8xf32>) -> tensor<{{[0-9?]+}}x?xi64>
