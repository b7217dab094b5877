// Detection-style post-processing: TopK scores, Gather boxes, GatherND, ScatterUpdate.
builtin.module {
  %scores = "ov.Parameter"() <{friendly_name = "scores", tensor_names = [["scores"]]}> : () -> tensor<1x10xf32>
  %boxes = "ov.Parameter"() <{friendly_name = "boxes", tensor_names = [["boxes"]]}> : () -> tensor<10x4xf32>
  %k = "ov.Constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %top, %idx = "ov.TopK"(%scores, %k) <{axis = 1 : i64, mode = "max", sort = "value", index_element_type = "i32"}> : (tensor<1x10xf32>, tensor<i64>) -> (tensor<1x3xf32>, tensor<1x3xi32>)
  %ax0 = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %idx1 = "ov.Squeeze"(%idx, %ax0) : (tensor<1x3xi32>, tensor<i64>) -> tensor<3xi32>
  %sel = "ov.Gather"(%boxes, %idx1, %ax0) : (tensor<10x4xf32>, tensor<3xi32>, tensor<i64>) -> tensor<3x4xf32>
  %nd_idx = "ov.Constant"() <{value = dense<[[0, 1], [2, 3], [9, 0]]> : tensor<3x2xi64>}> : () -> tensor<3x2xi64>
  %corners = "ov.GatherND"(%boxes, %nd_idx) : (tensor<10x4xf32>, tensor<3x2xi64>) -> tensor<3xf32>
  %half = "ov.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %shrunk = "ov.Multiply"(%sel, %half) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %upd = "ov.ScatterUpdate"(%boxes, %idx1, %shrunk, %ax0) : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>, tensor<i64>) -> tensor<10x4xf32>
  "ov.Result"(%top) : (tensor<1x3xf32>) -> ()
  "ov.Result"(%idx) : (tensor<1x3xi32>) -> ()
  "ov.Result"(%corners) : (tensor<3xf32>) -> ()
  "ov.Result"(%upd) : (tensor<10x4xf32>) -> ()
}
