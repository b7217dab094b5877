// RUN: xmo-opt %s -p ov-fusions | filecheck %s
// Normalization fusions (passes/ov_fusions/normalization.py): LayerNorm's
// (x - mean) / sqrt(var + eps) -> MVN over the last axis; x / sqrt(max(sum(x^2), eps))
// -> NormalizeL2. Near miss: the variance reduced over another axis.

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x4x16xf32>
  %1 = "ov.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %2 = "ov.ReduceMean"(%0, %1) <{keep_dims = true}> : (tensor<2x4x16xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %3 = "ov.Subtract"(%0, %2) : (tensor<2x4x16xf32>, tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
  %4 = "ov.Constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %5 = "ov.Power"(%3, %4) : (tensor<2x4x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
  %6 = "ov.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %7 = "ov.ReduceMean"(%5, %6) <{keep_dims = true}> : (tensor<2x4x16xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %8 = "ov.Constant"() <{value = dense<1.000000e-05> : tensor<f32>}> : () -> tensor<f32>
  %9 = "ov.Add"(%7, %8) : (tensor<2x4x1xf32>, tensor<f32>) -> tensor<2x4x1xf32>
  %10 = "ov.Sqrt"(%9) : (tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  %11 = "ov.Divide"(%3, %10) <{friendly_name = "mvn", tensor_names = [["mvn"]]}> : (tensor<2x4x16xf32>, tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
  "ov.Result"(%11) <{friendly_name = "mvn"}> : (tensor<2x4x16xf32>) -> ()
  %12 = "ov.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %13 = "ov.ReduceMean"(%0, %12) <{keep_dims = true}> : (tensor<2x4x16xf32>, tensor<1xi64>) -> tensor<2x4x1xf32>
  %14 = "ov.Subtract"(%0, %13) : (tensor<2x4x16xf32>, tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
  %15 = "ov.Constant"() <{value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %16 = "ov.Power"(%14, %15) : (tensor<2x4x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
  %17 = "ov.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %18 = "ov.ReduceMean"(%16, %17) <{keep_dims = true}> : (tensor<2x4x16xf32>, tensor<1xi64>) -> tensor<2x1x16xf32>
  %19 = "ov.Constant"() <{value = dense<1.000000e-05> : tensor<f32>}> : () -> tensor<f32>
  %20 = "ov.Add"(%18, %19) : (tensor<2x1x16xf32>, tensor<f32>) -> tensor<2x1x16xf32>
  %21 = "ov.Sqrt"(%20) : (tensor<2x1x16xf32>) -> tensor<2x1x16xf32>
  %22 = "ov.Divide"(%14, %21) <{friendly_name = "not_mvn", tensor_names = [["not_mvn"]]}> : (tensor<2x4x16xf32>, tensor<2x1x16xf32>) -> tensor<2x4x16xf32>
  "ov.Result"(%22) <{friendly_name = "not_mvn"}> : (tensor<2x4x16xf32>) -> ()
  %23 = "ov.Multiply"(%0, %0) : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %24 = "ov.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %25 = "ov.ReduceSum"(%23, %24) <{keep_dims = true}> : (tensor<2x4x16xf32>, tensor<1xi64>) -> tensor<2x1x16xf32>
  %26 = "ov.Constant"() <{value = dense<1.000000e-12> : tensor<f32>}> : () -> tensor<f32>
  %27 = "ov.Maximum"(%25, %26) : (tensor<2x1x16xf32>, tensor<f32>) -> tensor<2x1x16xf32>
  %28 = "ov.Sqrt"(%27) : (tensor<2x1x16xf32>) -> tensor<2x1x16xf32>
  %29 = "ov.Divide"(%0, %28) <{friendly_name = "l2", tensor_names = [["l2"]]}> : (tensor<2x4x16xf32>, tensor<2x1x16xf32>) -> tensor<2x4x16xf32>
  "ov.Result"(%29) <{friendly_name = "l2"}> : (tensor<2x4x16xf32>) -> ()
}

// CHECK:      %[[A:.*]] = "ov.Constant"() <{value = dense<2> : tensor<1xi64>}>
// CHECK-NEXT: "ov.MVN"(%0, %[[A]]) <{eps = 9.99{{[0-9]*}}e-06 : f64, normalize_variance = true, eps_mode = "INSIDE_SQRT", friendly_name = "mvn", tensor_names = {{\[\[}}"mvn"]]}>
// CHECK:      "ov.ReduceMean"
// CHECK:      "ov.Divide"({{.*}}friendly_name = "not_mvn"
// CHECK:      "ov.NormalizeL2"(%0, %{{.*}}) <{eps = {{.*}}, eps_mode = "max", friendly_name = "l2"
// CHECK-NOT:  "ov.ReduceSum"
