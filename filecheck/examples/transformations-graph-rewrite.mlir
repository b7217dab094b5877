// RUN: xmo-opt %s --extensions %S/../../examples/transformations -p example-rewrites | filecheck %s --check-prefix=ALL
// RUN: xmo-opt %s --extensions %S/../../examples/transformations -p 'example-rewrites{disabled=convert-divide}' | filecheck %s --check-prefix=NODIV
// A GraphRewrite: several matchers in one traversal; one disabled by name.

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<4xf32>
  %n = "ov.Negative"(%x) <{friendly_name = "neg"}> : (tensor<4xf32>) -> tensor<4xf32>
  %d = "ov.Divide"(%n, %x) <{friendly_name = "div"}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  "ov.Result"(%d) : (tensor<4xf32>) -> ()
}

// ALL-NOT:   ov.Negative
// ALL-NOT:   ov.Divide
// ALL:       "ov.Power"
// ALL:       "ov.Multiply"{{.*}}friendly_name = "div"

// NODIV-NOT: ov.Negative
// NODIV:     "ov.Divide"{{.*}}friendly_name = "div"
