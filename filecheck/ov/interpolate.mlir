// RUN: xmo-opt %s | xmo-opt | filecheck %s
// Interpolate (opset11): sizes and scales, with and without axes, pads.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<1x3x10x20xf32>
  %xd = "ov.Parameter"() : () -> tensor<?x3x?x?xf32>
  %xu = "ov.Parameter"() : () -> tensor<*xf32>
  %sizes = "ov.Constant"() <{value = dense<[20, 40]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %scales = "ov.Constant"() <{value = dense<[0.5, 1.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %sc4 = "ov.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %axes = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %dsz = "ov.Parameter"() : () -> tensor<2xi32>
  %0 = "ov.Interpolate"(%x, %sizes, %axes) <{mode = "nearest"}> : (tensor<1x3x10x20xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x20x40xf32>
  %1 = "ov.Interpolate"(%x, %scales, %axes) <{mode = "linear", shape_calculation_mode = "scales", coordinate_transformation_mode = "align_corners"}> : (tensor<1x3x10x20xf32>, tensor<2xf32>, tensor<2xi64>) -> tensor<1x3x5x30xf32>
  %2 = "ov.Interpolate"(%x, %sc4) <{mode = "cubic", shape_calculation_mode = "scales", cube_coeff = -0.5 : f64, pads_begin = array<i64: 0, 0, 1, 1>, pads_end = array<i64: 0, 0, 1, 1>}> : (tensor<1x3x10x20xf32>, tensor<4xf32>) -> tensor<1x3x24x44xf32>
  %3 = "ov.Interpolate"(%xd, %scales, %axes) <{mode = "linear_onnx", shape_calculation_mode = "scales", antialias = true}> : (tensor<?x3x?x?xf32>, tensor<2xf32>, tensor<2xi64>) -> tensor<?x3x?x?xf32>
  %4 = "ov.Interpolate"(%xd, %sizes, %axes) <{mode = "nearest", nearest_mode = "floor"}> : (tensor<?x3x?x?xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x3x20x40xf32>
  %5 = "ov.Interpolate"(%x, %dsz, %axes) <{mode = "bilinear_pillow"}> : (tensor<1x3x10x20xf32>, tensor<2xi32>, tensor<2xi64>) -> tensor<1x3x?x?xf32>
  %6 = "ov.Interpolate"(%xu, %sizes, %axes) <{mode = "nearest"}> : (tensor<*xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
  "ov.Result"(%0) : (tensor<1x3x20x40xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0 = "ov.Interpolate"(%x, %sizes, %axes) <{mode = "nearest"}> : (tensor<1x3x10x20xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x20x40xf32>
// CHECK: %1 = "ov.Interpolate"(%x, %scales, %axes) <{mode = "linear", shape_calculation_mode = "scales", coordinate_transformation_mode = "align_corners"}> : (tensor<1x3x10x20xf32>, tensor<2xf32>, tensor<2xi64>) -> tensor<1x3x5x30xf32>
// CHECK: %2 = "ov.Interpolate"(%x, %sc4) <{mode = "cubic", shape_calculation_mode = "scales", cube_coeff = -5.000000e-01 : f64, pads_begin = array<i64: 0, 0, 1, 1>, pads_end = array<i64: 0, 0, 1, 1>}> : (tensor<1x3x10x20xf32>, tensor<4xf32>) -> tensor<1x3x24x44xf32>
// CHECK: %3 = "ov.Interpolate"(%xd, %scales, %axes) <{mode = "linear_onnx", shape_calculation_mode = "scales", antialias = true}> : (tensor<?x3x?x?xf32>, tensor<2xf32>, tensor<2xi64>) -> tensor<?x3x?x?xf32>
// CHECK: %4 = "ov.Interpolate"(%xd, %sizes, %axes) <{mode = "nearest", nearest_mode = "floor"}> : (tensor<?x3x?x?xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x3x20x40xf32>
// CHECK: %5 = "ov.Interpolate"(%x, %dsz, %axes) <{mode = "bilinear_pillow"}> : (tensor<1x3x10x20xf32>, tensor<2xi32>, tensor<2xi64>) -> tensor<1x3x?x?xf32>
// CHECK: %6 = "ov.Interpolate"(%xu, %sizes, %axes) <{mode = "nearest"}> : (tensor<*xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
