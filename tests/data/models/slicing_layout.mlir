// Slicing, padding and layout: StridedSlice, Slice, Pad (constant, reflect), DepthToSpace, SpaceToDepth.
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x4x6x6xf32>
  %b = "ov.Constant"() <{value = dense<[0, 0, 1, 0]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %e = "ov.Constant"() <{value = dense<[1, 4, 5, 6]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %s = "ov.Constant"() <{value = dense<[1, 1, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %ss = "ov.StridedSlice"(%x, %b, %e, %s) <{begin_mask = array<i64: 1, 1, 0, 0>, end_mask = array<i64: 1, 1, 0, 0>}> : (tensor<1x4x6x6xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) -> tensor<1x4x4x3xf32>
  %start = "ov.Constant"() <{value = dense<[5, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %stop = "ov.Constant"() <{value = dense<[0, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %step = "ov.Constant"() <{value = dense<[-2, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %axes = "ov.Constant"() <{value = dense<[3, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %sl = "ov.Slice"(%x, %start, %stop, %step, %axes) : (tensor<1x4x6x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x6x3xf32>
  %pb = "ov.Constant"() <{value = dense<[0, 0, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %pe = "ov.Constant"() <{value = dense<[0, 0, 2, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %pv = "ov.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %padc = "ov.Pad"(%x, %pb, %pe, %pv) <{pad_mode = "constant"}> : (tensor<1x4x6x6xf32>, tensor<4xi64>, tensor<4xi64>, tensor<f32>) -> tensor<1x4x9x9xf32>
  %padr = "ov.Pad"(%x, %pb, %pe) <{pad_mode = "reflect"}> : (tensor<1x4x6x6xf32>, tensor<4xi64>, tensor<4xi64>) -> tensor<1x4x9x9xf32>
  %d2s = "ov.DepthToSpace"(%x) <{block_size = 2 : i64, mode = "blocks_first"}> : (tensor<1x4x6x6xf32>) -> tensor<1x1x12x12xf32>
  %s2d = "ov.SpaceToDepth"(%x) <{block_size = 3 : i64, mode = "depth_first"}> : (tensor<1x4x6x6xf32>) -> tensor<1x36x2x2xf32>
  "ov.Result"(%ss) : (tensor<1x4x4x3xf32>) -> ()
  "ov.Result"(%sl) : (tensor<1x3x6x3xf32>) -> ()
  "ov.Result"(%padc) : (tensor<1x4x9x9xf32>) -> ()
  "ov.Result"(%padr) : (tensor<1x4x9x9xf32>) -> ()
  "ov.Result"(%d2s) : (tensor<1x1x12x12xf32>) -> ()
  "ov.Result"(%s2d) : (tensor<1x36x2x2xf32>) -> ()
}
