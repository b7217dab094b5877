// RUN: xmo-opt %s -p ov-fusions | filecheck %s
// transpose-to-reshape (passes/ov_fusions/shapes.py): a Transpose moving only
// dimensions of size 1 is a Reshape to its result shape; a dynamic batch left in
// place is kept by special_zero. Near miss: a Transpose that reorders data.

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<?x1x1x6xf32>
  %1 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %2 = "ov.Transpose"(%0, %1) <{friendly_name = "se/to_nchw", tensor_names = [["se"]]}> : (tensor<?x1x1x6xf32>, tensor<4xi64>) -> tensor<?x6x1x1xf32>
  "ov.Result"(%2) <{friendly_name = "se"}> : (tensor<?x6x1x1xf32>) -> ()
  %3 = "ov.Parameter"() <{friendly_name = "z", tensor_names = [["z"]]}> : () -> tensor<2x1x3x6xf32>
  %4 = "ov.Transpose"(%3, %1) <{friendly_name = "data", tensor_names = [["data"]]}> : (tensor<2x1x3x6xf32>, tensor<4xi64>) -> tensor<2x6x1x3xf32>
  "ov.Result"(%4) <{friendly_name = "data"}> : (tensor<2x6x1x3xf32>) -> ()
}

// CHECK:      %[[S:.*]] = "ov.Constant"() <{value = dense<[0, 6, 1, 1]> : tensor<4xi64>}>
// CHECK-NEXT: "ov.Reshape"(%0, %[[S]]) <{special_zero = true, friendly_name = "se/to_nchw", tensor_names = {{\[\[}}"se"]]}> : (tensor<?x1x1x6xf32>, tensor<4xi64>) -> tensor<?x6x1x1xf32>
// CHECK:      "ov.Transpose"(%{{.*}}, %1) <{friendly_name = "data"
