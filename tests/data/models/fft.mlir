// FFT block: DFT -> IDFT round trip, DFT with signal_size, RDFT -> IRDFT.
builtin.module {
  %c = "ov.Parameter"() <{friendly_name = "c", tensor_names = [["c"]]}> : () -> tensor<2x8x2xf32>
  %r = "ov.Parameter"() <{friendly_name = "r", tensor_names = [["r"]]}> : () -> tensor<2x8xf32>
  %ax = "ov.Constant"() <{value = dense<[1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %dft = "ov.DFT"(%c, %ax) : (tensor<2x8x2xf32>, tensor<1xi64>) -> tensor<2x8x2xf32>
  %idft = "ov.IDFT"(%dft, %ax) : (tensor<2x8x2xf32>, tensor<1xi64>) -> tensor<2x8x2xf32>
  %sig = "ov.Constant"() <{value = dense<[6]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %dft6 = "ov.DFT"(%c, %ax, %sig) : (tensor<2x8x2xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<2x6x2xf32>
  %rdft = "ov.RDFT"(%r, %ax) : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x5x2xf32>
  %irdft = "ov.IRDFT"(%rdft, %ax) : (tensor<2x5x2xf32>, tensor<1xi64>) -> tensor<2x8xf32>
  "ov.Result"(%dft) : (tensor<2x8x2xf32>) -> ()
  "ov.Result"(%idft) : (tensor<2x8x2xf32>) -> ()
  "ov.Result"(%dft6) : (tensor<2x6x2xf32>) -> ()
  "ov.Result"(%rdft) : (tensor<2x5x2xf32>) -> ()
  "ov.Result"(%irdft) : (tensor<2x8xf32>) -> ()
}
