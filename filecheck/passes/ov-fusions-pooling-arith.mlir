// RUN: xmo-opt %s -p ov-fusions | filecheck %s
// Pad into pooling (passes/ov_fusions/pooling.py) and the arithmetic
// canonicalization (passes/ov_fusions/arithmetic.py). A zero Pad enters an
// AvgPool that counts padding, a lowest-f32 (or -inf) Pad enters a MaxPool; near miss: an
// AvgPool excluding padding keeps its Pad. x - c -> x + (-c), x / c -> x * (1/c);
// near miss: a Divide by a tensor stays.

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x2x6x6xf32>
  %1 = "ov.Constant"() <{value = dense<[0, 0, 1, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %2 = "ov.Constant"() <{value = dense<[0, 0, 1, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %3 = "ov.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %4 = "ov.Pad"(%0, %1, %2, %3) <{pad_mode = "constant"}> : (tensor<1x2x6x6xf32>, tensor<4xi64>, tensor<4xi64>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %5 = "ov.AvgPool"(%4) <{strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 3, 3>, "exclude-pad" = false, friendly_name = "avg", tensor_names = [["avg"]]}> : (tensor<1x2x8x8xf32>) -> tensor<1x2x6x6xf32>
  "ov.Result"(%5) <{friendly_name = "avg"}> : (tensor<1x2x6x6xf32>) -> ()
  %6 = "ov.Constant"() <{value = dense<[0, 0, 1, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %7 = "ov.Constant"() <{value = dense<[0, 0, 1, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %8 = "ov.Constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %9 = "ov.Pad"(%0, %6, %7, %8) <{pad_mode = "constant"}> : (tensor<1x2x6x6xf32>, tensor<4xi64>, tensor<4xi64>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %10 = "ov.AvgPool"(%9) <{strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 3, 3>, "exclude-pad" = true, friendly_name = "avg_excl", tensor_names = [["avg_excl"]]}> : (tensor<1x2x8x8xf32>) -> tensor<1x2x6x6xf32>
  "ov.Result"(%10) <{friendly_name = "avg_excl"}> : (tensor<1x2x6x6xf32>) -> ()
  %11 = "ov.Constant"() <{value = dense<[0, 0, 1, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %12 = "ov.Constant"() <{value = dense<[0, 0, 1, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %13 = "ov.Constant"() <{value = dense<-3.40282347E+38> : tensor<f32>}> : () -> tensor<f32>
  %14 = "ov.Pad"(%0, %11, %12, %13) <{pad_mode = "constant"}> : (tensor<1x2x6x6xf32>, tensor<4xi64>, tensor<4xi64>, tensor<f32>) -> tensor<1x2x8x8xf32>
  %15, %16 = "ov.MaxPool"(%14) <{strides = array<i64: 1, 1>, pads_begin = array<i64: 0, 0>, pads_end = array<i64: 0, 0>, kernel = array<i64: 3, 3>, dilations = array<i64: 1, 1>, friendly_name = "max", tensor_names = [["max"], []]}> : (tensor<1x2x8x8xf32>) -> (tensor<1x2x6x6xf32>, tensor<1x2x6x6xi64>)
  "ov.Result"(%15) <{friendly_name = "max"}> : (tensor<1x2x6x6xf32>) -> ()
  %17 = "ov.Constant"() <{value = dense<2.000000e+00> : tensor<2x1x1xf32>}> : () -> tensor<2x1x1xf32>
  %18 = "ov.Subtract"(%0, %17) <{friendly_name = "sub", tensor_names = [["sub"]]}> : (tensor<1x2x6x6xf32>, tensor<2x1x1xf32>) -> tensor<1x2x6x6xf32>
  "ov.Result"(%18) <{friendly_name = "sub"}> : (tensor<1x2x6x6xf32>) -> ()
  %19 = "ov.Constant"() <{value = dense<4.000000e+00> : tensor<2x1x1xf32>}> : () -> tensor<2x1x1xf32>
  %20 = "ov.Divide"(%0, %19) <{friendly_name = "div", tensor_names = [["div"]]}> : (tensor<1x2x6x6xf32>, tensor<2x1x1xf32>) -> tensor<1x2x6x6xf32>
  "ov.Result"(%20) <{friendly_name = "div"}> : (tensor<1x2x6x6xf32>) -> ()
  %21 = "ov.Parameter"() <{friendly_name = "z", tensor_names = [["z"]]}> : () -> tensor<1x2x6x6xf32>
  %22 = "ov.Divide"(%0, %21) <{friendly_name = "div2", tensor_names = [["div2"]]}> : (tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  "ov.Result"(%22) <{friendly_name = "div2"}> : (tensor<1x2x6x6xf32>) -> ()
}

// CHECK:      "ov.AvgPool"(%0) <{{.*}}pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>, "exclude-pad" = false{{.*}}friendly_name = "avg"
// CHECK:      %[[P:.*]] = "ov.Pad"
// CHECK-NEXT: "ov.AvgPool"(%[[P]]) <{{.*}}friendly_name = "avg_excl"
// CHECK:      "ov.MaxPool"(%0) <{{.*}}pads_begin = array<i64: 1, 1>, pads_end = array<i64: 1, 1>{{.*}}friendly_name = "max"
// CHECK:      %[[N:.*]] = "ov.Constant"() <{value = dense<-2.000000e+00> : tensor<2x1x1xf32>}>
// CHECK-NEXT: "ov.Add"(%0, %[[N]]) <{friendly_name = "sub"
// CHECK:      %[[Q:.*]] = "ov.Constant"() <{value = dense<2.500000e-01> : tensor<2x1x1xf32>}>
// CHECK-NEXT: "ov.Multiply"(%0, %[[Q]]) <{friendly_name = "div"
// CHECK:      "ov.Divide"(%0, %{{.*}}) <{friendly_name = "div2"
