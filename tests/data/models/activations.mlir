// Unary activations on one input, each to its own Result; Log and Sqrt of |x| + 1.
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x3x4xf32>
  %a0 = "ov.Sigmoid"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a0) : (tensor<2x3x4xf32>) -> ()
  %a1 = "ov.Tanh"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a1) : (tensor<2x3x4xf32>) -> ()
  %a2 = "ov.Exp"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a2) : (tensor<2x3x4xf32>) -> ()
  %a3 = "ov.Negative"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a3) : (tensor<2x3x4xf32>) -> ()
  %a4 = "ov.Floor"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a4) : (tensor<2x3x4xf32>) -> ()
  %a5 = "ov.Ceiling"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a5) : (tensor<2x3x4xf32>) -> ()
  %a6 = "ov.Erf"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a6) : (tensor<2x3x4xf32>) -> ()
  %a7 = "ov.Gelu"(%x) <{approximation_mode = "ERF"}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a7) : (tensor<2x3x4xf32>) -> ()
  %a8 = "ov.Gelu"(%x) <{approximation_mode = "TANH"}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a8) : (tensor<2x3x4xf32>) -> ()
  %a9 = "ov.Swish"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a9) : (tensor<2x3x4xf32>) -> ()
  %a10 = "ov.HSwish"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a10) : (tensor<2x3x4xf32>) -> ()
  %a11 = "ov.HSigmoid"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a11) : (tensor<2x3x4xf32>) -> ()
  %a12 = "ov.Mish"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a12) : (tensor<2x3x4xf32>) -> ()
  %a13 = "ov.SoftPlus"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a13) : (tensor<2x3x4xf32>) -> ()
  %a14 = "ov.Elu"(%x) <{alpha = 0.5 : f64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a14) : (tensor<2x3x4xf32>) -> ()
  %a15 = "ov.Relu"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%a15) : (tensor<2x3x4xf32>) -> ()
  %beta = "ov.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %swb = "ov.Swish"(%x, %beta) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  "ov.Result"(%swb) : (tensor<2x3x4xf32>) -> ()
  %abs = "ov.Abs"(%x) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %one = "ov.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %pos = "ov.Add"(%abs, %one) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %log = "ov.Log"(%pos) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %sqrt = "ov.Sqrt"(%pos) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  "ov.Result"(%log) : (tensor<2x3x4xf32>) -> ()
  "ov.Result"(%sqrt) : (tensor<2x3x4xf32>) -> ()
}
