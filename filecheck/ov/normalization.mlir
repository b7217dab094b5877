// RUN: xmo-opt %s | xmo-opt | filecheck %s
// MVN (opset6), NormalizeL2 and BatchNormInference round-trip.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4x5xf32>
  %xd = "ov.Parameter"() : () -> tensor<?x3x?x?xf32>
  %xu = "ov.Parameter"() : () -> tensor<*xf16>
  %x2 = "ov.Parameter"() : () -> tensor<8x3xf32>
  %axes = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ax1 = "ov.Constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %ax1b = "ov.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %g = "ov.Parameter"() : () -> tensor<3xf32>
  %gd = "ov.Parameter"() : () -> tensor<?xf32>
  %gh = "ov.Parameter"() : () -> tensor<3xf16>
  %0 = "ov.MVN"(%x, %axes) <{eps = 1.0e-05 : f64, normalize_variance = true, eps_mode = "INSIDE_SQRT"}> : (tensor<2x3x4x5xf32>, tensor<2xi64>) -> tensor<2x3x4x5xf32>
  %1 = "ov.MVN"(%xd, %axes) <{eps = 1.0e-09 : f64, eps_mode = "outside_sqrt"}> : (tensor<?x3x?x?xf32>, tensor<2xi64>) -> tensor<?x3x?x?xf32>
  %2 = "ov.MVN"(%xu, %ax1) <{eps = 0.001 : f64}> : (tensor<*xf16>, tensor<i32>) -> tensor<*xf16>
  %3 = "ov.NormalizeL2"(%x, %ax1b) <{eps = 1.0e-12 : f64, eps_mode = "add"}> : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x3x4x5xf32>
  %4 = "ov.NormalizeL2"(%xd, %axes) <{eps = 1.0e-06 : f64, eps_mode = "max"}> : (tensor<?x3x?x?xf32>, tensor<2xi64>) -> tensor<?x3x?x?xf32>
  %5 = "ov.BatchNormInference"(%x, %g, %g, %g, %g) <{epsilon = 1.0e-05 : f64}> : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  %6 = "ov.BatchNormInference"(%x2, %g, %gd, %g, %g) <{epsilon = 0.001 : f64}> : (tensor<8x3xf32>, tensor<3xf32>, tensor<?xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %7 = "ov.BatchNormInference"(%xd, %gd, %gd, %gd, %gd) <{epsilon = 0.001 : f64}> : (tensor<?x3x?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x3x?x?xf32>
  %8 = "ov.BatchNormInference"(%xu, %gh, %gh, %gh, %gh) <{epsilon = 0.001 : f64}> : (tensor<*xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>) -> tensor<*xf16>
  "ov.Result"(%0) : (tensor<2x3x4x5xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0 = "ov.MVN"(%x, %axes) <{eps = 1.000000e-05 : f64, normalize_variance = true, eps_mode = "INSIDE_SQRT"}> : (tensor<2x3x4x5xf32>, tensor<2xi64>) -> tensor<2x3x4x5xf32>
// CHECK: %1 = "ov.MVN"(%xd, %axes) <{eps = 1.000000e-09 : f64, eps_mode = "outside_sqrt"}> : (tensor<?x3x?x?xf32>, tensor<2xi64>) -> tensor<?x3x?x?xf32>
// CHECK: %2 = "ov.MVN"(%xu, %ax1) <{eps = 1.000000e-03 : f64}> : (tensor<*xf16>, tensor<i32>) -> tensor<*xf16>
// CHECK: %3 = "ov.NormalizeL2"(%x, %ax1b) <{eps = 1.000000e-12 : f64, eps_mode = "add"}> : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x3x4x5xf32>
// CHECK: %4 = "ov.NormalizeL2"(%xd, %axes) <{eps = 1.000000e-06 : f64, eps_mode = "max"}> : (tensor<?x3x?x?xf32>, tensor<2xi64>) -> tensor<?x3x?x?xf32>
// CHECK: %5 = "ov.BatchNormInference"(%x, %g, %g, %g, %g) <{epsilon = 1.000000e-05 : f64}> : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
// CHECK: %6 = "ov.BatchNormInference"(%x2, %g, %gd, %g, %g) <{epsilon = 1.000000e-03 : f64}> : (tensor<8x3xf32>, tensor<3xf32>, tensor<?xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
// CHECK: %7 = "ov.BatchNormInference"(%xd, %gd, %gd, %gd, %gd) <{epsilon = 1.000000e-03 : f64}> : (tensor<?x3x?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x3x?x?xf32>
// CHECK: %8 = "ov.BatchNormInference"(%xu, %gh, %gh, %gh, %gh) <{epsilon = 1.000000e-03 : f64}> : (tensor<*xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>) -> tensor<*xf16>
