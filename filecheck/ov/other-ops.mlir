// RUN: xmo-opt %s | xmo-opt | filecheck %s
// Ops without shape inference keep their explicit result types (only arity and
// attributes are checked), including multi-output ones.

builtin.module {
  %boxes = "ov.Parameter"() : () -> tensor<1x6x4xf32>
  %scores = "ov.Parameter"() : () -> tensor<1x1x6xf32>
  %maxb = "ov.Constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %iou = "ov.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %0, %1, %2 = "ov.NonMaxSuppression"(%boxes, %scores, %maxb, %iou) <{box_encoding = "corner", sort_result_descending = false, output_type = "i32"}> : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<i64>, tensor<f32>) -> (tensor<?x3xi32>, tensor<?x3xf32>, tensor<1xi32>)
  %3, %4, %5 = "ov.NonMaxSuppression"(%boxes, %scores) : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> (tensor<?x3xi64>, tensor<?x3xf32>, tensor<1xi64>)
  %data = "ov.Parameter"() : () -> tensor<1x3x8x8xf32>
  %rois = "ov.Parameter"() : () -> tensor<?x4xf32>
  %bi = "ov.Parameter"() : () -> tensor<?xi32>
  %6 = "ov.ROIAlign"(%data, %rois, %bi) <{pooled_h = 2 : i64, pooled_w = 3 : i64, sampling_ratio = 2 : i64, spatial_scale = 0.25 : f64, mode = "max", aligned_mode = "half_pixel"}> : (tensor<1x3x8x8xf32>, tensor<?x4xf32>, tensor<?xi32>) -> tensor<?x3x2x3xf32>
  %x = "ov.Parameter"() : () -> tensor<1x5x4xf32>
  %h = "ov.Parameter"() : () -> tensor<1x1x8xf32>
  %c = "ov.Parameter"() : () -> tensor<1x1x8xf32>
  %len = "ov.Parameter"() : () -> tensor<1xi32>
  %w = "ov.Parameter"() : () -> tensor<1x32x4xf32>
  %r = "ov.Parameter"() : () -> tensor<1x32x8xf32>
  %b = "ov.Parameter"() : () -> tensor<1x32xf32>
  %7, %8, %9 = "ov.LSTMSequence"(%x, %h, %c, %len, %w, %r, %b) <{direction = "forward", hidden_size = 8 : i64, activations = ["sigmoid", "tanh", "tanh"], activations_alpha = array<f64: 0.5>, clip = 10.0 : f64}> : (tensor<1x5x4xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>, tensor<1xi32>, tensor<1x32x4xf32>, tensor<1x32x8xf32>, tensor<1x32xf32>) -> (tensor<1x1x5x8xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>)
  %ax = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %11 = "ov.NonZero"(%x) <{output_type = "i32"}> : (tensor<1x5x4xf32>) -> tensor<3x?xi32>
  %12 = "ov.Einsum"(%x, %w) <{equation = "abc,adc->abd"}> : (tensor<1x5x4xf32>, tensor<1x32x4xf32>) -> tensor<1x5x32xf32>
  "ov.Result"(%0) : (tensor<?x3xi32>) -> ()
}

// ---- generated checks ----
// CHECK: %0, %1, %2 = "ov.NonMaxSuppression"(%boxes, %scores, %maxb, %iou) <{box_encoding = "corner", sort_result_descending = false, output_type = "i32"}> : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<i64>, tensor<f32>) -> (tensor<?x3xi32>, tensor<?x3xf32>, tensor<1xi32>)
// CHECK: %3, %4, %5 = "ov.NonMaxSuppression"(%boxes, %scores) : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> (tensor<?x3xi64>, tensor<?x3xf32>, tensor<1xi64>)
// CHECK: %6 = "ov.ROIAlign"(%data, %rois, %bi) <{pooled_h = 2 : i64, pooled_w = 3 : i64, sampling_ratio = 2 : i64, spatial_scale = 2.500000e-01 : f64, mode = "max", aligned_mode = "half_pixel"}> : (tensor<1x3x8x8xf32>, tensor<?x4xf32>, tensor<?xi32>) -> tensor<?x3x2x3xf32>
// CHECK: %7, %8, %9 = "ov.LSTMSequence"(%x, %h, %c, %len, %w, %r, %b) <{direction = "forward", hidden_size = 8 : i64, activations = ["sigmoid", "tanh", "tanh"], activations_alpha = array<f64: 5.000000e-01>, clip = 1.000000e+01 : f64}> : (tensor<1x5x4xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>, tensor<1xi32>, tensor<1x32x4xf32>, tensor<1x32x8xf32>, tensor<1x32xf32>) -> (tensor<1x1x5x8xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>)
// CHECK: %10 = "ov.NonZero"(%x) <{output_type = "i32"}> : (tensor<1x5x4xf32>) -> tensor<3x?xi32>
// CHECK: %11 = "ov.Einsum"(%x, %w) <{equation = "abc,adc->abd"}> : (tensor<1x5x4xf32>, tensor<1x32x4xf32>) -> tensor<1x5x32xf32>
