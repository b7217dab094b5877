// RUN: xmo-opt %s -p ov-loop-to-sequence --split-input-file | filecheck %s
// Recurrent loops become one Sequence op with the weights in OpenVINO's gate
// order and layout (W [dirs, gates*H, I], R [dirs, gates*H, H], B [dirs, gates*H]);
// a cell that is not one stays a loop. Hidden and input sizes are 1, so each
// weight is one number per gate.

// An LSTM cell (Keras' gate order i, f, c, o: W = 1 2 3 4, R = 5 6 7 8,
// b = 9 10 11 12) in a TensorIterator walking x [N, T, 1] along axis 1 ->
// LSTMSequence with the gates in OpenVINO's order f, i, c, o.
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<?x?x1xf32>
  %h0 = "ov.Parameter"() <{friendly_name = "h0"}> : () -> tensor<?x1xf32>
  %c0 = "ov.Parameter"() <{friendly_name = "c0"}> : () -> tensor<?x1xf32>
  %h, %c, %y = "ov.TensorIterator"(%h0, %c0, %x) <{input_map = [{kind = "merged", external = 0 : i64, parameter = 0 : i64, result = 0 : i64}, {kind = "merged", external = 1 : i64, parameter = 1 : i64, result = 1 : i64}, {kind = "slice", external = 2 : i64, parameter = 2 : i64, axis = 1 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}], output_map = [{kind = "last", result = 0 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "last", result = 1 : i64, external = 1 : i64, iteration = -1 : i64}, {kind = "concat", result = 2 : i64, external = 2 : i64, axis = 1 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}], friendly_name = "lstm"}> ({
    %ph = "ov.Parameter"() : () -> tensor<?x1xf32>
    %pc = "ov.Parameter"() : () -> tensor<?x1xf32>
    %px = "ov.Parameter"() : () -> tensor<?x1x1xf32>
    %one = "ov.Constant"() <{value = dense<1> : tensor<1xi64>}> : () -> tensor<1xi64>
    %xt = "ov.Squeeze"(%px, %one) : (tensor<?x1x1xf32>, tensor<1xi64>) -> tensor<?x1xf32>
    %wx = "ov.Constant"() <{value = dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
    %wh = "ov.Constant"() <{value = dense<[[5.0, 6.0, 7.0, 8.0]]> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
    %b = "ov.Constant"() <{value = dense<[9.0, 10.0, 11.0, 12.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
    %mx = "ov.MatMul"(%xt, %wx) : (tensor<?x1xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
    %mh = "ov.MatMul"(%ph, %wh) : (tensor<?x1xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
    %s = "ov.Add"(%mx, %mh) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
    %z = "ov.Add"(%s, %b) : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    %ax = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
    %sizes = "ov.Constant"() <{value = dense<1> : tensor<4xi64>}> : () -> tensor<4xi64>
    %zi, %zf, %zc, %zo = "ov.VariadicSplit"(%z, %ax, %sizes) : (tensor<?x4xf32>, tensor<i64>, tensor<4xi64>) -> (tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
    %i = "ov.Sigmoid"(%zi) : (tensor<?x1xf32>) -> tensor<?x1xf32>
    %f = "ov.Sigmoid"(%zf) : (tensor<?x1xf32>) -> tensor<?x1xf32>
    %g = "ov.Tanh"(%zc) : (tensor<?x1xf32>) -> tensor<?x1xf32>
    %o = "ov.Sigmoid"(%zo) : (tensor<?x1xf32>) -> tensor<?x1xf32>
    %fc = "ov.Multiply"(%pc, %f) : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %ig = "ov.Multiply"(%g, %i) : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %cn = "ov.Add"(%ig, %fc) : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %tc = "ov.Tanh"(%cn) : (tensor<?x1xf32>) -> tensor<?x1xf32>
    %hn = "ov.Multiply"(%tc, %o) : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %yt = "ov.Unsqueeze"(%hn, %one) : (tensor<?x1xf32>, tensor<1xi64>) -> tensor<?x1x1xf32>
    "ov.Result"(%hn) : (tensor<?x1xf32>) -> ()
    "ov.Result"(%cn) : (tensor<?x1xf32>) -> ()
    "ov.Result"(%yt) : (tensor<?x1x1xf32>) -> ()
  }) : (tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x?x1xf32>) -> (tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x?x1xf32>)
  "ov.Result"(%y) : (tensor<?x?x1xf32>) -> ()
  "ov.Result"(%h) : (tensor<?x1xf32>) -> ()
  "ov.Result"(%c) : (tensor<?x1xf32>) -> ()
}

// CHECK-LABEL: builtin.module
// CHECK-NOT:   ov.TensorIterator
// CHECK:       %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"}>
// CHECK-DAG:   %[[W:.*]] = "ov.Constant"() <{value = dense<[{{\[}}[2.000000e+00], [1.000000e+00], [3.000000e+00], [4.000000e+00]]]> : tensor<1x4x1xf32>
// CHECK-DAG:   %[[R:.*]] = "ov.Constant"() <{value = dense<[{{\[}}[6.000000e+00], [5.000000e+00], [7.000000e+00], [8.000000e+00]]]> : tensor<1x4x1xf32>
// CHECK-DAG:   %[[B:.*]] = "ov.Constant"() <{value = dense<{{\[}}[1.000000e+01, 9.000000e+00, 1.100000e+01, 1.200000e+01]]> : tensor<1x4xf32>
// CHECK:       %[[Y:.*]], %[[HO:.*]], %[[CO:.*]] = "ov.LSTMSequence"(%[[X]], %{{.*}}, %{{.*}}, %{{.*}}, %[[W]], %[[R]], %[[B]]) <{direction = "forward", hidden_size = 1 : i64, activations = ["sigmoid", "tanh", "tanh"], clip = 0.000000e+00 : f64, friendly_name = "lstm"}> : (tensor<?x?x1xf32>, tensor<?x1x1xf32>, tensor<?x1x1xf32>, tensor<?xi32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>, tensor<1x4xf32>) -> (tensor<?x1x?x1xf32>, tensor<?x1x1xf32>, tensor<?x1x1xf32>)
// CHECK:       %[[YS:.*]] = "ov.Squeeze"(%[[Y]], %{{.*}}) {{.*}} -> tensor<?x?x1xf32>
// CHECK:       %[[H:.*]] = "ov.Squeeze"(%[[HO]], %{{.*}}) {{.*}} -> tensor<?x1xf32>
// CHECK:       %[[C:.*]] = "ov.Squeeze"(%[[CO]], %{{.*}}) {{.*}} -> tensor<?x1xf32>
// CHECK:       "ov.Result"(%[[YS]])
// CHECK:       "ov.Result"(%[[H]])
// CHECK:       "ov.Result"(%[[C]])

// -----

// A GRU cell with the reset gate after the recurrent MatMul, in a Loop that
// Gathers x [T, N, 1] at the iteration number, T times (the trip count is
// x's dim 0): GRUSequence with linear_before_reset; B = [bz, br, bx_h, bh_h]
// (x bias 4 5 6 plus recurrent bias 10 11 12: 14 16 6 12). x is transposed to
// batch major, Y back to time major.
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<?x?x1xf32>
  %h0 = "ov.Parameter"() <{friendly_name = "h0"}> : () -> tensor<?x1xf32>
  %shape = "ov.ShapeOf"(%x) <{output_type = "i64"}> : (tensor<?x?x1xf32>) -> tensor<3xi64>
  %zero = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
  %steps = "ov.Gather"(%shape, %zero, %zero) <{batch_dims = 0 : i64}> : (tensor<3xi64>, tensor<i64>, tensor<i64>) -> tensor<i64>
  %true = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %h, %y = "ov.Loop"(%steps, %true, %h0, %x) <{input_map = [{kind = "merged", external = 2 : i64, parameter = 1 : i64, result = 1 : i64}, {kind = "invariant", external = 3 : i64, parameter = 2 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "concat", result = 2 : i64, external = 1 : i64, axis = 0 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}], body_condition_output_idx = 0 : i64, current_iteration_input_idx = 0 : i64, friendly_name = "gru"}> ({
    %it = "ov.Parameter"() : () -> tensor<i64>
    %ph = "ov.Parameter"() : () -> tensor<?x1xf32>
    %px = "ov.Parameter"() : () -> tensor<?x?x1xf32>
    %ax0 = "ov.Constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %xt = "ov.Gather"(%px, %it, %ax0) <{batch_dims = 0 : i64}> : (tensor<?x?x1xf32>, tensor<i64>, tensor<i64>) -> tensor<?x1xf32>
    %wx = "ov.Constant"() <{value = dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>}> : () -> tensor<1x3xf32>
    %bx = "ov.Constant"() <{value = dense<[4.0, 5.0, 6.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %wh = "ov.Constant"() <{value = dense<[[7.0, 8.0, 9.0]]> : tensor<1x3xf32>}> : () -> tensor<1x3xf32>
    %bh = "ov.Constant"() <{value = dense<[10.0, 11.0, 12.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
    %ax1 = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
    %mx = "ov.MatMul"(%xt, %wx) : (tensor<?x1xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
    %zx = "ov.Add"(%bx, %mx) : (tensor<3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    %xz, %xr, %xh = "ov.Split"(%zx, %ax1) <{num_splits = 3 : i64}> : (tensor<?x3xf32>, tensor<i64>) -> (tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
    %mh = "ov.MatMul"(%ph, %wh) : (tensor<?x1xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
    %zh = "ov.Add"(%mh, %bh) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    %hz, %hr, %hh = "ov.Split"(%zh, %ax1) <{num_splits = 3 : i64}> : (tensor<?x3xf32>, tensor<i64>) -> (tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
    %az = "ov.Add"(%xz, %hz) : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %z = "ov.Sigmoid"(%az) : (tensor<?x1xf32>) -> tensor<?x1xf32>
    %ar = "ov.Add"(%hr, %xr) : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %r = "ov.Sigmoid"(%ar) : (tensor<?x1xf32>) -> tensor<?x1xf32>
    %rh = "ov.Multiply"(%hh, %r) : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %an = "ov.Add"(%xh, %rh) : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %n = "ov.Tanh"(%an) : (tensor<?x1xf32>) -> tensor<?x1xf32>
    %c1 = "ov.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    %omz = "ov.Subtract"(%c1, %z) : (tensor<f32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %t1 = "ov.Multiply"(%omz, %n) : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %t2 = "ov.Multiply"(%ph, %z) : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %hn = "ov.Add"(%t1, %t2) : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %yt = "ov.Unsqueeze"(%hn, %ax0) : (tensor<?x1xf32>, tensor<i64>) -> tensor<1x?x1xf32>
    %go = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%go) : (tensor<i1>) -> ()
    "ov.Result"(%hn) : (tensor<?x1xf32>) -> ()
    "ov.Result"(%yt) : (tensor<1x?x1xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<?x1xf32>, tensor<?x?x1xf32>) -> (tensor<?x1xf32>, tensor<?x?x1xf32>)
  "ov.Result"(%y) : (tensor<?x?x1xf32>) -> ()
  "ov.Result"(%h) : (tensor<?x1xf32>) -> ()
}

// CHECK-LABEL: builtin.module
// CHECK-NOT:   ov.Loop
// CHECK:       %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"}>
// CHECK:       %[[XB:.*]] = "ov.Transpose"(%[[X]], %{{.*}})
// CHECK-DAG:   %[[W:.*]] = "ov.Constant"() <{value = dense<[{{\[}}[1.000000e+00], [2.000000e+00], [3.000000e+00]]]> : tensor<1x3x1xf32>
// CHECK-DAG:   %[[R:.*]] = "ov.Constant"() <{value = dense<[{{\[}}[7.000000e+00], [8.000000e+00], [9.000000e+00]]]> : tensor<1x3x1xf32>
// CHECK-DAG:   %[[B:.*]] = "ov.Constant"() <{value = dense<{{\[}}[1.400000e+01, 1.600000e+01, 6.000000e+00, 1.200000e+01]]> : tensor<1x4xf32>
// CHECK:       %[[Y:.*]], %[[HO:.*]] = "ov.GRUSequence"(%[[XB]], %{{.*}}, %{{.*}}, %[[W]], %[[R]], %[[B]]) <{direction = "forward", hidden_size = 1 : i64, activations = ["sigmoid", "tanh"], clip = 0.000000e+00 : f64, linear_before_reset = true, friendly_name = "gru"}>
// CHECK:       %[[YS:.*]] = "ov.Squeeze"(%[[Y]], %{{.*}})
// CHECK:       %[[YT:.*]] = "ov.Transpose"(%[[YS]], %{{.*}})
// CHECK:       %[[H:.*]] = "ov.Squeeze"(%[[HO]], %{{.*}})
// CHECK:       "ov.Result"(%[[YT]])
// CHECK:       "ov.Result"(%[[H]])

// -----

// An RNN cell (one MatMul of Concat([x, h]): W = 2, R = 3, b = 4) in a
// TensorIterator walking x [T, N, 1] backwards, its sequence output stacked
// backwards too (in x's order): RNNSequence direction "reverse", nothing
// reversed around it.
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<?x?x1xf32>
  %h0 = "ov.Parameter"() <{friendly_name = "h0"}> : () -> tensor<?x1xf32>
  %h, %y = "ov.TensorIterator"(%h0, %x) <{input_map = [{kind = "merged", external = 0 : i64, parameter = 0 : i64, result = 0 : i64}, {kind = "slice", external = 1 : i64, parameter = 1 : i64, axis = 0 : i64, start = -1 : i64, stride = -1 : i64, end = 0 : i64, part_size = 1 : i64}], output_map = [{kind = "last", result = 0 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "concat", result = 1 : i64, external = 1 : i64, axis = 0 : i64, start = -1 : i64, stride = -1 : i64, end = 0 : i64, part_size = 1 : i64}], friendly_name = "rnn"}> ({
    %ph = "ov.Parameter"() : () -> tensor<?x1xf32>
    %px = "ov.Parameter"() : () -> tensor<1x?x1xf32>
    %ax0 = "ov.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %xt = "ov.Squeeze"(%px, %ax0) : (tensor<1x?x1xf32>, tensor<1xi64>) -> tensor<?x1xf32>
    %xh = "ov.Concat"(%xt, %ph) <{axis = 1 : i64}> : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x2xf32>
    %w = "ov.Constant"() <{value = dense<[[2.0], [3.0]]> : tensor<2x1xf32>}> : () -> tensor<2x1xf32>
    %b = "ov.Constant"() <{value = dense<[4.0]> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = "ov.MatMul"(%xh, %w) : (tensor<?x2xf32>, tensor<2x1xf32>) -> tensor<?x1xf32>
    %a = "ov.Add"(%m, %b) : (tensor<?x1xf32>, tensor<1xf32>) -> tensor<?x1xf32>
    %hn = "ov.Tanh"(%a) : (tensor<?x1xf32>) -> tensor<?x1xf32>
    %yt = "ov.Unsqueeze"(%hn, %ax0) : (tensor<?x1xf32>, tensor<1xi64>) -> tensor<1x?x1xf32>
    "ov.Result"(%hn) : (tensor<?x1xf32>) -> ()
    "ov.Result"(%yt) : (tensor<1x?x1xf32>) -> ()
  }) : (tensor<?x1xf32>, tensor<?x?x1xf32>) -> (tensor<?x1xf32>, tensor<?x?x1xf32>)
  "ov.Result"(%y) : (tensor<?x?x1xf32>) -> ()
  "ov.Result"(%h) : (tensor<?x1xf32>) -> ()
}

// CHECK-LABEL: builtin.module
// CHECK-NOT:   ov.TensorIterator
// CHECK:       "ov.RNNSequence"({{.*}}) <{direction = "reverse", hidden_size = 1 : i64, activations = ["tanh"], clip = 0.000000e+00 : f64, friendly_name = "rnn"}>
// CHECK-NOT:   "ov.Slice"
// CHECK:       "ov.Result"

// -----

// The same cell with Relu: not an RNN cell OpenVINO's RNNSequence is given
// here (only tanh is): the TensorIterator stays.
builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<?x?x1xf32>
  %h0 = "ov.Parameter"() <{friendly_name = "h0"}> : () -> tensor<?x1xf32>
  %h = "ov.TensorIterator"(%h0, %x) <{input_map = [{kind = "merged", external = 0 : i64, parameter = 0 : i64, result = 0 : i64}, {kind = "slice", external = 1 : i64, parameter = 1 : i64, axis = 0 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}], output_map = [{kind = "last", result = 0 : i64, external = 0 : i64, iteration = -1 : i64}], friendly_name = "relu_rnn"}> ({
    %ph = "ov.Parameter"() : () -> tensor<?x1xf32>
    %px = "ov.Parameter"() : () -> tensor<1x?x1xf32>
    %ax0 = "ov.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
    %xt = "ov.Squeeze"(%px, %ax0) : (tensor<1x?x1xf32>, tensor<1xi64>) -> tensor<?x1xf32>
    %xh = "ov.Concat"(%xt, %ph) <{axis = 1 : i64}> : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x2xf32>
    %w = "ov.Constant"() <{value = dense<[[2.0], [3.0]]> : tensor<2x1xf32>}> : () -> tensor<2x1xf32>
    %m = "ov.MatMul"(%xh, %w) : (tensor<?x2xf32>, tensor<2x1xf32>) -> tensor<?x1xf32>
    %hn = "ov.Relu"(%m) : (tensor<?x1xf32>) -> tensor<?x1xf32>
    "ov.Result"(%hn) : (tensor<?x1xf32>) -> ()
  }) : (tensor<?x1xf32>, tensor<?x?x1xf32>) -> tensor<?x1xf32>
  "ov.Result"(%h) : (tensor<?x1xf32>) -> ()
}

// CHECK-LABEL: builtin.module
// CHECK:       "ov.TensorIterator"
// CHECK-NOT:   "ov.RNNSequence"
