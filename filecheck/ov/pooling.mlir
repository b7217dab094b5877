// RUN: xmo-opt %s | xmo-opt | filecheck %s
// MaxPool (opset14, two results) and AvgPool (opset16) round-trip.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x7x7xf32>
  %xd = "ov.Parameter"() : () -> tensor<?x3x?x7xf32>
  %xu = "ov.Parameter"() : () -> tensor<*xf32>
  %x1 = "ov.Parameter"() : () -> tensor<2x3x9xf32>
  %0, %1 = "ov.MaxPool"(%x) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>}> : (tensor<1x3x7x7xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>)
  %2, %3 = "ov.MaxPool"(%x) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>, rounding_type = "ceil", index_element_type = "i32"}> : (tensor<1x3x7x7xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi32>)
  %4, %5 = "ov.MaxPool"(%x) <{strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, kernel = array<i64: 3, 3>, auto_pad = "same_lower"}> : (tensor<1x3x7x7xf32>) -> (tensor<1x3x7x7xf32>, tensor<1x3x7x7xi64>)
  %6, %7 = "ov.MaxPool"(%xd) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 3, 3>}> : (tensor<?x3x?x7xf32>) -> (tensor<?x3x?x3xf32>, tensor<?x3x?x3xi64>)
  %8, %9 = "ov.MaxPool"(%xu) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>}> : (tensor<*xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xi64>)
  %10 = "ov.AvgPool"(%x) <{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, "exclude-pad" = true}> : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %11 = "ov.AvgPool"(%x) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = false, rounding_type = "ceil_torch"}> : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %12 = "ov.AvgPool"(%x1) <{kernel = array<i64: 3>, strides = array<i64: 3>, pads_begin = array<i64: 0>, pads_end = array<i64: 0>, "exclude-pad" = true}> : (tensor<2x3x9xf32>) -> tensor<2x3x3xf32>
  %13 = "ov.AvgPool"(%xd) <{kernel = array<i64: 7, 7>, strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = true, auto_pad = "valid"}> : (tensor<?x3x?x7xf32>) -> tensor<?x3x?x1xf32>
  %14 = "ov.AvgPool"(%xu) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = true}> : (tensor<*xf32>) -> tensor<*xf32>
  "ov.Result"(%0) : (tensor<1x3x3x3xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0, %1 = "ov.MaxPool"(%x) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>}> : (tensor<1x3x7x7xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>)
// CHECK: %2, %3 = "ov.MaxPool"(%x) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>, rounding_type = "ceil", index_element_type = "i32"}> : (tensor<1x3x7x7xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi32>)
// CHECK: %4, %5 = "ov.MaxPool"(%x) <{strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, kernel = array<i64: 3, 3>, auto_pad = "same_lower"}> : (tensor<1x3x7x7xf32>) -> (tensor<1x3x7x7xf32>, tensor<1x3x7x7xi64>)
// CHECK: %6, %7 = "ov.MaxPool"(%xd) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 3, 3>}> : (tensor<?x3x?x7xf32>) -> (tensor<?x3x?x3xf32>, tensor<?x3x?x3xi64>)
// CHECK: %8, %9 = "ov.MaxPool"(%xu) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 2, 2>}> : (tensor<*xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xi64>)
// CHECK: %10 = "ov.AvgPool"(%x) <{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, "exclude-pad" = true}> : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
// CHECK: %11 = "ov.AvgPool"(%x) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = false, rounding_type = "ceil_torch"}> : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
// CHECK: %12 = "ov.AvgPool"(%x1) <{kernel = array<i64: 3>, strides = array<i64: 3>, pads_begin = array<i64: 0>, pads_end = array<i64: 0>, "exclude-pad" = true}> : (tensor<2x3x9xf32>) -> tensor<2x3x3xf32>
// CHECK: %13 = "ov.AvgPool"(%xd) <{kernel = array<i64: 7, 7>, strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = true, auto_pad = "valid"}> : (tensor<?x3x?x7xf32>) -> tensor<?x3x?x1xf32>
// CHECK: %14 = "ov.AvgPool"(%xu) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, "exclude-pad" = true}> : (tensor<*xf32>) -> tensor<*xf32>
