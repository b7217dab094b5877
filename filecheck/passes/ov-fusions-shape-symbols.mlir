// RUN: xmo-opt %s -p ov-fusions | filecheck %s
// Shape sub-graphs read with symbolic dimensions (passes/ov_fusions/dim_symbols.py):
// TorchScript's ShapeOf -> Gather -> Unsqueeze -> Concat target of a head
// split becomes the constant [0, 0, 4, 8] (special_zero), and a Reshape back
// to [B, 4, S, 8] computed from
// the tensor's own shape goes. Near miss: a target of another tensor's dims,
// swapped, stays computed (read with one Gather of the shape, no Concat).

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<?x?x32xf32>
  %shape = "ov.ShapeOf"(%x) <{output_type = "i64"}> : (tensor<?x?x32xf32>) -> tensor<3xi64>
  %i0 = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %i1 = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %ax = "ov.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %b = "ov.Gather"(%shape, %i0, %i0) <{batch_dims = 0 : i64}> : (tensor<3xi64>, tensor<i64>, tensor<i64>) -> tensor<i64>
  %s = "ov.Gather"(%shape, %i1, %i0) <{batch_dims = 0 : i64}> : (tensor<3xi64>, tensor<i64>, tensor<i64>) -> tensor<i64>
  %ub = "ov.Unsqueeze"(%b, %ax) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %us = "ov.Unsqueeze"(%s, %ax) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %c4 = "ov.Constant"() <{value = dense<4> : tensor<1xi64>}> : () -> tensor<1xi64>
  %c8 = "ov.Constant"() <{value = dense<8> : tensor<1xi64>}> : () -> tensor<1xi64>
  %t = "ov.Concat"(%ub, %us, %c4, %c8) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %h = "ov.Reshape"(%x, %t) <{special_zero = true, friendly_name = "heads", tensor_names = [["heads"]]}> : (tensor<?x?x32xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %p = "ov.Constant"() <{value = dense<[0, 2, 1, 3]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %tr = "ov.Transpose"(%h, %p) <{friendly_name = "tr", tensor_names = [["tr"]]}> : (tensor<?x?x?x?xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %shape2 = "ov.ShapeOf"(%tr) <{output_type = "i64"}> : (tensor<?x?x?x?xf32>) -> tensor<4xi64>
  %b2 = "ov.Gather"(%shape2, %i0, %i0) <{batch_dims = 0 : i64}> : (tensor<4xi64>, tensor<i64>, tensor<i64>) -> tensor<i64>
  %ub2 = "ov.Unsqueeze"(%b2, %ax) : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m1 = "ov.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %t2 = "ov.Concat"(%ub2, %m1, %us, %c8) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  %nop = "ov.Reshape"(%tr, %t2) <{special_zero = false, friendly_name = "nop"}> : (tensor<?x?x?x?xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %relu = "ov.Relu"(%nop) <{friendly_name = "relu", tensor_names = [["relu"]]}> : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  "ov.Result"(%relu) <{friendly_name = "relu"}> : (tensor<?x?x?x?xf32>) -> ()
  %t3 = "ov.Concat"(%us, %ub) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %y = "ov.Parameter"() <{friendly_name = "y", tensor_names = [["y"]]}> : () -> tensor<?x?xf32>
  %sw = "ov.Reshape"(%y, %t3) <{special_zero = false, friendly_name = "swapped", tensor_names = [["swapped"]]}> : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  "ov.Result"(%sw) <{friendly_name = "swapped"}> : (tensor<?x?xf32>) -> ()
}

// CHECK:      %[[T:.*]] = "ov.Constant"() <{value = dense<[0, 0, 4, 8]> : tensor<4xi64>
// CHECK:      %[[H:.*]] = "ov.Reshape"(%{{.*}}, %[[T]]) <{special_zero = true, friendly_name = "heads"{{.*}}-> tensor<?x?x4x8xf32>
// CHECK:      %[[TR:.*]] = "ov.Transpose"(%[[H]], %{{.*}}) <{friendly_name = "tr"{{.*}}-> tensor<?x4x?x8xf32>
// CHECK-NOT:  friendly_name = "nop"
// CHECK:      "ov.Relu"(%[[TR]]) <{friendly_name = "relu"
// CHECK:      %[[G:.*]] = "ov.Gather"(%shape, %{{.*}}, %{{.*}})
// CHECK-NOT:  "ov.Concat"
// CHECK:      "ov.Reshape"(%y, %[[G]]) <{special_zero = false, friendly_name = "swapped"
