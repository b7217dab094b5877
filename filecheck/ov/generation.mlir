// RUN: xmo-opt %s | xmo-opt | filecheck %s
// Broadcast, Tile, Pad, ShapeOf, Range round-trip.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<3x1xf32>
  %xd = "ov.Parameter"() : () -> tensor<?x4xf32>
  %xu = "ov.Parameter"() : () -> tensor<*xf32>
  %t = "ov.Parameter"() : () -> tensor<3xi64>
  %start = "ov.Parameter"() : () -> tensor<f32>
  %tgt = "ov.Constant"() <{value = dense<[2, 3, 5]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %tgt2 = "ov.Constant"() <{value = dense<[1, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %map = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %rep = "ov.Constant"() <{value = dense<[2, 1, 3]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %pb = "ov.Constant"() <{value = dense<[1, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %pe = "ov.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %pv = "ov.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %r0 = "ov.Constant"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %r1 = "ov.Constant"() <{value = dense<10> : tensor<i32>}> : () -> tensor<i32>
  %r2 = "ov.Constant"() <{value = dense<3> : tensor<i32>}> : () -> tensor<i32>
  %f1 = "ov.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %f2 = "ov.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %0 = "ov.Broadcast"(%x, %tgt) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x5xf32>
  %1 = "ov.Broadcast"(%x, %tgt2) <{mode = "bidirectional"}> : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x5xf32>
  %2 = "ov.Broadcast"(%x, %tgt, %map) <{mode = "explicit"}> : (tensor<3x1xf32>, tensor<3xi64>, tensor<2xi64>) -> tensor<2x3x5xf32>
  %3 = "ov.Broadcast"(%xd, %t) : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %4 = "ov.Tile"(%x, %rep) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x3xf32>
  %5 = "ov.Tile"(%xd, %tgt2) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x20xf32>
  %6 = "ov.Tile"(%xu, %rep) : (tensor<*xf32>, tensor<3xi64>) -> tensor<*xf32>
  %7 = "ov.Pad"(%x, %pb, %pe) : (tensor<3x1xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x3xf32>
  %8 = "ov.Pad"(%x, %pb, %pb, %pv) <{pad_mode = "constant"}> : (tensor<3x1xf32>, tensor<2xi64>, tensor<2xi64>, tensor<f32>) -> tensor<5x1xf32>
  %9 = "ov.Pad"(%xd, %pb, %pe) <{pad_mode = "reflect"}> : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x6xf32>
  %10 = "ov.Pad"(%xu, %pb, %pe) <{pad_mode = "edge"}> : (tensor<*xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
  %11 = "ov.ShapeOf"(%x) : (tensor<3x1xf32>) -> tensor<2xi64>
  %12 = "ov.ShapeOf"(%xd) <{output_type = "i32"}> : (tensor<?x4xf32>) -> tensor<2xi32>
  %13 = "ov.ShapeOf"(%xu) : (tensor<*xf32>) -> tensor<?xi64>
  %14 = "ov.Range"(%r0, %r1, %r2) <{output_type = "i32"}> : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4xi32>
  %15 = "ov.Range"(%f2, %f1, %f2) <{output_type = "f32"}> : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<7xf32>
  %16 = "ov.Range"(%start, %f1, %f2) <{output_type = "f32"}> : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  "ov.Result"(%0) : (tensor<2x3x5xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %0 = "ov.Broadcast"(%x, %tgt) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x5xf32>
// CHECK: %1 = "ov.Broadcast"(%x, %tgt2) <{mode = "bidirectional"}> : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x5xf32>
// CHECK: %2 = "ov.Broadcast"(%x, %tgt, %map) <{mode = "explicit"}> : (tensor<3x1xf32>, tensor<3xi64>, tensor<2xi64>) -> tensor<2x3x5xf32>
// CHECK: %3 = "ov.Broadcast"(%xd, %t) : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK: %4 = "ov.Tile"(%x, %rep) : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x3xf32>
// CHECK: %5 = "ov.Tile"(%xd, %tgt2) : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x20xf32>
// CHECK: %6 = "ov.Tile"(%xu, %rep) : (tensor<*xf32>, tensor<3xi64>) -> tensor<*xf32>
// CHECK: %7 = "ov.Pad"(%x, %pb, %pe) : (tensor<3x1xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x3xf32>
// CHECK: %8 = "ov.Pad"(%x, %pb, %pb, %pv) <{pad_mode = "constant"}> : (tensor<3x1xf32>, tensor<2xi64>, tensor<2xi64>, tensor<f32>) -> tensor<5x1xf32>
// CHECK: %9 = "ov.Pad"(%xd, %pb, %pe) <{pad_mode = "reflect"}> : (tensor<?x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x6xf32>
// CHECK: %10 = "ov.Pad"(%xu, %pb, %pe) <{pad_mode = "edge"}> : (tensor<*xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<*xf32>
// CHECK: %11 = "ov.ShapeOf"(%x) : (tensor<3x1xf32>) -> tensor<2xi64>
// CHECK: %12 = "ov.ShapeOf"(%xd) <{output_type = "i32"}> : (tensor<?x4xf32>) -> tensor<2xi32>
// CHECK: %13 = "ov.ShapeOf"(%xu) : (tensor<*xf32>) -> tensor<?xi64>
// CHECK: %14 = "ov.Range"(%r0, %r1, %r2) <{output_type = "i32"}> : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4xi32>
// CHECK: %15 = "ov.Range"(%f2, %f1, %f2) <{output_type = "f32"}> : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<7xf32>
// CHECK: %16 = "ov.Range"(%start, %f1, %f2) <{output_type = "f32"}> : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
