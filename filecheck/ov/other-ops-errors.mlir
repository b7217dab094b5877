// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Ops without shape inference still check arity, result count and attributes.

builtin.module {
  %b = "ov.Parameter"() : () -> tensor<1x6x4xf32>
  %0, %1, %2 = "ov.NonMaxSuppression"(%b) : (tensor<1x6x4xf32>) -> (tensor<?x3xi64>, tensor<?x3xf32>, tensor<1xi64>)
}
// CHECK: ov.NonMaxSuppression: expected 2 to 6 inputs, got 1

// -----

builtin.module {
  %b = "ov.Parameter"() : () -> tensor<1x6x4xf32>
  %s = "ov.Parameter"() : () -> tensor<1x1x6xf32>
  %0, %1, %2 = "ov.NonMaxSuppression"(%b, %s, %s, %s, %s, %s, %s) : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1x1x6xf32>, tensor<1x1x6xf32>, tensor<1x1x6xf32>, tensor<1x1x6xf32>, tensor<1x1x6xf32>) -> (tensor<?x3xi64>, tensor<?x3xf32>, tensor<1xi64>)
}
// CHECK: ov.NonMaxSuppression: expected 2 to 6 inputs, got 7

// -----

builtin.module {
  %b = "ov.Parameter"() : () -> tensor<1x6x4xf32>
  %s = "ov.Parameter"() : () -> tensor<1x1x6xf32>
  %0, %1 = "ov.NonMaxSuppression"(%b, %s) : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> (tensor<?x3xi64>, tensor<?x3xf32>)
}
// CHECK: ov.NonMaxSuppression: expected 3 outputs, got 2

// -----

builtin.module {
  %b = "ov.Parameter"() : () -> tensor<1x6x4xf32>
  %s = "ov.Parameter"() : () -> tensor<1x1x6xf32>
  %0, %1, %2 = "ov.NonMaxSuppression"(%b, %s) <{output_type = "f32x"}> : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> (tensor<?x3xi64>, tensor<?x3xf32>, tensor<1xi64>)
}
// CHECK: ov.NonMaxSuppression: attribute 'output_type': unknown element type 'f32x'

// -----

builtin.module {
  %b = "ov.Parameter"() : () -> tensor<1x6x4xf32>
  %s = "ov.Parameter"() : () -> tensor<1x1x6xf32>
  %0, %1, %2 = "ov.NonMaxSuppression"(%b, %s) <{sort_result_descending = "yes"}> : (tensor<1x6x4xf32>, tensor<1x1x6xf32>) -> (tensor<?x3xi64>, tensor<?x3xf32>, tensor<1xi64>)
}
// CHECK: "yes" should be of base attribute integer

// -----

builtin.module {
  %d = "ov.Parameter"() : () -> tensor<1x3x8x8xf32>
  %r = "ov.Parameter"() : () -> tensor<2x4xf32>
  %i = "ov.Parameter"() : () -> tensor<2xi32>
  %y = "ov.ROIAlign"(%d, %r, %i) <{pooled_h = 2 : i64, pooled_w = 2 : i64, sampling_ratio = 2 : i64}> : (tensor<1x3x8x8xf32>, tensor<2x4xf32>, tensor<2xi32>) -> tensor<2x3x2x2xf32>
}
// CHECK: ov.ROIAlign: missing required attribute 'spatial_scale'

// -----

builtin.module {
  %d = "ov.Parameter"() : () -> tensor<1x3x8x8xf32>
  %r = "ov.Parameter"() : () -> tensor<2x4xf32>
  %y = "ov.ROIAlign"(%d, %r) <{pooled_h = 2 : i64, pooled_w = 2 : i64, sampling_ratio = 2 : i64, spatial_scale = 1.0 : f64}> : (tensor<1x3x8x8xf32>, tensor<2x4xf32>) -> tensor<2x3x2x2xf32>
}
// CHECK: ov.ROIAlign: expected 3 inputs, got 2

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x5x4xf32>
  %0, %1, %2 = "ov.LSTMSequence"(%x, %x, %x, %x, %x, %x, %x) <{direction = "forward", hidden_size = 8 : i64, activations = "sigmoid"}> : (tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32>) -> (tensor<1x1x5x8xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>)
}
// CHECK: "sigmoid" should be of base attribute array

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x5x4xf32>
  %0, %1, %2 = "ov.LSTMSequence"(%x, %x, %x, %x, %x, %x, %x) <{hidden_size = 8 : i64}> : (tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32>, tensor<1x5x4xf32>) -> (tensor<1x1x5x8xf32>, tensor<1x1x8xf32>, tensor<1x1x8xf32>)
}
// CHECK: ov.LSTMSequence: missing required attribute 'direction'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x5x4xf32>
  %0 = "ov.Einsum"(%x) : (tensor<1x5x4xf32>) -> tensor<1x5x4xf32>
}
// CHECK: ov.Einsum: missing required attribute 'equation'
