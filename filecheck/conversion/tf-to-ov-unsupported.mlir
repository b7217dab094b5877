// RUN: not xmo-opt %s -p convert-tf-to-ov 2>&1 | filecheck %s
// One report for every node that cannot be converted: unknown op types and
// nodes a converter refuses, with counts and node names; nodes depending on a
// failed node are not reported again, and a dead node is not converted at all.

builtin.module {
  %x = "tf.Placeholder"() <{node_name = "x", dtype = f32, shape = #tf.shape<[1, 4, 4, 4]>}> : () -> tensor<1x4x4x4xf32>
  %a = "tf.Unknown"(%x) <{node_name = "fancy_a", op_type = "FancyOp"}> : (tensor<1x4x4x4xf32>) -> tensor<*x!tf.unknown>
  %b = "tf.Unknown"(%x) <{node_name = "fancy_b", op_type = "FancyOp"}> : (tensor<1x4x4x4xf32>) -> tensor<*x!tf.unknown>
  %d = "tf.Unknown"(%x) <{node_name = "dead", op_type = "DeadOp"}> : (tensor<1x4x4x4xf32>) -> tensor<*x!tf.unknown>
  %n = "tf.Placeholder"() <{node_name = "n", dtype = i32, shape = #tf.shape<[?]>}> : () -> tensor<?xi32>
  %c = "tf.StridedSlice"(%x, %n, %n, %n) <{node_name = "slice", T = f32, Index = i32}> : (tensor<1x4x4x4xf32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> tensor<*xf32>
  %r = "tf.Relu"(%a) <{node_name = "after", T = f32}> : (tensor<*x!tf.unknown>) -> tensor<*xf32>
  "tf.Output"(%r) <{tensor_name = "after"}> : (tensor<*xf32>) -> ()
  "tf.Output"(%b) <{tensor_name = "fancy_b"}> : (tensor<*x!tf.unknown>) -> ()
  "tf.Output"(%c) <{tensor_name = "slice"}> : (tensor<*xf32>) -> ()
}

// CHECK: List of operations that cannot be converted:
// CHECK-NEXT:   FancyOp (2): fancy_a, fancy_b
// CHECK-NEXT:       reason: unknown operation
// CHECK-NEXT:   StridedSlice (1): slice
// CHECK-NEXT:       reason: begin, end and strides must be vectors of one static length
// CHECK-NOT: DeadOp
// CHECK-NOT: after
