// RUN: xmo-opt %s -p ov-fusions | filecheck %s
// fake-quantize-fusion (passes/ov_fusions/quantization.py): a QuantizeLinear ->
// DequantizeLinear pair as converted (x * 1/s, Round, + zp, Clamp, Convert u8,
// Convert f32, - zp, * s) becomes one FakeQuantize with lo = (0 - zp) * s,
// hi = (255 - zp) * s, levels 256, named as the dequantize. Near miss: a
// dequantize with another scale (and no zero point) keeps the ops.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x3xf32>
  %inv = "ov.Constant"() <{value = dense<2.000000e+01> : tensor<f32>}> : () -> tensor<f32>
  %zp = "ov.Constant"() <{value = dense<7.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %s = "ov.Constant"() <{value = dense<5.000000e-02> : tensor<f32>}> : () -> tensor<f32>
  %s2 = "ov.Constant"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %0 = "ov.Multiply"(%x, %inv) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = "ov.Round"(%0) <{mode = "half_to_even"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "ov.Add"(%1, %zp) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = "ov.Clamp"(%2) <{min = 0.0 : f64, max = 255.0 : f64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = "ov.Convert"(%3) <{destination_type = "u8", friendly_name = "q"}> : (tensor<2x3xf32>) -> tensor<2x3xui8>
  %5 = "ov.Convert"(%4) <{destination_type = "f32"}> : (tensor<2x3xui8>) -> tensor<2x3xf32>
  %6 = "ov.Subtract"(%5, %zp) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %7 = "ov.Multiply"(%6, %s) <{friendly_name = "dq", tensor_names = [["dq"]]}> : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  "ov.Result"(%7) <{friendly_name = "dq"}> : (tensor<2x3xf32>) -> ()
  %8 = "ov.Multiply"(%5, %s2) <{friendly_name = "dq2", tensor_names = [["dq2"]]}> : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  "ov.Result"(%8) <{friendly_name = "dq2"}> : (tensor<2x3xf32>) -> ()
}

// the quantize's ops stay for the near miss
// CHECK:      "ov.Round"
// CHECK:      "ov.Convert"{{.*}}"u8"
// CHECK:      %[[LO:.*]] = "ov.Constant"() <{value = dense<-3.500000e-01> : tensor<f32>}>
// CHECK-NEXT: %[[HI:.*]] = "ov.Constant"() <{value = dense<12.4000006> : tensor<f32>}>
// CHECK-NEXT: %{{.*}} = "ov.FakeQuantize"(%x, %[[LO]], %[[HI]], %[[LO]], %[[HI]]) <{levels = 256 : i64, friendly_name = "dq", tensor_names = {{\[\["dq"\]\]}}
// CHECK:      "ov.Multiply"{{.*}}friendly_name = "dq2"
// CHECK-NOT:  "ov.FakeQuantize"
