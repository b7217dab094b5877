// RUN: xmo-opt %s --extensions %S/../../examples/transformations -p squeeze-axes-to-input | filecheck %s
// docs/transformations.md: normalizing a Squeeze whose axes are an attribute
// into the opset Squeeze with an axes input.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<1x3x1x4xf32>
  %s = "ov.Squeeze_xmo_example"(%x) <{squeeze_dims = array<i64: 0, 2>, friendly_name = "squeeze"}> : (tensor<1x3x1x4xf32>) -> tensor<3x4xf32>
  "ov.Result"(%s) : (tensor<3x4xf32>) -> ()
}

// CHECK:      %[[AX:.*]] = "ov.Constant"() <{value = dense<[0, 2]> : tensor<2xi64>}>
// CHECK-NEXT: %[[S:.*]] = "ov.Squeeze"(%x, %[[AX]]) <{friendly_name = "squeeze"}> : (tensor<1x3x1x4xf32>, tensor<2xi64>) -> tensor<3x4xf32>
// CHECK-NEXT: "ov.Result"(%[[S]])
// CHECK-NOT:  Squeeze_xmo_example
