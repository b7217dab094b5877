// RUN: not xmo-opt %S/Inputs/tf_dangling.pbtxt 2>&1 | filecheck %s
// A malformed GraphDef ends in one error line naming the node at fault.

// CHECK: xmo-opt: error: node 'y' (Relu): input 'missing:0' names no node of the graph
// CHECK-NOT: Traceback
