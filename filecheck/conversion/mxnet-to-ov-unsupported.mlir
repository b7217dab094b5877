// RUN: not xmo-opt %s -p convert-mxnet-to-ov 2>&1 | filecheck %s
// One report: an operator without a converter, a Custom operator (keyed by
// its op_type) no extension converts, and a node a converter refuses; the
// node after a failed one is not reported again.

builtin.module {
  %x = "mxnet.Var"() <{node_name = "data", attrs = {}}> : () -> tensor<1x4xf32>
  %a = "mxnet.Node"(%x) <{op_type = "_contrib_Fancy", node_name = "fancy", attrs = {}}> : (tensor<1x4xf32>) -> tensor<*xf32>
  %c = "mxnet.Node"(%x) <{op_type = "Custom", node_name = "mine", attrs = {op_type = "my_op", scale = "2"}}> : (tensor<1x4xf32>) -> tensor<*xf32>
  %p = "mxnet.Node"(%x) <{op_type = "Pooling", node_name = "pool", attrs = {pool_type = "lp", kernel = "(2,)"}}> : (tensor<1x4xf32>) -> tensor<*xf32>
  %r = "mxnet.Node"(%a) <{op_type = "Activation", node_name = "after", attrs = {act_type = "relu"}}> : (tensor<*xf32>) -> tensor<*xf32>
  "mxnet.Output"(%r) <{tensor_name = "after_output"}> : (tensor<*xf32>) -> ()
  "mxnet.Output"(%c) <{tensor_name = "mine_output"}> : (tensor<*xf32>) -> ()
  "mxnet.Output"(%p) <{tensor_name = "pool_output"}> : (tensor<*xf32>) -> ()
}

// CHECK: List of operations that cannot be converted:
// CHECK-NEXT:   Custom:my_op (1): mine
// CHECK-NEXT:       reason: custom operator 'my_op': no extension provides its extractor (--extensions DIR with front/mxnet/)
// CHECK-NEXT:   Pooling (1): pool
// CHECK-NEXT:       reason: pool_type='lp' (supported: max, avg, sum)
// CHECK-NEXT:   _contrib_Fancy (1): fancy
// CHECK-NEXT:       reason: no converter for this operator
// CHECK-NOT: after
