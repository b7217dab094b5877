// RUN: xmo-opt %s -p convert-onnx-to-ov | filecheck %s
// A Scan over a run-time length: an ov.TensorIterator. The state is merged (back edge from
// result 0); x is sliced on axis 0 forwards, b on axis 1 backwards (start -1, stride -1), both
// squeezed in the body; the outer w is invariant; y is concatenated on axis 0 backwards, z on
// axis 1 forwards, each unsqueezed in the body.

builtin.module {
  %s0 = "onnx.Input"() <{name = "s0"}> : () -> tensor<3xf32>
  %x = "onnx.Input"() <{name = "x", dim_params = ["T", ""]}> : () -> tensor<?x3xf32>
  %b = "onnx.Input"() <{name = "b", dim_params = ["", "T"]}> : () -> tensor<3x?xf32>
  %w = "onnx.Input"() <{name = "w"}> : () -> tensor<3xf32>
  %s, %y, %z = "onnx.Scan_v16"(%s0, %x, %b) <{num_scan_inputs = 2 : i64, scan_input_axes = array<i64: 0, 1>, scan_input_directions = array<i64: 0, 1>, scan_output_axes = array<i64: 0, 1>, scan_output_directions = array<i64: 1, 0>, output_names = ["s", "y", "z"]}> ({
  ^bb0(%s_in: tensor<3xf32>, %x_t: tensor<3xf32>, %b_t: tensor<3xf32>):
    %xw = "onnx.Mul"(%x_t, %w) <{output_names = ["xw"]}> : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %s_out = "onnx.Add"(%s_in, %xw) <{output_names = ["s_out"]}> : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %y_t = "onnx.Identity_v16"(%s_out) <{output_names = ["y_t"]}> : (tensor<3xf32>) -> tensor<3xf32>
    %z_t = "onnx.Sub"(%x_t, %b_t) <{output_names = ["z_t"]}> : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "onnx.Yield"(%s_out, %y_t, %z_t) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> ()
  }) : (tensor<3xf32>, tensor<?x3xf32>, tensor<3x?xf32>) -> (tensor<3xf32>, tensor<?x3xf32>, tensor<3x?xf32>)
  "onnx.Output"(%s) <{name = "s"}> : (tensor<3xf32>) -> ()
  "onnx.Output"(%y) <{name = "y"}> : (tensor<?x3xf32>) -> ()
  "onnx.Output"(%z) <{name = "z"}> : (tensor<3x?xf32>) -> ()
}

// CHECK:      %[[S0:.*]] = "ov.Parameter"() <{friendly_name = "s0"
// CHECK-NEXT: %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"
// CHECK-NEXT: %[[B:.*]] = "ov.Parameter"() <{friendly_name = "b"
// CHECK-NEXT: %[[W:.*]] = "ov.Parameter"() <{friendly_name = "w"
// CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}} = "ov.TensorIterator"(%[[S0]], %[[X]], %[[B]], %[[W]]) <{input_map = [{kind = "merged", external = 0 : i64, parameter = 0 : i64, result = 0 : i64}, {kind = "slice", external = 1 : i64, parameter = 1 : i64, axis = 0 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}, {kind = "slice", external = 2 : i64, parameter = 2 : i64, axis = 1 : i64, start = -1 : i64, stride = -1 : i64, end = 0 : i64, part_size = 1 : i64}, {kind = "invariant", external = 3 : i64, parameter = 3 : i64}], output_map = [{kind = "last", result = 0 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "concat", result = 1 : i64, external = 1 : i64, axis = 0 : i64, start = -1 : i64, stride = -1 : i64, end = 0 : i64, part_size = 1 : i64}, {kind = "concat", result = 2 : i64, external = 2 : i64, axis = 1 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}]
// CHECK-NEXT:   %[[S:.*]] = "ov.Parameter"() {{.*}} : () -> tensor<3xf32>
// CHECK-NEXT:   %[[XP:.*]] = "ov.Parameter"() {{.*}} : () -> tensor<1x3xf32>
// CHECK-NEXT:   %[[BP:.*]] = "ov.Parameter"() {{.*}} : () -> tensor<3x1xf32>
// CHECK-NEXT:   %[[WP:.*]] = "ov.Parameter"() {{.*}} : () -> tensor<3xf32>
// CHECK:        %[[XT:.*]] = "ov.Squeeze"(%[[XP]], %{{.*}})
// CHECK:        %[[BT:.*]] = "ov.Squeeze"(%[[BP]], %{{.*}})
// CHECK-NEXT:   %[[XW:.*]] = "ov.Multiply"(%[[XT]], %[[WP]])
// CHECK-NEXT:   %[[SO:.*]] = "ov.Add"(%[[S]], %[[XW]])
// CHECK-NEXT:   %[[Z:.*]] = "ov.Subtract"(%[[XT]], %[[BT]])
// CHECK:        %[[YU:.*]] = "ov.Unsqueeze"(%[[SO]], %{{.*}}) {{.*}} -> tensor<1x3xf32>
// CHECK:        %[[ZU:.*]] = "ov.Unsqueeze"(%[[Z]], %{{.*}}) {{.*}} -> tensor<3x1xf32>
// CHECK-NEXT:   "ov.Result"(%[[SO]])
// CHECK-NEXT:   "ov.Result"(%[[YU]])
// CHECK-NEXT:   "ov.Result"(%[[ZU]])
// CHECK-NEXT: }) : (tensor<3xf32>, tensor<?x3xf32>, tensor<3x?xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<?x3xf32>, tensor<3x?xf32>)
// CHECK-NOT:  onnx.
