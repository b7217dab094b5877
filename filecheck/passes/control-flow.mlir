// RUN: xmo-opt %s -p ov-constant-fold,ov-cse,ov-dce | filecheck %s
// CSE, DCE and constant folding work inside a Loop's body, each graph on its
// own: the body's constant Add folds, its duplicate Relu merges, its dead
// Sigmoid and the folded inputs go; nothing crosses the body's boundary (the
// body's `true` condition is not merged with the model's).

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "n"}> : () -> tensor<i64>
  %1 = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<2xf32>
  %2 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %3 = "ov.Relu"(%1) : (tensor<2xf32>) -> tensor<2xf32>
  %4 = "ov.Loop"(%0, %2, %3) <{input_map = [{kind = "merged", external = 2 : i64, parameter = 0 : i64, result = 1 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64, friendly_name = "loop"}> ({
    %5 = "ov.Parameter"() : () -> tensor<2xf32>
    %6 = "ov.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
    %7 = "ov.Constant"() <{value = dense<2.0> : tensor<2xf32>}> : () -> tensor<2xf32>
    %8 = "ov.Add"(%6, %7) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %9 = "ov.Relu"(%5) : (tensor<2xf32>) -> tensor<2xf32>
    %10 = "ov.Relu"(%5) : (tensor<2xf32>) -> tensor<2xf32>
    %11 = "ov.Sigmoid"(%5) : (tensor<2xf32>) -> tensor<2xf32>
    %12 = "ov.Add"(%9, %8) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %13 = "ov.Multiply"(%10, %12) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %14 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%14) : (tensor<i1>) -> ()
    "ov.Result"(%13) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  "ov.Result"(%4) : (tensor<2xf32>) -> ()
}

// CHECK:      %2 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
// CHECK-NEXT: %3 = "ov.Relu"(%1) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %4 = "ov.Loop"(%0, %2, %3)
// CHECK-NEXT:   %5 = "ov.Parameter"() : () -> tensor<2xf32>
// CHECK-NEXT:   %6 = "ov.Constant"() <{value = dense<3.000000e+00> : tensor<2xf32>}> : () -> tensor<2xf32>
// CHECK-NEXT:   %7 = "ov.Relu"(%5) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:   %8 = "ov.Add"(%7, %6) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:   %9 = "ov.Multiply"(%7, %8) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:   %10 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
// CHECK-NEXT:   "ov.Result"(%10) : (tensor<i1>) -> ()
// CHECK-NEXT:   "ov.Result"(%9) : (tensor<2xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: "ov.Result"(%4) : (tensor<2xf32>) -> ()
