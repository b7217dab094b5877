// RUN: xmo-opt %s --extensions %S/../../examples/transformations -p 'rewire-input{node=op4 port=1 source=op3}' | filecheck %s
// docs/transformations.md: op4.in_port(1).disconnect();
// op3.out_port(0).connect(op4.in_port(1)). op2 lost its only consumer.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "op1"}> : () -> tensor<4xf32>
  %b = "ov.Relu"(%x) <{friendly_name = "op2"}> : (tensor<4xf32>) -> tensor<4xf32>
  %c = "ov.Exp"(%x) <{friendly_name = "op3"}> : (tensor<4xf32>) -> tensor<4xf32>
  %d = "ov.Add"(%x, %b) <{friendly_name = "op4"}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "ov.Result"(%d) : (tensor<4xf32>) -> ()
}

// CHECK-NOT:  ov.Relu
// CHECK:      %c = "ov.Exp"(%x) <{friendly_name = "op3"}>
// CHECK-NEXT: %d = "ov.Add"(%x, %c) <{friendly_name = "op4"}>
