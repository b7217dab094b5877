// RUN: xmo-opt %s | xmo-opt | filecheck %s
// Parameter / Constant / Result and names survive a print-parse round trip.

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "data", tensor_names = [["data", "input:0"]]}> : () -> tensor<1x3x?x?xf32>
  %1 = "ov.Constant"() <{value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>, friendly_name = "scale"}> : () -> tensor<3xf32>
  %2 = "ov.Constant"() <{value = dense<7> : tensor<2xi64>}> : () -> tensor<2xi64>
  "ov.Result"(%0) {} : (tensor<1x3x?x?xf32>) -> ()
  "ov.Result"(%1) : (tensor<3xf32>) -> ()
  "ov.Result"(%2) : (tensor<2xi64>) -> ()
}

// CHECK:      %0 = "ov.Parameter"() <{friendly_name = "data", tensor_names = {{\[\["data", "input:0"\]\]}}}> : () -> tensor<1x3x?x?xf32>
// CHECK-NEXT: %1 = "ov.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>, friendly_name = "scale"}> : () -> tensor<3xf32>
// CHECK-NEXT: %2 = "ov.Constant"() <{value = dense<7> : tensor<2xi64>}> : () -> tensor<2xi64>
// CHECK-NEXT: "ov.Result"(%0) : (tensor<1x3x?x?xf32>) -> ()
