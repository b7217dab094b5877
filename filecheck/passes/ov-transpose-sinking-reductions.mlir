// RUN: xmo-opt %s -p ov-transpose-sinking | filecheck %s
// Reductions and normalizations over axes (reductions.py): NormalizeL2 over
// the NCHW channel axis 1 becomes one over NHWC axis 3 and the Transposes
// cancel; a global average pool (ReduceMean over H, W without keep_dims)
// reduces NHWC axes 1, 2 and needs no Transpose after it (rank 2 is left).

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<?x4x4x3xf32>
  %p1 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %p2 = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %t = "ov.Transpose"(%x, %p1) <{friendly_name = "t"}> : (tensor<?x4x4x3xf32>, tensor<4xi64>) -> tensor<?x3x4x4xf32>
  %c1 = "ov.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %n = "ov.NormalizeL2"(%t, %c1) <{eps = 1.0e-06 : f64, eps_mode = "add", friendly_name = "l2"}> : (tensor<?x3x4x4xf32>, tensor<1xi64>) -> tensor<?x3x4x4xf32>
  %t2 = "ov.Transpose"(%n, %p2) <{friendly_name = "t2", tensor_names = [["n"]]}> : (tensor<?x3x4x4xf32>, tensor<4xi64>) -> tensor<?x4x4x3xf32>
  "ov.Result"(%t2) <{friendly_name = "n"}> : (tensor<?x4x4x3xf32>) -> ()
  %axes = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %m = "ov.ReduceMean"(%t, %axes) <{keep_dims = false, friendly_name = "gap", tensor_names = [["gap"]]}> : (tensor<?x3x4x4xf32>, tensor<2xi64>) -> tensor<?x3xf32>
  "ov.Result"(%m) <{friendly_name = "gap"}> : (tensor<?x3xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"()
// CHECK-NEXT: %[[A:.*]] = "ov.Constant"() <{value = dense<3> : tensor<1xi64>}>
// CHECK-NEXT: %[[N:.*]] = "ov.NormalizeL2"(%[[X]], %[[A]]) <{eps = 1.000000e-06 : f64, eps_mode = "add", friendly_name = "l2", tensor_names = {{\[\[}}"n"]]}> : (tensor<?x4x4x3xf32>, tensor<1xi64>) -> tensor<?x4x4x3xf32>
// CHECK-NEXT: "ov.Result"(%[[N]]) <{friendly_name = "n"}>
// CHECK-NEXT: %[[AX:.*]] = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}>
// CHECK-NEXT: %[[M:.*]] = "ov.ReduceMean"(%[[X]], %[[AX]]) <{keep_dims = false, {{.*}}}> : (tensor<?x4x4x3xf32>, tensor<2xi64>) -> tensor<?x3xf32>
// CHECK-NEXT: "ov.Result"(%[[M]]) <{friendly_name = "gap"}>
// CHECK-NOT:  ov.Transpose
