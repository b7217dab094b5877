// RUN: xmo-opt %s -p ov-transpose-sinking | filecheck %s
// Reshape (reshape.py): a Transpose that moves only size-1 dims is a
// reshape. Keras' squeeze-excite target [N, 1, 1, C] (N from ShapeOf, a
// Concat of one-element pieces) takes the Transpose's order: the pieces are
// reordered to [N, C, 1, 1] and the Transpose is gone. A Reshape of a
// Transpose that moves only size-1 dims reads the Transpose's input. Near
// miss: [N, 2, 1, 2] would swap the two 2s, the Transpose stays.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<?x8xf32>
  %n2c = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %shp = "ov.ShapeOf"(%x) <{output_type = "i32", friendly_name = "shape"}> : (tensor<?x8xf32>) -> tensor<2xi32>
  %i0 = "ov.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ax = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %n = "ov.Gather"(%shp, %i0, %ax) <{batch_dims = 0 : i64, friendly_name = "batch"}> : (tensor<2xi32>, tensor<1xi64>, tensor<i64>) -> tensor<1xi32>
  %one = "ov.Constant"() <{value = dense<1> : tensor<1xi32>}> : () -> tensor<1xi32>
  %c = "ov.Constant"() <{value = dense<8> : tensor<1xi32>}> : () -> tensor<1xi32>
  %tgt = "ov.Concat"(%n, %one, %one, %c) <{axis = 0 : i64, friendly_name = "target"}> : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  %r = "ov.Reshape"(%x, %tgt) <{special_zero = false, friendly_name = "se_reshape", tensor_names = [["se_reshape:0"]]}> : (tensor<?x8xf32>, tensor<4xi32>) -> tensor<?x?x?x?xf32>
  %t = "ov.Transpose"(%r, %n2c) <{friendly_name = "to_nchw"}> : (tensor<?x?x?x?xf32>, tensor<4xi64>) -> tensor<?x?x?x?xf32>
  %e = "ov.Exp"(%t) <{friendly_name = "exp", tensor_names = [["y"]]}> : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  "ov.Result"(%e) <{friendly_name = "y"}> : (tensor<?x?x?x?xf32>) -> ()
  %z = "ov.Parameter"() <{friendly_name = "z", tensor_names = [["z"]]}> : () -> tensor<?x8x1x1xf32>
  %c2n = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %tz = "ov.Transpose"(%z, %c2n) <{friendly_name = "to_nhwc"}> : (tensor<?x8x1x1xf32>, tensor<4xi64>) -> tensor<?x1x1x8xf32>
  %flat = "ov.Constant"() <{value = dense<[-1, 8]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %f = "ov.Reshape"(%tz, %flat) <{special_zero = false, friendly_name = "flatten", tensor_names = [["f"]]}> : (tensor<?x1x1x8xf32>, tensor<2xi64>) -> tensor<?x8xf32>
  "ov.Result"(%f) <{friendly_name = "f"}> : (tensor<?x8xf32>) -> ()
  %w = "ov.Parameter"() <{friendly_name = "w", tensor_names = [["w"]]}> : () -> tensor<?x4xf32>
  %two = "ov.Constant"() <{value = dense<[1, 2, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %rw = "ov.Reshape"(%w, %two) <{special_zero = false, friendly_name = "near_miss"}> : (tensor<?x4xf32>, tensor<4xi64>) -> tensor<1x2x1x2xf32>
  %tw = "ov.Transpose"(%rw, %n2c) <{friendly_name = "kept", tensor_names = [["k"]]}> : (tensor<1x2x1x2xf32>, tensor<4xi64>) -> tensor<1x2x2x1xf32>
  "ov.Result"(%tw) <{friendly_name = "k"}> : (tensor<1x2x2x1xf32>) -> ()
}

// CHECK:      %[[N:.*]] = "ov.Gather"
// CHECK:      %[[T:.*]] = "ov.Concat"(%[[N]], %[[C:.*]], %[[ONE:.*]], %[[ONE]]) <{axis = 0 : i64, friendly_name = "target"}>
// CHECK-NEXT: %[[R:.*]] = "ov.Reshape"(%x, %[[T]]) <{special_zero = false, friendly_name = "se_reshape"}> : (tensor<?x8xf32>, tensor<4xi32>) -> tensor<?x?x?x?xf32>
// CHECK-NEXT: "ov.Exp"(%[[R]])
// CHECK:      "ov.Reshape"(%z, %{{.*}}) <{special_zero = false, {{.*}}"flatten"}> : (tensor<?x8x1x1xf32>, tensor<2xi64>) -> tensor<?x8xf32>
// CHECK:      %[[RW:.*]] = "ov.Reshape"(%w, %{{.*}}) <{special_zero = false, friendly_name = "near_miss"}>
// CHECK-NEXT: "ov.Transpose"(%[[RW]], %{{.*}}) <{friendly_name = "kept", tensor_names = {{\[\[}}"k"]]}>
