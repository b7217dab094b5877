// Shape sub-graph: ShapeOf -> Gather -> Concat -> Reshape; Unsqueeze/Squeeze, Range, Broadcast, Tile.
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<2x3x4xf32>
  %shape = "ov.ShapeOf"(%x) : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %i0 = "ov.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ax0 = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %batch = "ov.Gather"(%shape, %i0, %ax0) : (tensor<3xi64>, tensor<1xi64>, tensor<i64>) -> tensor<1xi64>
  %minus1 = "ov.Constant"() <{value = dense<[-1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %target = "ov.Concat"(%batch, %minus1) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %flat = "ov.Reshape"(%x, %target) <{special_zero = false}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %un = "ov.Unsqueeze"(%x, %ax0) : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<1x2x3x4xf32>
  %sq = "ov.Squeeze"(%un, %ax0) : (tensor<1x2x3x4xf32>, tensor<i64>) -> tensor<2x3x4xf32>
  %r0 = "ov.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %r1 = "ov.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %r2 = "ov.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %ramp = "ov.Range"(%r0, %r1, %r2) <{output_type = "f32"}> : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  %shifted = "ov.Add"(%sq, %ramp) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %row = "ov.Constant"() <{value = dense<[[-1.0], [0.0], [1.0]]> : tensor<3x1xf32>}> : () -> tensor<3x1xf32>
  %bshape = "ov.Constant"() <{value = dense<[2, 3, 4]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %bc = "ov.Broadcast"(%row, %bshape) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %sum = "ov.Add"(%shifted, %bc) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %reps = "ov.Constant"() <{value = dense<[1, 2, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %tiled = "ov.Tile"(%sum, %reps) : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x6x4xf32>
  "ov.Result"(%flat) : (tensor<?x?xf32>) -> ()
  "ov.Result"(%tiled) : (tensor<2x6x4xf32>) -> ()
  "ov.Result"(%shape) : (tensor<3xi64>) -> ()
}
