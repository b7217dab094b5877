// RUN: xmo-opt %s -p convert-onnx-to-ov | filecheck %s
// ai.onnx.ml TreeEnsembleRegressor: all trees advance together, one
// gather / compare / gather step per depth level (two trees, depth 2), then
// the leaf weights are gathered and summed over the trees.

builtin.module {
  %X = "onnx.Input"() <{name = "X"}> : () -> tensor<?x2xf32>
  %Y = "onnx.ml.TreeEnsembleRegressor_v1"(%X) <{n_targets = 1 : i64, nodes_falsenodeids = array<i64: 2, 0, 0, 2, 0, 4, 0, 0>, nodes_featureids = array<i64: 0, 0, 0, 1, 0, 0, 0, 0>, nodes_modes = ["BRANCH_LEQ", "LEAF", "LEAF", "BRANCH_LEQ", "LEAF", "BRANCH_LEQ", "LEAF", "LEAF"], nodes_nodeids = array<i64: 0, 1, 2, 0, 1, 2, 3, 4>, nodes_treeids = array<i64: 0, 0, 0, 1, 1, 1, 1, 1>, nodes_truenodeids = array<i64: 1, 0, 0, 1, 0, 3, 0, 0>, nodes_values = array<f32: 5.000000e-01, 0.000000e+00, 0.000000e+00, 1.500000e+00, 0.000000e+00, 2.500000e+00, 0.000000e+00, 0.000000e+00>, target_ids = array<i64: 0, 0, 0, 0, 0>, target_nodeids = array<i64: 1, 2, 1, 3, 4>, target_treeids = array<i64: 0, 0, 1, 1, 1>, target_weights = array<f32: 1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00>, output_names = ["Y"], node_name = "trees"}> : (tensor<?x2xf32>) -> tensor<?x1xf32>
  "onnx.Output"(%Y) <{name = "Y"}> : (tensor<?x1xf32>) -> ()
}

// level 0: the roots' features and thresholds are constants
// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "X"
// CHECK:      %[[X0:.*]] = "ov.Gather"(%[[X]], %{{.*}}, %{{.*}}) <{batch_dims = 0 : i64
// CHECK:      "ov.LessEqual"(%[[X0]], %{{.*}})
// CHECK:      %[[N1:.*]] = "ov.Gather"(%{{.*}}, %{{.*}}, %{{.*}}) <{batch_dims = 0 : i64{{.*}}-> tensor<?x2xi64>
// level 1: the nodes' feature ids, the features (per row), thresholds, next nodes
// CHECK:      %[[F:.*]] = "ov.Gather"(%{{.*}}, %[[N1]], %{{.*}}) <{batch_dims = 0 : i64{{.*}}-> tensor<?x2xi64>
// CHECK:      %[[XV:.*]] = "ov.Gather"(%[[X]], %[[F]], %{{.*}}) <{batch_dims = 1 : i64{{.*}}-> tensor<?x2xf32>
// CHECK:      %[[T:.*]] = "ov.Gather"(%{{.*}}, %[[N1]], %{{.*}}) <{batch_dims = 0 : i64{{.*}}-> tensor<?x2xf32>
// CHECK:      "ov.LessEqual"(%[[XV]], %[[T]])
// CHECK:      %[[LEAF:.*]] = "ov.Gather"(%{{.*}}, %{{.*}}, %{{.*}}) <{batch_dims = 0 : i64{{.*}}-> tensor<?x2xi64>
// leaf weights [leaves, targets] by the reached leaf of each tree, summed over the trees
// CHECK:      %[[W:.*]] = "ov.Gather"(%{{.*}}, %[[LEAF]], %{{.*}}) <{batch_dims = 0 : i64{{.*}}-> tensor<?x2x1xf32>
// CHECK:      "ov.ReduceSum"(%[[W]], %{{.*}}) <{keep_dims = false, friendly_name = "trees", tensor_names = {{\[\["Y"\]\]}}}>
// CHECK-NOT:  onnx.
