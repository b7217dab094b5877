// RUN: xmo-opt %s -p ov-cse | filecheck %s
// Two Tanh of the same input merge (the first keeps its friendly name, the
// second's tensor names join it); equal constants merge; Clamps with
// different attributes stay apart.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2xf32>
  %a = "ov.Tanh"(%x) <{friendly_name = "t1", tensor_names = [["a"]]}> : (tensor<2xf32>) -> tensor<2xf32>
  %b = "ov.Tanh"(%x) <{friendly_name = "t2", tensor_names = [["b"]]}> : (tensor<2xf32>) -> tensor<2xf32>
  %c1 = "ov.Constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c2 = "ov.Constant"() <{value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %m1 = "ov.Multiply"(%a, %c1) <{auto_broadcast = "numpy"}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %m2 = "ov.Multiply"(%b, %c2) <{auto_broadcast = "numpy"}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %k1 = "ov.Clamp"(%m1) <{min = 0.0 : f64, max = 1.0 : f64}> : (tensor<2xf32>) -> tensor<2xf32>
  %k2 = "ov.Clamp"(%m2) <{min = 0.0 : f64, max = 2.0 : f64}> : (tensor<2xf32>) -> tensor<2xf32>
  "ov.Result"(%k1) : (tensor<2xf32>) -> ()
  "ov.Result"(%k2) : (tensor<2xf32>) -> ()
}

// CHECK:      %a = "ov.Tanh"(%x) <{friendly_name = "t1", tensor_names = {{\[\[}}"a", "b"]]}>
// CHECK-NEXT: %c1 = "ov.Constant"()
// CHECK-NEXT: %m1 = "ov.Multiply"(%a, %c1)
// CHECK-NEXT: %k1 = "ov.Clamp"(%m1) <{min = 0.000000e+00 : f64, max = 1.000000e+00 : f64}>
// CHECK-NEXT: %k2 = "ov.Clamp"(%m1) <{min = 0.000000e+00 : f64, max = 2.000000e+00 : f64}>
