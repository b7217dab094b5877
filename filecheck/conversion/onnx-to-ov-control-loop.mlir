// RUN: xmo-opt %s -p convert-onnx-to-ov | filecheck %s
// A Loop with a run-time trip count and condition: an ov.Loop. Body parameters: the
// iteration number (current_iteration_input_idx), the carried value (merged: back edge from
// result 1), the outer values x and lim (invariant); results: the condition
// (body_condition_output_idx), the carried value, the scan output unsqueezed (concat on axis 0).

builtin.module {
  %M = "onnx.Input"() <{name = "M"}> : () -> tensor<i64>
  %c = "onnx.Input"() <{name = "c"}> : () -> tensor<i1>
  %x = "onnx.Input"() <{name = "x"}> : () -> tensor<2xf32>
  %v0 = "onnx.Input"() <{name = "v0"}> : () -> tensor<2xf32>
  %lim = "onnx.Input"() <{name = "lim"}> : () -> tensor<f32>
  %v, %vs = "onnx.Loop_v16"(%M, %c, %v0) <{output_names = ["v", "vs"]}> ({
  ^bb0(%i: tensor<i64>, %cond_in: tensor<i1>, %v_in: tensor<2xf32>):
    %fi = "onnx.Cast_v13"(%i) <{to = 1 : i64, output_names = ["fi"]}> : (tensor<i64>) -> tensor<f32>
    %xi = "onnx.Mul"(%x, %fi) <{output_names = ["xi"]}> : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
    %v_out = "onnx.Add"(%v_in, %xi) <{output_names = ["v_out"]}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %scan_v = "onnx.Identity_v16"(%v_out) <{output_names = ["scan_v"]}> : (tensor<2xf32>) -> tensor<2xf32>
    %s = "onnx.ReduceSum"(%v_out) <{keepdims = 0 : i64, output_names = ["s"]}> : (tensor<2xf32>) -> tensor<f32>
    %cond_out = "onnx.Less"(%s, %lim) <{output_names = ["cond_out"]}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "onnx.Yield"(%cond_out, %v_out, %scan_v) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>)
  "onnx.Output"(%v) <{name = "v"}> : (tensor<2xf32>) -> ()
  "onnx.Output"(%vs) <{name = "vs"}> : (tensor<?x2xf32>) -> ()
}

// CHECK:      %[[M:.*]] = "ov.Parameter"() <{friendly_name = "M"
// CHECK-NEXT: %[[C:.*]] = "ov.Parameter"() <{friendly_name = "c"
// CHECK-NEXT: %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"
// CHECK-NEXT: %[[V0:.*]] = "ov.Parameter"() <{friendly_name = "v0"
// CHECK-NEXT: %[[LIM:.*]] = "ov.Parameter"() <{friendly_name = "lim"
// CHECK-NEXT: %{{.*}}, %{{.*}} = "ov.Loop"(%[[M]], %[[C]], %[[V0]], %[[X]], %[[LIM]]) <{input_map = [{kind = "merged", external = 2 : i64, parameter = 1 : i64, result = 1 : i64}, {kind = "invariant", external = 3 : i64, parameter = 2 : i64}, {kind = "invariant", external = 4 : i64, parameter = 3 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "concat", result = 2 : i64, external = 1 : i64, axis = 0 : i64, {{.*}}}], body_condition_output_idx = 0 : i64, current_iteration_input_idx = 0 : i64
// CHECK-NEXT:   %[[I:.*]] = "ov.Parameter"() <{friendly_name = "v/body/iter"}> : () -> tensor<i64>
// CHECK-NEXT:   %[[V:.*]] = "ov.Parameter"() <{friendly_name = "v/body/v0"}> : () -> tensor<2xf32>
// CHECK-NEXT:   %[[BX:.*]] = "ov.Parameter"() <{friendly_name = "v/body/in0"}> : () -> tensor<2xf32>
// CHECK-NEXT:   %[[BL:.*]] = "ov.Parameter"() <{friendly_name = "v/body/in1"}> : () -> tensor<f32>
// CHECK:        %[[FI:.*]] = "ov.Convert"(%[[I]])
// CHECK-NEXT:   %[[XI:.*]] = "ov.Multiply"(%[[BX]], %[[FI]])
// CHECK-NEXT:   %[[VO:.*]] = "ov.Add"(%[[V]], %[[XI]])
// CHECK:        %[[CO:.*]] = "ov.Less"(%{{.*}}, %[[BL]])
// CHECK:        %[[SV:.*]] = "ov.Unsqueeze"(%[[VO]], %{{.*}})
// CHECK-NEXT:   "ov.Result"(%[[CO]]) : (tensor<i1>) -> ()
// CHECK-NEXT:   "ov.Result"(%[[VO]]) : (tensor<2xf32>) -> ()
// CHECK-NEXT:   "ov.Result"(%[[SV]]) : (tensor<1x2xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<2xf32>, tensor<f32>) -> (tensor<2xf32>, tensor<?x2xf32>)
// CHECK-NOT:  onnx.
