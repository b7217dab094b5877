// RUN: xmo-opt %S/Inputs/tf_function.pbtxt | filecheck %s
// RUN: xmo-opt %S/Inputs/tf_function.pbtxt | xmo-opt | filecheck %s
// RUN: xmo-opt %S/Inputs/tf_function.pbtxt -p convert-tf-to-ov | filecheck %s --check-prefix=OV
// The GraphDef's function library: the function the PartitionedCall names
// loads as a tf.Function symbol (arguments typed from the signature and the
// _output_shapes arg attr, node outputs "split:output:1" resolved to ports
// of the Split's OpDef, tf.Return in output-arg order) before the graph; a
// function nothing calls does not load. The printed module parses back
// (second RUN line); the call is inlined when converted (third).

// CHECK:      builtin.module {
// CHECK-NEXT:   "tf.Function"() <{sym_name = "halves", arg_names = ["a"], result_names = ["lo", "hi"]}> ({
// CHECK-NEXT:   ^bb0(%a: tensor<?x4xf32>):
// CHECK-NEXT:     %dim = "tf.Const"() <{node_name = "dim", dtype = i32, value = dense<1> : tensor<i32>}> : () -> tensor<i32>
// CHECK-NEXT:     %split, %split_1 = "tf.Split"(%dim, %a) <{node_name = "split", T = f32, num_split = 2 : i64}> : (tensor<i32>, tensor<?x4xf32>) -> (tensor<*xf32>, tensor<*xf32>)
// CHECK-NEXT:     "tf.Return"(%split, %split_1) : (tensor<*xf32>, tensor<*xf32>) -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NOT:    never_called
// CHECK-NEXT:   %x = "tf.Placeholder"()
// CHECK-NEXT:   %call, %call_1 = "tf.PartitionedCall"(%x) <{node_name = "call", Tin = [f32], Tout = [f32, f32], f = #tf.func<"halves", {}>}>
// CHECK-NEXT:   %y = "tf.AddV2"(%call, %call_1)
// CHECK-NEXT:   "tf.Output"(%y) <{tensor_name = "y"}>
// CHECK-NEXT: }

// OV:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"
// OV:      %[[LO:.*]], %[[HI:.*]] = "ov.Split"(%[[X]], %{{.*}}) <{num_splits = 2 : i64, friendly_name = "call", tensor_names = {{\[\["call", "call:0"\], \["call:1"\]\]}}}>
// OV-NEXT: %[[Y:.*]] = "ov.Add"(%[[LO]], %[[HI]])
// OV-NEXT: "ov.Result"(%[[Y]])
// OV-NOT:  tf.
