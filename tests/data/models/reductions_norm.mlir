// Reductions (keep_dims on/off, negative axes) and normalizations: MVN, NormalizeL2.
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x3x4x5xf32>
  %a1 = "ov.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %a23 = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %am1 = "ov.Constant"() <{value = dense<-1> : tensor<i64>}> : () -> tensor<i64>
  %a0 = "ov.Constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %sum = "ov.ReduceSum"(%x, %a1) <{keep_dims = true}> : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x1x4x5xf32>
  %mean = "ov.ReduceMean"(%x, %a23) : (tensor<2x3x4x5xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %max = "ov.ReduceMax"(%x, %am1) : (tensor<2x3x4x5xf32>, tensor<i64>) -> tensor<2x3x4xf32>
  %min = "ov.ReduceMin"(%x, %a0) <{keep_dims = true}> : (tensor<2x3x4x5xf32>, tensor<i32>) -> tensor<1x3x4x5xf32>
  %prod = "ov.ReduceProd"(%x, %am1) : (tensor<2x3x4x5xf32>, tensor<i64>) -> tensor<2x3x4xf32>
  %l2 = "ov.ReduceL2"(%x, %a1) : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x4x5xf32>
  %mvn = "ov.MVN"(%x, %a23) <{eps = 1.0e-09 : f64, normalize_variance = true, eps_mode = "INSIDE_SQRT"}> : (tensor<2x3x4x5xf32>, tensor<2xi64>) -> tensor<2x3x4x5xf32>
  %mvn2 = "ov.MVN"(%x, %a1) <{eps = 1.0e-05 : f64, normalize_variance = false, eps_mode = "OUTSIDE_SQRT"}> : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x3x4x5xf32>
  %l2n = "ov.NormalizeL2"(%x, %a1) <{eps = 1.0e-12 : f64, eps_mode = "add"}> : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x3x4x5xf32>
  "ov.Result"(%sum) : (tensor<2x1x4x5xf32>) -> ()
  "ov.Result"(%mean) : (tensor<2x3xf32>) -> ()
  "ov.Result"(%max) : (tensor<2x3x4xf32>) -> ()
  "ov.Result"(%min) : (tensor<1x3x4x5xf32>) -> ()
  "ov.Result"(%prod) : (tensor<2x3x4xf32>) -> ()
  "ov.Result"(%l2) : (tensor<2x4x5xf32>) -> ()
  "ov.Result"(%mvn) : (tensor<2x3x4x5xf32>) -> ()
  "ov.Result"(%mvn2) : (tensor<2x3x4x5xf32>) -> ()
  "ov.Result"(%l2n) : (tensor<2x3x4x5xf32>) -> ()
}
