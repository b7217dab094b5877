// RUN: xmo-opt %s -p ov-fusions | filecheck %s
// Shape-op fusions (passes/ov_fusions/shapes.py): Reshape/Transpose/Reshape
// -> ShuffleChannels; a Reshape chain -> one Reshape; a Squeeze/Unsqueeze
// pair and a cancelling Transpose pair disappear. Near miss: a Transpose
// pair whose first Transpose has another consumer.

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x"]]}> : () -> tensor<1x6x4x4xf32>
  %1 = "ov.Constant"() <{value = dense<[1, 2, 3, 4, 4]> : tensor<5xi64>}> : () -> tensor<5xi64>
  %2 = "ov.Reshape"(%0, %1) <{special_zero = false}> : (tensor<1x6x4x4xf32>, tensor<5xi64>) -> tensor<1x2x3x4x4xf32>
  %3 = "ov.Constant"() <{value = dense<[0, 2, 1, 3, 4]> : tensor<5xi64>}> : () -> tensor<5xi64>
  %4 = "ov.Transpose"(%2, %3) : (tensor<1x2x3x4x4xf32>, tensor<5xi64>) -> tensor<1x3x2x4x4xf32>
  %5 = "ov.Constant"() <{value = dense<[1, 6, 4, 4]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %6 = "ov.Reshape"(%4, %5) <{special_zero = false, friendly_name = "shuffle", tensor_names = [["shuffle"]]}> : (tensor<1x3x2x4x4xf32>, tensor<4xi64>) -> tensor<1x6x4x4xf32>
  "ov.Result"(%6) <{friendly_name = "shuffle"}> : (tensor<1x6x4x4xf32>) -> ()
  %7 = "ov.Constant"() <{value = dense<[6, 16]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %8 = "ov.Reshape"(%0, %7) <{special_zero = false}> : (tensor<1x6x4x4xf32>, tensor<2xi64>) -> tensor<6x16xf32>
  %9 = "ov.Constant"() <{value = dense<[16, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %10 = "ov.Reshape"(%8, %9) <{special_zero = false, friendly_name = "reshape2", tensor_names = [["reshape2"]]}> : (tensor<6x16xf32>, tensor<2xi64>) -> tensor<16x6xf32>
  "ov.Result"(%10) <{friendly_name = "reshape2"}> : (tensor<16x6xf32>) -> ()
  %11 = "ov.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %12 = "ov.Squeeze"(%0, %11) : (tensor<1x6x4x4xf32>, tensor<1xi64>) -> tensor<6x4x4xf32>
  %13 = "ov.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %14 = "ov.Unsqueeze"(%12, %13) : (tensor<6x4x4xf32>, tensor<1xi64>) -> tensor<1x6x4x4xf32>
  %15 = "ov.Relu"(%14) <{friendly_name = "relu", tensor_names = [["relu"]]}> : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  "ov.Result"(%15) <{friendly_name = "relu"}> : (tensor<1x6x4x4xf32>) -> ()
  %16 = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %17 = "ov.Transpose"(%0, %16) : (tensor<1x6x4x4xf32>, tensor<4xi64>) -> tensor<1x4x4x6xf32>
  %18 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %19 = "ov.Transpose"(%17, %18) : (tensor<1x4x4x6xf32>, tensor<4xi64>) -> tensor<1x6x4x4xf32>
  %20 = "ov.Relu"(%19) <{friendly_name = "relu2", tensor_names = [["relu2"]]}> : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  "ov.Result"(%20) <{friendly_name = "relu2"}> : (tensor<1x6x4x4xf32>) -> ()
  %21 = "ov.Constant"() <{value = dense<[0, 2, 3, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %22 = "ov.Transpose"(%0, %21) <{friendly_name = "shared", tensor_names = [["shared"]]}> : (tensor<1x6x4x4xf32>, tensor<4xi64>) -> tensor<1x4x4x6xf32>
  %23 = "ov.Constant"() <{value = dense<[0, 3, 1, 2]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %24 = "ov.Transpose"(%22, %23) <{friendly_name = "kept", tensor_names = [["kept"]]}> : (tensor<1x4x4x6xf32>, tensor<4xi64>) -> tensor<1x6x4x4xf32>
  "ov.Result"(%24) <{friendly_name = "kept"}> : (tensor<1x6x4x4xf32>) -> ()
  "ov.Result"(%22) <{friendly_name = "shared"}> : (tensor<1x4x4x6xf32>) -> ()
}

// CHECK:      "ov.ShuffleChannels"(%0) <{axis = 1 : i64, group = 2 : i64, friendly_name = "shuffle"
// CHECK:      "ov.Reshape"(%0, %{{.*}}) <{special_zero = false, friendly_name = "reshape2"
// CHECK:      "ov.Relu"(%0) <{friendly_name = "relu"
// CHECK:      "ov.Relu"(%0) <{friendly_name = "relu2"
// CHECK-NOT:  "ov.Squeeze"
// CHECK-NOT:  "ov.Unsqueeze"
// CHECK:      %[[T:.*]] = "ov.Transpose"(%0, %{{.*}}) <{friendly_name = "shared"
// CHECK:      "ov.Transpose"(%[[T]], %{{.*}}) <{friendly_name = "kept"
