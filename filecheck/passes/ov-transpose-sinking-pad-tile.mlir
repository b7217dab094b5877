// RUN: xmo-opt %s -p ov-transpose-sinking | filecheck %s
// Ops that resize axes (pad_tile.py): the per-axis pads of Pad and the
// repeats of Tile (first made full rank) are permuted to NHWC, the axes of
// Interpolate are remapped (2, 3 -> 1, 2); every Transpose cancels.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x4x4x3xf32>
  %p1 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %p2 = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %t = "ov.Transpose"(%x, %p1) <{friendly_name = "t"}> : (tensor<1x4x4x3xf32>, tensor<4xi64>) -> tensor<1x3x4x4xf32>
  %pb = "ov.Constant"() <{value = dense<[0, 0, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %pe = "ov.Constant"() <{value = dense<[0, 0, 3, 4]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %pad = "ov.Pad"(%t, %pb, %pe) <{pad_mode = "constant", friendly_name = "pad"}> : (tensor<1x3x4x4xf32>, tensor<4xi64>, tensor<4xi64>) -> tensor<1x3x8x10xf32>
  %r = "ov.Constant"() <{value = dense<[2, 1, 1]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %tile = "ov.Tile"(%pad, %r) <{friendly_name = "tile"}> : (tensor<1x3x8x10xf32>, tensor<3xi64>) -> tensor<1x6x8x10xf32>
  %t2 = "ov.Transpose"(%tile, %p2) <{friendly_name = "t2", tensor_names = [["y"]]}> : (tensor<1x6x8x10xf32>, tensor<4xi64>) -> tensor<1x8x10x6xf32>
  "ov.Result"(%t2) <{friendly_name = "y"}> : (tensor<1x8x10x6xf32>) -> ()
  %sz = "ov.Constant"() <{value = dense<[8, 8]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %ax = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %i = "ov.Interpolate"(%t, %sz, %ax) <{mode = "nearest", shape_calculation_mode = "sizes", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", antialias = false, pads_begin = array<i64: 0, 0, 0, 0>, pads_end = array<i64: 0, 0, 0, 0>, cube_coeff = -7.5e-01 : f64, friendly_name = "resize"}> : (tensor<1x3x4x4xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<1x3x8x8xf32>
  %t3 = "ov.Transpose"(%i, %p2) <{friendly_name = "t3", tensor_names = [["z"]]}> : (tensor<1x3x8x8xf32>, tensor<4xi64>) -> tensor<1x8x8x3xf32>
  "ov.Result"(%t3) <{friendly_name = "z"}> : (tensor<1x8x8x3xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"()
// CHECK-NEXT: %[[PB:.*]] = "ov.Constant"() <{value = dense<[0, 1, 2, 0]> : tensor<4xi64>}>
// CHECK-NEXT: %[[PE:.*]] = "ov.Constant"() <{value = dense<[0, 3, 4, 0]> : tensor<4xi64>}>
// CHECK-NEXT: %[[P:.*]] = "ov.Pad"(%[[X]], %[[PB]], %[[PE]]) <{pad_mode = "constant", friendly_name = "pad"}> : (tensor<1x4x4x3xf32>, tensor<4xi64>, tensor<4xi64>) -> tensor<1x8x10x3xf32>
// CHECK-NEXT: %[[R:.*]] = "ov.Constant"() <{value = dense<[1, 1, 1, 2]> : tensor<4xi64>}>
// CHECK-NEXT: %[[T:.*]] = "ov.Tile"(%[[P]], %[[R]]) <{friendly_name = "tile", tensor_names = {{\[\[}}"y"]]}> : (tensor<1x8x10x3xf32>, tensor<4xi64>) -> tensor<1x8x10x6xf32>
// CHECK-NEXT: "ov.Result"(%[[T]]) <{friendly_name = "y"}>
// CHECK-NEXT: %[[SZ:.*]] = "ov.Constant"() <{value = dense<8> : tensor<2xi32>}>
// CHECK-NEXT: %[[AX:.*]] = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi32>}>
// CHECK-NEXT: %[[I:.*]] = "ov.Interpolate"(%[[X]], %[[SZ]], %[[AX]]) <{{.*}}friendly_name = "resize", tensor_names = {{\[\[}}"z"]]}> : (tensor<1x4x4x3xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<1x8x8x3xf32>
// CHECK-NEXT: "ov.Result"(%[[I]]) <{friendly_name = "z"}>
// CHECK-NOT:  ov.Transpose
