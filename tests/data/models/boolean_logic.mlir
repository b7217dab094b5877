// Comparisons, logical ops and Select (a masked blend).
builtin.module {
  %a = "ov.Parameter"() <{friendly_name = "a", tensor_names = [["a"]]}> : () -> tensor<2x4xf32>
  %b = "ov.Parameter"() <{friendly_name = "b", tensor_names = [["b"]]}> : () -> tensor<2x4xf32>
  %ia = "ov.Parameter"() <{friendly_name = "ia", tensor_names = [["ia"]]}> : () -> tensor<2x4xi32>
  %ib = "ov.Parameter"() <{friendly_name = "ib", tensor_names = [["ib"]]}> : () -> tensor<4xi32>
  %eq = "ov.Equal"(%ia, %ib) : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi1>
  %ne = "ov.NotEqual"(%ia, %ib) : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi1>
  %lt = "ov.Less"(%a, %b) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  %zero = "ov.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %gt = "ov.Greater"(%a, %zero) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xi1>
  %and = "ov.LogicalAnd"(%lt, %gt) : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  %or = "ov.LogicalOr"(%and, %eq) : (tensor<2x4xi1>, tensor<2x4xi1>) -> tensor<2x4xi1>
  %not = "ov.LogicalNot"(%or) : (tensor<2x4xi1>) -> tensor<2x4xi1>
  %sel = "ov.Select"(%not, %a, %b) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %mask = "ov.Convert"(%ne) <{destination_type = "f32"}> : (tensor<2x4xi1>) -> tensor<2x4xf32>
  "ov.Result"(%sel) : (tensor<2x4xf32>) -> ()
  "ov.Result"(%mask) : (tensor<2x4xf32>) -> ()
  "ov.Result"(%or) : (tensor<2x4xi1>) -> ()
}
