"""Back transformation (opt-in): ``FFT`` -> the standard DFT / IDFT (opset7).

With it the IR runs on stock OpenVINO, without the extension's runtime
bridge: ``xmo convert ... --extensions examples/fft_extension
--enable_transforms fft-to-dft``.
"""

import numpy as np

from xmo.passes.phases import BACK, OpReplacement


class FFTToDFT(OpReplacement):
    id = "fft-to-dft"
    phase = BACK
    op = "FFT"
    enabled = False  # opt-in

    def replace_op(self, graph, node):
        shape = node.in_port(0).data.get_shape()
        if shape is None:
            return None  # a dynamic rank: keep the FFT op
        rank = len(shape) - 1  # the trailing (real, imaginary) axis is not an axis of the signal
        axes = np.array([rank - 2, rank - 1], dtype=np.int64)
        kind = "IDFT" if node["inverse"] else "DFT"
        return graph.create_node(kind, [node.in_port(0).get_source(), axes])
