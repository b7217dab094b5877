// RUN: xmo-opt %s -p ov-fusions | filecheck %s
// Activation fusions (passes/ov_fusions/activations.py): each decomposed
// activation becomes one op that keeps the last op's friendly and tensor
// names. Near misses: Log(Exp(x) + 2), x' * Sigmoid(x) with another x',
// Erf(x * 0.5) (not 1/sqrt(2)).

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x8xf32>
  %1 = "ov.Exp"(%0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %2 = "ov.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %3 = "ov.Add"(%1, %2) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %4 = "ov.Log"(%3) <{friendly_name = "softplus", tensor_names = [["softplus"]]}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%4) <{friendly_name = "softplus"}> : (tensor<2x8xf32>) -> ()
  %5 = "ov.Exp"(%0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %6 = "ov.Constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %7 = "ov.Add"(%5, %6) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %8 = "ov.Log"(%7) <{friendly_name = "not_softplus", tensor_names = [["not_softplus"]]}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%8) <{friendly_name = "not_softplus"}> : (tensor<2x8xf32>) -> ()
  %9 = "ov.Sigmoid"(%0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %10 = "ov.Multiply"(%0, %9) <{friendly_name = "swish", tensor_names = [["swish"]]}> : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%10) <{friendly_name = "swish"}> : (tensor<2x8xf32>) -> ()
  %11 = "ov.Parameter"() <{friendly_name = "z", tensor_names = [["z"]]}> : () -> tensor<2x8xf32>
  %12 = "ov.Sigmoid"(%0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %13 = "ov.Multiply"(%11, %12) <{friendly_name = "not_swish", tensor_names = [["not_swish"]]}> : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%13) <{friendly_name = "not_swish"}> : (tensor<2x8xf32>) -> ()
  %14 = "ov.Constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %15 = "ov.Add"(%0, %14) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %16 = "ov.Clamp"(%15) <{min = 0.000000e+00 : f64, max = 6.000000e+00 : f64}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %17 = "ov.Constant"() <{value = dense<6.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %18 = "ov.Divide"(%16, %17) <{friendly_name = "hsigmoid", tensor_names = [["hsigmoid"]]}> : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  "ov.Result"(%18) <{friendly_name = "hsigmoid"}> : (tensor<2x8xf32>) -> ()
  %19 = "ov.Constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %20 = "ov.Add"(%0, %19) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %21 = "ov.Clamp"(%20) <{min = 0.000000e+00 : f64, max = 6.000000e+00 : f64}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %22 = "ov.Constant"() <{value = dense<0.166666672> : tensor<f32>}> : () -> tensor<f32>
  %23 = "ov.Multiply"(%21, %22) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %24 = "ov.Multiply"(%0, %23) <{friendly_name = "hswish", tensor_names = [["hswish"]]}> : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%24) <{friendly_name = "hswish"}> : (tensor<2x8xf32>) -> ()
  %25 = "ov.SoftPlus"(%0) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %26 = "ov.Tanh"(%25) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %27 = "ov.Multiply"(%0, %26) <{friendly_name = "mish", tensor_names = [["mish"]]}> : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%27) <{friendly_name = "mish"}> : (tensor<2x8xf32>) -> ()
  %28 = "ov.Constant"() <{value = dense<1.41421354> : tensor<f32>}> : () -> tensor<f32>
  %29 = "ov.Divide"(%0, %28) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %30 = "ov.Erf"(%29) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %31 = "ov.Constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %32 = "ov.Multiply"(%0, %31) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %33 = "ov.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %34 = "ov.Add"(%30, %33) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %35 = "ov.Multiply"(%32, %34) <{friendly_name = "gelu", tensor_names = [["gelu"]]}> : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%35) <{friendly_name = "gelu"}> : (tensor<2x8xf32>) -> ()
  %36 = "ov.Constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %37 = "ov.Multiply"(%0, %36) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %38 = "ov.Erf"(%37) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %39 = "ov.Constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %40 = "ov.Multiply"(%0, %39) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %41 = "ov.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %42 = "ov.Add"(%38, %41) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %43 = "ov.Multiply"(%40, %42) <{friendly_name = "not_gelu", tensor_names = [["not_gelu"]]}> : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%43) <{friendly_name = "not_gelu"}> : (tensor<2x8xf32>) -> ()
  %44 = "ov.Constant"() <{value = dense<3.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %45 = "ov.Power"(%0, %44) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %46 = "ov.Constant"() <{value = dense<4.471500e-02> : tensor<f32>}> : () -> tensor<f32>
  %47 = "ov.Multiply"(%45, %46) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %48 = "ov.Add"(%0, %47) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %49 = "ov.Constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
  %50 = "ov.Multiply"(%48, %49) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %51 = "ov.Tanh"(%50) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %52 = "ov.Constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %53 = "ov.Multiply"(%0, %52) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %54 = "ov.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %55 = "ov.Add"(%51, %54) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %56 = "ov.Multiply"(%53, %55) <{friendly_name = "gelu_tanh", tensor_names = [["gelu_tanh"]]}> : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  "ov.Result"(%56) <{friendly_name = "gelu_tanh"}> : (tensor<2x8xf32>) -> ()
}

// CHECK:      "ov.SoftPlus"(%0) <{friendly_name = "softplus", tensor_names = {{\[\[}}"softplus"]]}>
// CHECK:      %[[E:.*]] = "ov.Exp"(%0)
// CHECK:      "ov.Log"({{.*}}friendly_name = "not_softplus"
// CHECK:      "ov.Swish"(%0) <{friendly_name = "swish"
// CHECK:      %[[S:.*]] = "ov.Sigmoid"(%0)
// CHECK-NEXT: "ov.Multiply"(%{{.*}}, %[[S]]) <{friendly_name = "not_swish"
// CHECK:      "ov.HSigmoid"(%0) <{friendly_name = "hsigmoid"
// CHECK:      "ov.HSwish"(%0) <{friendly_name = "hswish"
// CHECK:      "ov.Mish"(%0) <{friendly_name = "mish"
// CHECK:      "ov.Gelu"(%0) <{approximation_mode = "ERF", friendly_name = "gelu"
// CHECK:      "ov.Erf"
// CHECK:      "ov.Multiply"({{.*}}friendly_name = "not_gelu"
// CHECK:      "ov.Gelu"(%0) <{approximation_mode = "TANH", friendly_name = "gelu_tanh"
// CHECK-NOT:  "ov.Tanh"
// CHECK-NOT:  "ov.Power"
