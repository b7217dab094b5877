// RUN: xmo-opt %s | xmo-opt | filecheck %s
// DFT, IDFT (complex input, trailing dim 2), RDFT, IRDFT with and without
// signal_size.

builtin.module {
  %c = "ov.Parameter"() : () -> tensor<2x8x6x2xf32>
  %cd = "ov.Parameter"() : () -> tensor<?x8x?x2xf32>
  %cu = "ov.Parameter"() : () -> tensor<*xf32>
  %r = "ov.Parameter"() : () -> tensor<2x8x6xf32>
  %ax = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %axm = "ov.Constant"() <{value = dense<-1> : tensor<i64>}> : () -> tensor<i64>
  %sig = "ov.Constant"() <{value = dense<[4, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %sig2 = "ov.Constant"() <{value = dense<[8, 10]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %dax = "ov.Parameter"() : () -> tensor<2xi64>
  %0 = "ov.DFT"(%c, %ax) : (tensor<2x8x6x2xf32>, tensor<2xi64>) -> tensor<2x8x6x2xf32>
  %1 = "ov.DFT"(%c, %ax, %sig) : (tensor<2x8x6x2xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x4x6x2xf32>
  %2 = "ov.IDFT"(%cd, %axm) : (tensor<?x8x?x2xf32>, tensor<i64>) -> tensor<?x8x?x2xf32>
  %3 = "ov.IDFT"(%c, %dax) : (tensor<2x8x6x2xf32>, tensor<2xi64>) -> tensor<2x8x6x2xf32>
  %4 = "ov.RDFT"(%r, %ax) : (tensor<2x8x6xf32>, tensor<2xi64>) -> tensor<2x8x4x2xf32>
  %5 = "ov.RDFT"(%r, %ax, %sig2) : (tensor<2x8x6xf32>, tensor<2xi64>, tensor<2xi32>) -> tensor<2x8x6x2xf32>
  %6 = "ov.RDFT"(%cu, %ax) : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
  %7 = "ov.IRDFT"(%c, %ax) : (tensor<2x8x6x2xf32>, tensor<2xi64>) -> tensor<2x8x10xf32>
  %8 = "ov.IRDFT"(%c, %ax, %sig2) : (tensor<2x8x6x2xf32>, tensor<2xi64>, tensor<2xi32>) -> tensor<2x8x10xf32>
  %9 = "ov.IRDFT"(%cd, %axm) : (tensor<?x8x?x2xf32>, tensor<i64>) -> tensor<?x8x?xf32>
  "ov.Result"(%0) : (tensor<2x8x6x2xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0 = "ov.DFT"(%c, %ax) : (tensor<2x8x6x2xf32>, tensor<2xi64>) -> tensor<2x8x6x2xf32>
// CHECK: %1 = "ov.DFT"(%c, %ax, %sig) : (tensor<2x8x6x2xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x4x6x2xf32>
// CHECK: %2 = "ov.IDFT"(%cd, %axm) : (tensor<?x8x?x2xf32>, tensor<i64>) -> tensor<?x8x?x2xf32>
// CHECK: %3 = "ov.IDFT"(%c, %dax) : (tensor<2x8x6x2xf32>, tensor<2xi64>) -> tensor<2x8x6x2xf32>
// CHECK: %4 = "ov.RDFT"(%r, %ax) : (tensor<2x8x6xf32>, tensor<2xi64>) -> tensor<2x8x4x2xf32>
// CHECK: %5 = "ov.RDFT"(%r, %ax, %sig2) : (tensor<2x8x6xf32>, tensor<2xi64>, tensor<2xi32>) -> tensor<2x8x6x2xf32>
// CHECK: %6 = "ov.RDFT"(%cu, %ax) : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
// CHECK: %7 = "ov.IRDFT"(%c, %ax) : (tensor<2x8x6x2xf32>, tensor<2xi64>) -> tensor<2x8x10xf32>
// CHECK: %8 = "ov.IRDFT"(%c, %ax, %sig2) : (tensor<2x8x6x2xf32>, tensor<2xi64>, tensor<2xi32>) -> tensor<2x8x10xf32>
// CHECK: %9 = "ov.IRDFT"(%cd, %axm) : (tensor<?x8x?x2xf32>, tensor<i64>) -> tensor<?x8x?xf32>
