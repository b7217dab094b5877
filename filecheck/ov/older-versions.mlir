// RUN: xmo-opt %s | xmo-opt | filecheck %s
// Older op versions that IR files may still hold parse, verify and print under
// their own names (ov.<Type>_opset<N>).

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x8x8xf32>
  %v = "ov.Parameter"() : () -> tensor<4x5xf32>
  %idx = "ov.Constant"() <{value = dense<[0, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ax = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %k = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %tgt = "ov.Constant"() <{value = dense<[2, 4, 5]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %r0 = "ov.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %r1 = "ov.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %r2 = "ov.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %r0i = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %g3 = "ov.Constant"() <{value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %0, %1 = "ov.MaxPool_opset8"(%x) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>, index_element_type = "i32", axis = 0 : i64}> : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi32>)
  %2 = "ov.MaxPool_opset1"(%x) <{strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>, rounding_type = "ceil"}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  %3 = "ov.AvgPool_opset1"(%x) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = false}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  %4 = "ov.AvgPool_opset14"(%x) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = true, rounding_type = "ceil_torch"}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  %5 = "ov.Gather_opset1"(%v, %idx, %ax) : (tensor<4x5xf32>, tensor<2xi64>, tensor<i64>) -> tensor<4x2xf32>
  %6 = "ov.Gather_opset7"(%v, %idx, %ax) <{batch_dims = 0 : i64}> : (tensor<4x5xf32>, tensor<2xi64>, tensor<i64>) -> tensor<4x2xf32>
  %7 = "ov.Softmax_opset1"(%v) <{axis = 1 : i64}> : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %8, %9 = "ov.TopK_opset3"(%v, %k) <{axis = 1 : i64, mode = "max", sort = "value", index_element_type = "i64"}> : (tensor<4x5xf32>, tensor<i64>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  %10, %11 = "ov.TopK_opset1"(%v, %k) <{axis = 0 : i64, mode = "min", sort = "index"}> : (tensor<4x5xf32>, tensor<i64>) -> (tensor<2x5xf32>, tensor<2x5xi32>)
  %12 = "ov.ShapeOf_opset1"(%x) : (tensor<1x3x8x8xf32>) -> tensor<4xi64>
  %13 = "ov.Broadcast_opset1"(%v, %tgt) <{mode = "numpy"}> : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<2x4x5xf32>
  %14 = "ov.Range_opset1"(%r0, %r1, %r2) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  %15 = "ov.MVN_opset2"(%x) <{eps = 1.0e-05 : f64, across_channels = true, normalize_variance = true}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %16 = "ov.Squeeze_opset1"(%x, %r0i) : (tensor<1x3x8x8xf32>, tensor<i64>) -> tensor<3x8x8xf32>
  %17 = "ov.BatchNormInference_opset1"(%x, %g3, %g3, %g3, %g3) <{epsilon = 0.001 : f64}> : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
  %18 = "ov.GatherND_opset5"(%v, %idx) : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<f32>
  "ov.Result"(%0) : (tensor<1x3x4x4xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0, %1 = "ov.MaxPool_opset8"(%x) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>, index_element_type = "i32", axis = 0 : i64}> : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi32>)
// CHECK: %2 = "ov.MaxPool_opset1"(%x) <{strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>, rounding_type = "ceil"}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
// CHECK: %3 = "ov.AvgPool_opset1"(%x) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = false}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
// CHECK: %4 = "ov.AvgPool_opset14"(%x) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = true, rounding_type = "ceil_torch"}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
// CHECK: %5 = "ov.Gather_opset1"(%v, %idx, %ax) : (tensor<4x5xf32>, tensor<2xi64>, tensor<i64>) -> tensor<4x2xf32>
// CHECK: %6 = "ov.Gather_opset7"(%v, %idx, %ax) <{batch_dims = 0 : i64}> : (tensor<4x5xf32>, tensor<2xi64>, tensor<i64>) -> tensor<4x2xf32>
// CHECK: %7 = "ov.Softmax_opset1"(%v) <{axis = 1 : i64}> : (tensor<4x5xf32>) -> tensor<4x5xf32>
// CHECK: %8, %9 = "ov.TopK_opset3"(%v, %k) <{axis = 1 : i64, mode = "max", sort = "value", index_element_type = "i64"}> : (tensor<4x5xf32>, tensor<i64>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
// CHECK: %10, %11 = "ov.TopK_opset1"(%v, %k) <{axis = 0 : i64, mode = "min", sort = "index"}> : (tensor<4x5xf32>, tensor<i64>) -> (tensor<2x5xf32>, tensor<2x5xi32>)
// CHECK: %12 = "ov.ShapeOf_opset1"(%x) : (tensor<1x3x8x8xf32>) -> tensor<4xi64>
// CHECK: %13 = "ov.Broadcast_opset1"(%v, %tgt) <{mode = "numpy"}> : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<2x4x5xf32>
// CHECK: %14 = "ov.Range_opset1"(%r0, %r1, %r2) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %15 = "ov.MVN_opset2"(%x) <{eps = 1.000000e-05 : f64, across_channels = true, normalize_variance = true}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
// CHECK: %16 = "ov.Squeeze_opset1"(%x, %r0i) : (tensor<1x3x8x8xf32>, tensor<i64>) -> tensor<3x8x8xf32>
// CHECK: %17 = "ov.BatchNormInference_opset1"(%x, %g3, %g3, %g3, %g3) <{epsilon = 1.000000e-03 : f64}> : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
// CHECK: %18 = "ov.GatherND_opset5"(%v, %idx) : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<f32>
