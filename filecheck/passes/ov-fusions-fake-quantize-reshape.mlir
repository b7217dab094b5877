// RUN: xmo-opt %s -p ov-fusions | filecheck %s
// fake-quantize-fusion (passes/ov_fusions/quantization.py) across a Reshape
// of the integer tensor (a QOperator model's flatten between QLinearConv and
// QLinearMatMul): per-tensor parameters give FakeQuantize -> Reshape, the
// Reshape named as the dequantize. Near miss: per-channel parameters keep
// the ops (the FakeQuantize's parameters would have to move with the data).

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x2x3xf32>
  %shape = "ov.Constant"() <{value = dense<[1, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %inv = "ov.Constant"() <{value = dense<2.000000e+01> : tensor<f32>}> : () -> tensor<f32>
  %zp = "ov.Constant"() <{value = dense<7.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %s = "ov.Constant"() <{value = dense<5.000000e-02> : tensor<f32>}> : () -> tensor<f32>
  %0 = "ov.Multiply"(%x, %inv) : (tensor<1x2x3xf32>, tensor<f32>) -> tensor<1x2x3xf32>
  %1 = "ov.Round"(%0) <{mode = "half_to_even"}> : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %2 = "ov.Add"(%1, %zp) : (tensor<1x2x3xf32>, tensor<f32>) -> tensor<1x2x3xf32>
  %3 = "ov.Clamp"(%2) <{min = 0.0 : f64, max = 255.0 : f64}> : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %4 = "ov.Convert"(%3) <{destination_type = "u8", friendly_name = "q"}> : (tensor<1x2x3xf32>) -> tensor<1x2x3xui8>
  %5 = "ov.Reshape"(%4, %shape) <{special_zero = false}> : (tensor<1x2x3xui8>, tensor<2xi64>) -> tensor<1x6xui8>
  %6 = "ov.Convert"(%5) <{destination_type = "f32"}> : (tensor<1x6xui8>) -> tensor<1x6xf32>
  %7 = "ov.Subtract"(%6, %zp) : (tensor<1x6xf32>, tensor<f32>) -> tensor<1x6xf32>
  %8 = "ov.Multiply"(%7, %s) <{friendly_name = "dq", tensor_names = [["dq"]]}> : (tensor<1x6xf32>, tensor<f32>) -> tensor<1x6xf32>
  "ov.Result"(%8) <{friendly_name = "dq"}> : (tensor<1x6xf32>) -> ()
  %y = "ov.Parameter"() <{friendly_name = "y", tensor_names = [["y"]]}> : () -> tensor<1x2x3xf32>
  %sc = "ov.Constant"() <{value = dense<[[5.000000e-02], [1.000000e-01]]> : tensor<2x1xf32>}> : () -> tensor<2x1xf32>
  %invc = "ov.Constant"() <{value = dense<[[2.000000e+01], [1.000000e+01]]> : tensor<2x1xf32>}> : () -> tensor<2x1xf32>
  %10 = "ov.Multiply"(%y, %invc) : (tensor<1x2x3xf32>, tensor<2x1xf32>) -> tensor<1x2x3xf32>
  %11 = "ov.Round"(%10) <{mode = "half_to_even"}> : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %12 = "ov.Clamp"(%11) <{min = -128.0 : f64, max = 127.0 : f64}> : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %13 = "ov.Convert"(%12) <{destination_type = "i8", friendly_name = "qc"}> : (tensor<1x2x3xf32>) -> tensor<1x2x3xi8>
  %shape2 = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %14 = "ov.Reshape"(%13, %shape2) <{special_zero = false}> : (tensor<1x2x3xi8>, tensor<2xi64>) -> tensor<2x3xi8>
  %15 = "ov.Convert"(%14) <{destination_type = "f32"}> : (tensor<2x3xi8>) -> tensor<2x3xf32>
  %16 = "ov.Multiply"(%15, %sc) <{friendly_name = "dqc", tensor_names = [["dqc"]]}> : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  "ov.Result"(%16) <{friendly_name = "dqc"}> : (tensor<2x3xf32>) -> ()
}

// CHECK:      %[[LO:.*]] = "ov.Constant"() <{value = dense<-3.500000e-01> : tensor<f32>}>
// CHECK-NEXT: %[[HI:.*]] = "ov.Constant"() <{value = dense<12.4000006> : tensor<f32>}>
// CHECK-NEXT: %[[FQ:.*]] = "ov.FakeQuantize"(%x, %[[LO]], %[[HI]], %[[LO]], %[[HI]]) <{levels = 256 : i64, friendly_name = "dq/FakeQuantize"
// CHECK-NEXT: %{{.*}} = "ov.Reshape"(%[[FQ]], %{{.*}}) <{special_zero = false, friendly_name = "dq", tensor_names = {{\[\["dq"\]\]}}
// the per-channel near miss keeps its quantize
// CHECK:      "ov.Round"
// CHECK:      "ov.Convert"{{.*}}"i8"
// CHECK-NOT:  "ov.FakeQuantize"
