// RUN: xmo-opt %s --extensions %S/../../examples/fft_extension --split-input-file --verify-diagnostics | filecheck %s
// "Defining a new operation": the FFT op of examples/fft_extension/ops/fft.py
// parses, infers its result type (the input's) and rejects bad inputs.

builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<1x8x8x2xf32>
  %1 = "ov.FFT"(%0) <{inverse = true}> : (tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32>
  "ov.Result"(%1) : (tensor<1x8x8x2xf32>) -> ()
}
// CHECK: %{{.*}} = "ov.FFT"(%{{.*}}) <{inverse = true}> : (tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32>

// -----

builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<1x8x8x3xf32>
  // expected-error@+1 {{the last axis holds (real, imaginary): size 2, got 3}}
  %1 = "ov.FFT"(%0) : (tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32>
  "ov.Result"(%1) : (tensor<1x8x8x3xf32>) -> ()
}

// -----

builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<8x8x2xi32>
  // expected-error@+1 {{expects a floating-point input, got i32}}
  %1 = "ov.FFT"(%0) : (tensor<8x8x2xi32>) -> tensor<8x8x2xi32>
  "ov.Result"(%1) : (tensor<8x8x2xi32>) -> ()
}
