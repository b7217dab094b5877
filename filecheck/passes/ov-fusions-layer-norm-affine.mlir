// RUN: xmo-opt %s -p ov-fusions,ov-dce | filecheck %s
// mvn-affine-fusion (passes/ov_fusions/normalization.py): Keras' LayerNormalization as TensorFlow
// computes it (moments, Rsqrt = 1 / Sqrt, inv * gamma, x * inv + (beta - mean * inv))
// -> MVN * gamma + beta, the last op keeping the root's names. Near miss: the variance
// reduced over another axis (only the Rsqrt becomes a Power).

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x4x8xf32>
  %1 = "ov.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %2 = "ov.ReduceMean"(%0, %1) <{keep_dims = true}> : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %3 = "ov.SquaredDifference"(%0, %2) : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %4 = "ov.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %5 = "ov.ReduceMean"(%3, %4) <{keep_dims = true}> : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %6 = "ov.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %7 = "ov.Constant"() <{value = dense<1.000000e-06> : tensor<f32>}> : () -> tensor<f32>
  %8 = "ov.Add"(%5, %7) : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %9 = "ov.Sqrt"(%8) <{friendly_name = "ln/Rsqrt/Sqrt"}> : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %10 = "ov.Divide"(%6, %9) <{friendly_name = "ln/Rsqrt"}> : (tensor<f32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %11 = "ov.Constant"() <{value = dense<[[[5.000000e-01, 0.642857134, 0.785714269, 0.928571403, 1.07142854, 1.21428573, 1.35714281, 1.500000e+00]]]> : tensor<1x1x8xf32>}> : () -> tensor<1x1x8xf32>
  %12 = "ov.Multiply"(%10, %11) <{friendly_name = "ln/mul"}> : (tensor<2x4x1xf32>, tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
  %13 = "ov.Negative"(%2) <{friendly_name = "ln/Neg"}> : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %14 = "ov.Multiply"(%13, %12) <{friendly_name = "ln/mul_1"}> : (tensor<2x4x1xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %15 = "ov.Constant"() <{value = dense<[[[-1.000000e+00, -0.714285731, -0.428571433, -0.142857149, 0.142857149, 0.428571433, 0.714285731, 1.000000e+00]]]> : tensor<1x1x8xf32>}> : () -> tensor<1x1x8xf32>
  %16 = "ov.Add"(%14, %15) <{friendly_name = "ln/add_1"}> : (tensor<2x4x8xf32>, tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
  %17 = "ov.Multiply"(%0, %12) <{friendly_name = "ln/mul_2"}> : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %18 = "ov.Add"(%17, %16) <{friendly_name = "ln/add_2", tensor_names = [["ln/add_2:0"]]}> : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  "ov.Result"(%18) <{friendly_name = "ln/add_2:0"}> : (tensor<2x4x8xf32>) -> ()
  %19 = "ov.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %20 = "ov.ReduceMean"(%0, %19) <{keep_dims = true}> : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %21 = "ov.SquaredDifference"(%0, %20) : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %22 = "ov.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %23 = "ov.ReduceMean"(%21, %22) <{keep_dims = true}> : (tensor<2x4x8xf32>, tensor<1xi64>) -> tensor<2x1x8xf32>
  %24 = "ov.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %25 = "ov.Constant"() <{value = dense<1.000000e-06> : tensor<f32>}> : () -> tensor<f32>
  %26 = "ov.Add"(%23, %25) : (tensor<2x1x8xf32>, tensor<f32>) -> tensor<2x1x8xf32>
  %27 = "ov.Sqrt"(%26) : (tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %28 = "ov.Divide"(%24, %27) : (tensor<f32>, tensor<2x1x8xf32>) -> tensor<2x1x8xf32>
  %29 = "ov.Multiply"(%0, %28) : (tensor<2x4x8xf32>, tensor<2x1x8xf32>) -> tensor<2x4x8xf32>
  %30 = "ov.Negative"(%20) : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %31 = "ov.Multiply"(%30, %28) : (tensor<2x4x1xf32>, tensor<2x1x8xf32>) -> tensor<2x4x8xf32>
  %32 = "ov.Add"(%29, %31) <{friendly_name = "not_ln", tensor_names = [["not_ln"]]}> : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  "ov.Result"(%32) <{friendly_name = "not_ln"}> : (tensor<2x4x8xf32>) -> ()
}

// CHECK:      %[[G:.*]] = "ov.Constant"() <{value = dense<{{\[\[\[}}5.000000e-01
// CHECK-NEXT: %[[B:.*]] = "ov.Constant"() <{value = dense<{{\[\[\[}}-1.000000e+00
// CHECK-NEXT: %[[A:.*]] = "ov.Constant"() <{value = dense<2> : tensor<1xi64>}>
// CHECK-NEXT: %[[M:.*]] = "ov.MVN"(%0, %[[A]]) <{eps = 9.99{{[0-9]*}}e-07 : f64, normalize_variance = true, eps_mode = "INSIDE_SQRT", friendly_name = "ln/add_2/MVN"}>
// CHECK-NEXT: %[[S:.*]] = "ov.Multiply"(%[[M]], %[[G]]) <{friendly_name = "ln/add_2/Multiply"}>
// CHECK-NEXT: %[[Y:.*]] = "ov.Add"(%[[S]], %[[B]]) <{friendly_name = "ln/add_2", tensor_names = {{\[\[}}"ln/add_2:0"]]}>
// CHECK-NEXT: "ov.Result"(%[[Y]])
// CHECK-NOT:  "ov.MVN"
// CHECK:      "ov.SquaredDifference"
// CHECK:      "ov.Power"
// CHECK:      "ov.Negative"
// CHECK:      "ov.Add"({{.*}}friendly_name = "not_ln"
