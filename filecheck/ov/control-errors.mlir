// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier messages of ov.Loop, ov.TensorIterator and ov.If (one per case).

// a body parameter fed twice
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "invariant", external = 2 : i64, parameter = 0 : i64}, {kind = "invariant", external = 2 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: ov.Loop: body: input map entry InvariantInput(external=2, parameter=0): body parameter 0 is fed twice

// -----

// a body parameter fed by nothing
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "invariant", external = 2 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %6 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: ov.Loop: body: body parameter 1 is fed by no input

// -----

// a back edge of another element type
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "merged", external = 2 : i64, parameter = 0 : i64, result = 2 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
    %7 = "ov.Constant"() <{value = dense<1> : tensor<2xi32>}> : () -> tensor<2xi32>
    "ov.Result"(%7) : (tensor<2xi32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: back edge type tensor<2xi32> does not match the initial value's tensor<2xf32>

// -----

// a slice axis beyond the input's rank
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "slice", external = 2 : i64, parameter = 0 : i64, axis = 1 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<1xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<1xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<1xf32>
}
// CHECK: axis 1 is out of range for rank 1

// -----

// a trip count that is no integer
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<f32>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "invariant", external = 2 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<f32>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: ov.Loop: trip_count must be an i32/i64 scalar, got tensor<f32>

// -----

// no body condition output
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "invariant", external = 2 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}]}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: ov.Loop: body_condition_output_idx -1 is not a body result (2 results; OpenVINO needs the body's condition output)

// -----

// a body condition output that is no boolean
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "invariant", external = 2 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 1 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: ov.Loop: the body's condition output must be a boolean scalar, got tensor<2xf32>

// -----

// the execution condition port mapped into the body
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: external input 1 is not a data input (ports 2..2)

// -----

// a current-iteration parameter that is no integer
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "invariant", external = 2 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64, current_iteration_input_idx = 0 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: ov.Loop: the current-iteration body parameter must be an i32/i64 scalar, got tensor<2xf32>

// -----

// an unknown port map kind
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "sliced", external = 2 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: entry kind "sliced" is not one of invariant, merged, slice

// -----

// a slice entry without its axis
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "slice", external = 2 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: a 'slice' entry needs axis

// -----

// an output type the body contradicts
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "invariant", external = 2 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<3xf32>
}
// CHECK: ov.Loop: output 0 has type tensor<3xf32>, but inputs and attributes give tensor<2xf32>

// -----

// a body using a value from outside (IsolatedFromAbove)
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i64>
  %1 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Loop"(%0, %1, %2) <{input_map = [{kind = "invariant", external = 2 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64}], body_condition_output_idx = 0 : i64}> ({
    %4 = "ov.Parameter"() : () -> tensor<2xf32>
    %5 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "ov.Result"(%5) : (tensor<i1>) -> ()
    "ov.Result"(%2) : (tensor<2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: Operation using value defined out of its IsolatedFromAbove parent

// -----

// a concatenated output of the wrong length
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<7x2xf32>
  %1 = "ov.TensorIterator"(%0) <{input_map = [{kind = "slice", external = 0 : i64, parameter = 0 : i64, axis = 0 : i64}], output_map = [{kind = "concat", result = 0 : i64, external = 0 : i64, axis = 0 : i64}]}> ({
    %2 = "ov.Parameter"() : () -> tensor<1x2xf32>
    "ov.Result"(%2) : (tensor<1x2xf32>) -> ()
  }) : (tensor<7x2xf32>) -> tensor<6x2xf32>
}
// CHECK: ov.TensorIterator: output 0 has type tensor<6x2xf32>, but inputs and attributes give tensor<7x2xf32>

// -----

// a TensorIterator without a sliced input
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<7x2xf32>
  %1 = "ov.TensorIterator"(%0) <{input_map = [{kind = "invariant", external = 0 : i64, parameter = 0 : i64}], output_map = [{kind = "last", result = 0 : i64, external = 0 : i64}]}> ({
    %2 = "ov.Parameter"() : () -> tensor<7x2xf32>
    "ov.Result"(%2) : (tensor<7x2xf32>) -> ()
  }) : (tensor<7x2xf32>) -> tensor<7x2xf32>
}
// CHECK: ov.TensorIterator: a TensorIterator needs a sliced input (it gives the number of iterations)

// -----

// an If condition that is no boolean
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i32>
  %1 = "ov.Parameter"() : () -> tensor<2xf32>
  %2 = "ov.If"(%0, %1) <{then_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], then_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64}], else_input_map = [], else_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64}], friendly_name = "branch"}> ({
    %3 = "ov.Parameter"() : () -> tensor<2xf32>
    "ov.Result"(%3) : (tensor<2xf32>) -> ()
  }, {
    %4 = "ov.Constant"() <{value = dense<1> : tensor<2xf32>}> : () -> tensor<2xf32>
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: ov.If 'branch': cond must be a boolean scalar, got tensor<i32>

// -----

// branches of different element types
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i1>
  %1 = "ov.Parameter"() : () -> tensor<2xf32>
  %2 = "ov.If"(%0, %1) <{then_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], then_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64}], else_input_map = [], else_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64}], friendly_name = "branch"}> ({
    %3 = "ov.Parameter"() : () -> tensor<2xf32>
    "ov.Result"(%3) : (tensor<2xf32>) -> ()
  }, {
    %4 = "ov.Constant"() <{value = dense<1> : tensor<2xi32>}> : () -> tensor<2xi32>
    "ov.Result"(%4) : (tensor<2xi32>) -> ()
  }) : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: ov.If 'branch': else_body: output map entry LastOutput(result=0, external=0, iteration=-1): body result is tensor<2xi32>, output is tensor<2xf32>

// -----

// a branch input map naming a parameter the branch lacks
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i1>
  %1 = "ov.Parameter"() : () -> tensor<2xf32>
  %2 = "ov.If"(%0, %1) <{then_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], then_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64}], else_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], else_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64}], friendly_name = "branch"}> ({
    %3 = "ov.Parameter"() : () -> tensor<2xf32>
    "ov.Result"(%3) : (tensor<2xf32>) -> ()
  }, {
    %4 = "ov.Constant"() <{value = dense<1> : tensor<2xf32>}> : () -> tensor<2xf32>
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: ov.If 'branch': else_body: input map entry InvariantInput(external=1, parameter=0): body parameter 0 does not exist (0 parameters)

// -----

// an If branch with a back edge
builtin.module {
  %0 = "ov.Parameter"() : () -> tensor<i1>
  %1 = "ov.Parameter"() : () -> tensor<2xf32>
  %2 = "ov.If"(%0, %1) <{then_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], then_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64}], else_input_map = [{kind = "merged", external = 1 : i64, parameter = 0 : i64, result = 0 : i64}], else_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64}], friendly_name = "branch"}> ({
    %3 = "ov.Parameter"() : () -> tensor<2xf32>
    "ov.Result"(%3) : (tensor<2xf32>) -> ()
  }, {
    %4 = "ov.Constant"() <{value = dense<1> : tensor<2xf32>}> : () -> tensor<2xf32>
    "ov.Result"(%4) : (tensor<2xf32>) -> ()
  }) : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
}
// CHECK: an If branch has only invariant inputs and last outputs
