// RUN: xmo-opt %s -p ov-dce | filecheck %s
// Unused pure ops go (a whole dead chain); Parameters (used or not), Results,
// ReadValue / Assign (state) and random ops stay though nothing uses them.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2xf32>
  %unused = "ov.Parameter"() <{friendly_name = "unused"}> : () -> tensor<2xf32>
  %s = "ov.ReadValue"(%x) <{variable_id = "v"}> : (tensor<2xf32>) -> tensor<2xf32>
  %r = "ov.ReadValue"(%x) <{variable_id = "w"}> : (tensor<2xf32>) -> tensor<2xf32>
  %a = "ov.Add"(%x, %s) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %as = "ov.Assign"(%a) <{variable_id = "v"}> : (tensor<2xf32>) -> tensor<2xf32>
  %shape = "ov.Constant"() <{value = dense<2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %lo = "ov.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %hi = "ov.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %u = "ov.RandomUniform"(%shape, %lo, %hi) <{output_type = "f32"}> : (tensor<1xi64>, tensor<f32>, tensor<f32>) -> tensor<2xf32>
  %c = "ov.Constant"() <{value = dense<3.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %dead1 = "ov.Multiply"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %dead2 = "ov.Relu"(%dead1) : (tensor<2xf32>) -> tensor<2xf32>
  %t = "ov.Tanh"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  "ov.Result"(%t) : (tensor<2xf32>) -> ()
}

// CHECK:      builtin.module {
// CHECK-NEXT:   %x = "ov.Parameter"()
// CHECK-NEXT:   %unused = "ov.Parameter"()
// CHECK-NEXT:   %s = "ov.ReadValue"(%x) <{variable_id = "v"}>
// CHECK-NEXT:   %r = "ov.ReadValue"(%x) <{variable_id = "w"}>
// CHECK-NEXT:   %a = "ov.Add"(%x, %s)
// CHECK-NEXT:   %as = "ov.Assign"(%a)
// CHECK-NEXT:   %shape = "ov.Constant"()
// CHECK-NEXT:   %lo = "ov.Constant"()
// CHECK-NEXT:   %hi = "ov.Constant"()
// CHECK-NEXT:   %u = "ov.RandomUniform"(%shape, %lo, %hi)
// CHECK-NEXT:   %t = "ov.Tanh"(%x)
// CHECK-NEXT:   "ov.Result"(%t)
// CHECK-NEXT: }
