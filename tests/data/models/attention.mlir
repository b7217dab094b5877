// Self-attention block: fused QKV MatMul, Split, Reshape/Transpose to heads, scaled QK^T, Softmax, context MatMul, VariadicSplit/Concat, LogSoftmax.
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x4x8xf32>
  %wqkv = "ov.Constant"() <{value = dense<[[-0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5], [-0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25], [-0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0], [0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25], [0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5], [0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625], [-0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375], [-0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125, 0.0, 0.125, 0.25, 0.375, 0.5, 0.625, -0.625, -0.5, -0.375, -0.25, -0.125]]> : tensor<8x24xf32>}> : () -> tensor<8x24xf32>
  %qkv = "ov.MatMul"(%x, %wqkv) : (tensor<1x4x8xf32>, tensor<8x24xf32>) -> tensor<1x4x24xf32>
  %axis2 = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %q, %k, %v = "ov.Split"(%qkv, %axis2) <{num_splits = 3 : i64}> : (tensor<1x4x24xf32>, tensor<i64>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1x4x8xf32>)
  %heads = "ov.Constant"() <{value = dense<[1, 4, 2, 4]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %perm = "ov.Constant"() <{value = dense<[0, 2, 1, 3]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %qr = "ov.Reshape"(%q, %heads) <{special_zero = false}> : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %qt = "ov.Transpose"(%qr, %perm) : (tensor<1x4x2x4xf32>, tensor<4xi64>) -> tensor<1x2x4x4xf32>
  %kr = "ov.Reshape"(%k, %heads) <{special_zero = false}> : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %kt = "ov.Transpose"(%kr, %perm) : (tensor<1x4x2x4xf32>, tensor<4xi64>) -> tensor<1x2x4x4xf32>
  %vr = "ov.Reshape"(%v, %heads) <{special_zero = false}> : (tensor<1x4x8xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %vt = "ov.Transpose"(%vr, %perm) : (tensor<1x4x2x4xf32>, tensor<4xi64>) -> tensor<1x2x4x4xf32>
  %scores = "ov.MatMul"(%qt, %kt) <{transpose_b = true}> : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %scale = "ov.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %scaled = "ov.Multiply"(%scores, %scale) : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %probs = "ov.Softmax"(%scaled) <{axis = -1 : i64}> : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %ctx = "ov.MatMul"(%probs, %vt) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %ctxt = "ov.Transpose"(%ctx, %perm) : (tensor<1x2x4x4xf32>, tensor<4xi64>) -> tensor<1x4x2x4xf32>
  %flat = "ov.Constant"() <{value = dense<[0, 0, -1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %merged = "ov.Reshape"(%ctxt, %flat) <{special_zero = true}> : (tensor<1x4x2x4xf32>, tensor<3xi64>) -> tensor<1x4x8xf32>
  %lens = "ov.Constant"() <{value = dense<[3, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %lo, %hi = "ov.VariadicSplit"(%merged, %axis2, %lens) : (tensor<1x4x8xf32>, tensor<i64>, tensor<2xi64>) -> (tensor<1x4x3xf32>, tensor<1x4x5xf32>)
  %swapped = "ov.Concat"(%hi, %lo) <{axis = 2 : i64}> : (tensor<1x4x5xf32>, tensor<1x4x3xf32>) -> tensor<1x4x8xf32>
  %logp = "ov.LogSoftmax"(%swapped) <{axis = 2 : i64}> : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  "ov.Result"(%logp) : (tensor<1x4x8xf32>) -> ()
  "ov.Result"(%probs) : (tensor<1x2x4x4xf32>) -> ()
}
