// RUN: xmo-opt %s -p ov-transpose-sinking | filecheck %s
// Unsqueeze / Squeeze and a Transpose that moves only size-1 dims
// (reshape.py): one Reshape with a constant target, the dynamic batch kept
// by special_zero (Keras' Conv1D on a one-channel waveform: [N, T, 1] ->
// ExpandDims -> NCHW). Near miss: with two channels the Transpose moves data
// and stays (backward sinking moves it above the Unsqueeze, to the input).

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<?x16x1xf32>
  %ax1 = "ov.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %n2c = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %u = "ov.Unsqueeze"(%x, %ax1) <{friendly_name = "expand"}> : (tensor<?x16x1xf32>, tensor<1xi64>) -> tensor<?x1x16x1xf32>
  %t = "ov.Transpose"(%u, %n2c) <{friendly_name = "to_nchw"}> : (tensor<?x1x16x1xf32>, tensor<4xi64>) -> tensor<?x1x1x16xf32>
  %e = "ov.Exp"(%t) <{friendly_name = "exp", tensor_names = [["y"]]}> : (tensor<?x1x1x16xf32>) -> tensor<?x1x1x16xf32>
  "ov.Result"(%e) <{friendly_name = "y"}> : (tensor<?x1x1x16xf32>) -> ()
  %z = "ov.Parameter"() <{friendly_name = "z", tensor_names = [["z"]]}> : () -> tensor<?x16x2xf32>
  %uz = "ov.Unsqueeze"(%z, %ax1) <{friendly_name = "expand2"}> : (tensor<?x16x2xf32>, tensor<1xi64>) -> tensor<?x1x16x2xf32>
  %tz = "ov.Transpose"(%uz, %n2c) <{friendly_name = "kept", tensor_names = [["k"]]}> : (tensor<?x1x16x2xf32>, tensor<4xi64>) -> tensor<?x2x1x16xf32>
  "ov.Result"(%tz) <{friendly_name = "k"}> : (tensor<?x2x1x16xf32>) -> ()
}

// CHECK:      %[[S:.*]] = "ov.Constant"() <{value = dense<[0, 1, 1, 16]> : tensor<4xi64>}>
// CHECK:      %[[R:.*]] = "ov.Reshape"(%x, %[[S]]) <{special_zero = true, friendly_name = "expand"}> : (tensor<?x16x1xf32>, tensor<4xi64>) -> tensor<?x1x1x16xf32>
// CHECK-NEXT: "ov.Exp"(%[[R]])
// CHECK:      %[[T:.*]] = "ov.Transpose"(%z, %{{.*}}) : (tensor<?x16x2xf32>, tensor<3xi64>) -> tensor<?x2x16xf32>
// CHECK:      "ov.Unsqueeze"(%[[T]], %{{.*}}) <{friendly_name = "expand2", tensor_names = {{\[\[}}"k"]]}>
