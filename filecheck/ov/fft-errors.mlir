// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of DFT, IDFT, RDFT, IRDFT.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x8x6x2xf32>
  %a = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.DFT"(%x, %a) : (tensor<2x8x6x2xf32>, tensor<2xi64>) -> tensor<2x8x6x1xf32>
}
// CHECK: ov.DFT: output 0 has type tensor<2x8x6x1xf32>, but inputs and attributes give tensor<2x8x6x2xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x8x6x3xf32>
  %a = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.DFT"(%x, %a) : (tensor<2x8x6x3xf32>, tensor<2xi64>) -> tensor<2x8x6x3xf32>
}
// CHECK: ov.DFT: last dimension of complex data: dimensions 3 and 2 do not match

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2xf32>
  %a = "ov.Constant"() <{value = dense<[0]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %y = "ov.IDFT"(%x, %a) : (tensor<2xf32>, tensor<1xi64>) -> tensor<2xf32>
}
// CHECK: ov.IDFT: complex data must have rank 2 or more, got [2]

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x8x6x2xi32>
  %a = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.DFT"(%x, %a) : (tensor<2x8x6x2xi32>, tensor<2xi64>) -> tensor<2x8x6x2xi32>
}
// CHECK: ov.DFT: data (input 0) must be a floating-point type, got i32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x8x6x2xf32>
  %a = "ov.Constant"() <{value = dense<[1, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.DFT"(%x, %a) : (tensor<2x8x6x2xf32>, tensor<2xi64>) -> tensor<2x8x6x2xf32>
}
// CHECK: ov.DFT: axis 3 is out of range for rank 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x8x6x2xf32>
  %a = "ov.Constant"() <{value = dense<[1, 1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.IDFT"(%x, %a) : (tensor<2x8x6x2xf32>, tensor<2xi64>) -> tensor<2x8x6x2xf32>
}
// CHECK: ov.IDFT: axis values [1, 1] repeat an axis

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x8x6x2xf32>
  %a = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s = "ov.Constant"() <{value = dense<[4]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %y = "ov.DFT"(%x, %a, %s) : (tensor<2x8x6x2xf32>, tensor<2xi64>, tensor<1xi64>) -> tensor<2x8x6x2xf32>
}
// CHECK: ov.DFT: signal_size has 1 values for 2 axes

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x8x6x2xf32>
  %a = "ov.Constant"() <{value = dense<[1.0]> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = "ov.DFT"(%x, %a) : (tensor<2x8x6x2xf32>, tensor<1xf32>) -> tensor<2x8x6x2xf32>
}
// CHECK: ov.DFT: axes (input 1) must be an integer type, got f32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x8x6x2xf32>
  %a = "ov.Constant"() <{value = dense<[[1, 2]]> : tensor<1x2xi64>}> : () -> tensor<1x2xi64>
  %y = "ov.DFT"(%x, %a) : (tensor<2x8x6x2xf32>, tensor<1x2xi64>) -> tensor<2x8x6x2xf32>
}
// CHECK: ov.DFT: axes (input 1) must have rank 0 or 1, got 2

// -----

builtin.module {
  %r = "ov.Parameter"() : () -> tensor<2x8x6xf32>
  %a = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.RDFT"(%r, %a) : (tensor<2x8x6xf32>, tensor<2xi64>) -> tensor<2x8x6x2xf32>
}
// CHECK: ov.RDFT: output 0 has type tensor<2x8x6x2xf32>, but inputs and attributes give tensor<2x8x4x2xf32>

// -----

builtin.module {
  %r = "ov.Parameter"() : () -> tensor<f32>
  %a = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.RDFT"(%r, %a) : (tensor<f32>, tensor<i64>) -> tensor<1x2xf32>
}
// CHECK: ov.RDFT: data must have rank 1 or more

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x8x6x2xf32>
  %a = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.IRDFT"(%x, %a) : (tensor<2x8x6x2xf32>, tensor<2xi64>) -> tensor<2x8x6xf32>
}
// CHECK: ov.IRDFT: output 0 has type tensor<2x8x6xf32>, but inputs and attributes give tensor<2x8x10xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x8x6x2xf32>
  %a = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %s = "ov.Constant"() <{value = dense<[8, 7]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %y = "ov.IRDFT"(%x, %a, %s) : (tensor<2x8x6x2xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x8x10xf32>
}
// CHECK: ov.IRDFT: output 0 has type tensor<2x8x10xf32>, but inputs and attributes give tensor<2x8x7xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x8x6x2xf32>
  %y = "ov.DFT"(%x) : (tensor<2x8x6x2xf32>) -> tensor<2x8x6x2xf32>
}
// CHECK: ov.DFT: expected 2 to 3 inputs, got 1
