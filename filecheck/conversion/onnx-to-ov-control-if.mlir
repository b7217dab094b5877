// RUN: xmo-opt %s -p convert-onnx-to-ov | filecheck %s
// An If on a run-time condition whose branches give different shapes: an ov.If whose
// branches take the outer values they use as Parameters (each branch its own).

builtin.module {
  %c = "onnx.Input"() <{name = "c"}> : () -> tensor<i1>
  %x = "onnx.Input"() <{name = "x"}> : () -> tensor<2x3xf32>
  %y = "onnx.Input"() <{name = "y"}> : () -> tensor<2x3xf32>
  %z = "onnx.If_v16"(%c) <{output_names = ["z"]}> ({
    %e = "onnx.Mul"(%x, %y) <{output_names = ["e"]}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    "onnx.Yield"(%e) : (tensor<2x3xf32>) -> ()
  }, {
    %t = "onnx.ReduceSum"(%x) <{keepdims = 1 : i64, output_names = ["t"]}> : (tensor<2x3xf32>) -> tensor<1x1xf32>
    "onnx.Yield"(%t) : (tensor<1x1xf32>) -> ()
  }) : (tensor<i1>) -> tensor<?x?xf32>
  "onnx.Output"(%z) <{name = "z"}> : (tensor<?x?xf32>) -> ()
}

// CHECK:      %[[C:.*]] = "ov.Parameter"() <{friendly_name = "c"
// CHECK-NEXT: %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"
// CHECK-NEXT: %[[Y:.*]] = "ov.Parameter"() <{friendly_name = "y"
// CHECK-NEXT: %{{.*}} = "ov.If"(%[[C]], %[[X]], %[[Y]]) <{then_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], {{.*}} else_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}, {kind = "invariant", external = 2 : i64, parameter = 1 : i64}], {{.*}} friendly_name = "z"
// CHECK-NEXT:   %[[TX:.*]] = "ov.Parameter"() <{friendly_name = "z/then/in0"}> : () -> tensor<2x3xf32>
// CHECK:        %[[T:.*]] = "ov.ReduceSum"(%[[TX]], %{{.*}}) <{keep_dims = true, friendly_name = "z/then/t"}>
// CHECK-NEXT:   "ov.Result"(%[[T]]) : (tensor<1x1xf32>) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT:   %[[EX:.*]] = "ov.Parameter"() <{friendly_name = "z/else/in0"}>
// CHECK-NEXT:   %[[EY:.*]] = "ov.Parameter"() <{friendly_name = "z/else/in1"}>
// CHECK-NEXT:   %[[E:.*]] = "ov.Multiply"(%[[EX]], %[[EY]])
// CHECK-NEXT:   "ov.Result"(%[[E]]) : (tensor<2x3xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<?x?xf32>
// CHECK-NOT:  ov.Select
// CHECK-NOT:  onnx.
