// RUN: xmo-opt %s -p ov-transpose-sinking | filecheck %s
// RUN: xmo-opt %s -p 'ov-transpose-sinking{backward=false}' | filecheck %s --check-prefix=FORWARD
// Squeeze and Unsqueeze (squeeze.py), a squeeze-excite shape: forward, the
// Transpose sinks below the Squeeze of H, W (NHWC axes 1, 2; rank 2 is
// left, no Transpose after it). Backward, the Transpose after the Unsqueeze
// moves above it (the new axes become 1, 2) and vanishes; without backward
// sinking the Unsqueeze absorbs it (reshape.py: the Transpose moves only
// size-1 dims; the new axes become 1, 2 as well).

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x1x1x8xf32>
  %p1 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %p2 = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %t = "ov.Transpose"(%x, %p1) <{friendly_name = "t"}> : (tensor<1x1x1x8xf32>, tensor<4xi64>) -> tensor<1x8x1x1xf32>
  %a = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s = "ov.Squeeze"(%t, %a) <{allow_axis_skip = false, friendly_name = "squeeze"}> : (tensor<1x8x1x1xf32>, tensor<2xi64>) -> tensor<1x8xf32>
  %r = "ov.Relu"(%s) <{friendly_name = "relu"}> : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %u = "ov.Unsqueeze"(%r, %a) <{friendly_name = "unsqueeze"}> : (tensor<1x8xf32>, tensor<2xi64>) -> tensor<1x8x1x1xf32>
  %t2 = "ov.Transpose"(%u, %p2) <{friendly_name = "t2", tensor_names = [["y"]]}> : (tensor<1x8x1x1xf32>, tensor<4xi64>) -> tensor<1x1x1x8xf32>
  "ov.Result"(%t2) <{friendly_name = "y"}> : (tensor<1x1x1x8xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"()
// CHECK-NEXT: %[[A:.*]] = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}>
// CHECK-NEXT: %[[S:.*]] = "ov.Squeeze"(%[[X]], %[[A]]) <{allow_axis_skip = false, friendly_name = "squeeze"}> : (tensor<1x1x1x8xf32>, tensor<2xi64>) -> tensor<1x8xf32>
// CHECK-NEXT: %[[R:.*]] = "ov.Relu"(%[[S]])
// CHECK-NEXT: %[[B:.*]] = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}>
// CHECK-NEXT: %[[U:.*]] = "ov.Unsqueeze"(%[[R]], %[[B]]) <{friendly_name = "unsqueeze", tensor_names = {{\[\[}}"y"]]}> : (tensor<1x8xf32>, tensor<2xi64>) -> tensor<1x1x1x8xf32>
// CHECK-NEXT: "ov.Result"(%[[U]]) <{friendly_name = "y"}>
// CHECK-NOT:  ov.Transpose

// FORWARD:     "ov.Squeeze"(%x, %{{.*}}) {{.*}} -> tensor<1x8xf32>
// FORWARD:     %[[U:.*]] = "ov.Unsqueeze"({{.*}} <{friendly_name = "unsqueeze", tensor_names = {{\[\[}}"y"]]}> : (tensor<1x8xf32>, tensor<2xi64>) -> tensor<1x1x1x8xf32>
// FORWARD-NEXT: "ov.Result"(%[[U]])
// FORWARD-NOT:  ov.Transpose
