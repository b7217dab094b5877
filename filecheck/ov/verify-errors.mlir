// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier messages of the ov base class.

builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<2x3xf32>
  %1 = "ov.Add"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: ov.Add: expected 2 inputs, got 1

// -----

builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<2x3xf32>
  %1 = "ov.Add"(%0, %0) <{auto_broadcast = 3 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
}
// CHECK: 3 : i64 should be of base attribute string

// -----

builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<2x3xindex>
}
// CHECK: ov.Parameter: output 0 has element type index, which is not an OpenVINO element type

// -----

builtin.module {
  %0 = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<3xi64>
}
// CHECK: ov.Constant: value has type tensor<2xi64>, result has type tensor<3xi64>

// -----

builtin.module {
  %0 = "ov.Parameter"() <{tensor_names = [["a"], ["b"]]}> : () -> tensor<2xf32>
}
// CHECK: ov.Parameter: tensor_names has 2 entries for 1 outputs
