// Binary arithmetic with numpy broadcasting, Power of a positive base, integer Divide/Convert.
builtin.module {
  %a = "ov.Parameter"() <{friendly_name = "a", tensor_names = [["a"]]}> : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() <{friendly_name = "b", tensor_names = [["b"]]}> : () -> tensor<3xf32>
  %add = "ov.Add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %sub = "ov.Subtract"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %mul = "ov.Multiply"(%add, %sub) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %two = "ov.Constant"() <{value = dense<[2.0, 4.0, 8.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %div = "ov.Divide"(%mul, %two) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %max = "ov.Maximum"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %min = "ov.Minimum"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %sqd = "ov.SquaredDifference"(%max, %min) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %absa = "ov.Abs"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %eps = "ov.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %base = "ov.Add"(%absa, %eps) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %expo = "ov.Constant"() <{value = dense<[0.5, 2.0, 3.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %pow = "ov.Power"(%base, %expo) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %scale = "ov.Constant"() <{value = dense<10.0> : tensor<f32>}> : () -> tensor<f32>
  %big = "ov.Multiply"(%a, %scale) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %ia = "ov.Convert"(%big) <{destination_type = "i32"}> : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %three = "ov.Constant"() <{value = dense<[3, -4, 5]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %idiv = "ov.Divide"(%ia, %three) <{m_pythondiv = true}> : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %back = "ov.Convert"(%idiv) <{destination_type = "f32"}> : (tensor<2x3xi32>) -> tensor<2x3xf32>
  "ov.Result"(%div) : (tensor<2x3xf32>) -> ()
  "ov.Result"(%sqd) : (tensor<2x3xf32>) -> ()
  "ov.Result"(%pow) : (tensor<2x3xf32>) -> ()
  "ov.Result"(%back) : (tensor<2x3xf32>) -> ()
  "ov.Result"(%ia) : (tensor<2x3xi32>) -> ()
}
