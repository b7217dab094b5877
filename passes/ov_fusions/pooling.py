"""``pad-into-pooling``: a constant spatial Pad in front of pooling becomes
the pooling's own padding.

* AvgPool with ``exclude-pad=false`` (padding counted): zero padding;
* MaxPool (padding never wins): padding by ``-inf`` or the type's lowest value.

The Pad must pad spatial axes only, by non-negative constant amounts, and
have no other consumer; ``auto_pad`` must be ``explicit``/``valid``/``notset``.
(Zero padding into Convolution/GroupConvolution is ``ov-fuse-linear``'s.)
"""

from __future__ import annotations

import numpy as np
from xmo.passes.ov_fusions.common import fuse
from xmo.passes.transformations import (
    Match,
    MatcherPass,
    attrs_match,
    consumers_count,
    wrap_type,
)


class PadIntoPooling(MatcherPass):
    name = "pad-into-pooling"

    def pattern(self):
        pad = wrap_type("Pad", None, consumers_count(1) & attrs_match(pad_mode="constant"), label="pad")
        return wrap_type(["AvgPool", "MaxPool"], [pad])

    def callback(self, m: Match) -> bool:
        pool, pad = m.root, m.node("pad")
        if pool.type == "MaxPool" and any(
            p.get_destinations() for i, p in pool.out_ports().items() if i > 0
        ):
            return False
        x = pad.in_port(0).get_source()
        begin = pad.in_port(1).get_source().data.get_value()
        end = pad.in_port(2).get_source().data.get_value()
        vsrc = pad.in_port(3).get_source() if 3 in pad.in_ports() else None
        value = np.zeros(()) if vsrc is None else vsrc.data.get_value()
        if x is None or begin is None or end is None or value is None:
            return False
        value = float(np.asarray(value).reshape(-1)[0])
        if pool.type == "AvgPool":
            if pool.get("exclude-pad", True) or value != 0.0:
                return False
        elif not (value == -np.inf or value <= float(np.finfo(np.float32).min)):
            return False
        begin = [int(v) for v in np.asarray(begin).reshape(-1)]
        end = [int(v) for v in np.asarray(end).reshape(-1)]
        if len(begin) < 3 or any(begin[:2]) or any(end[:2]) or min(begin + end) < 0:
            return False
        attrs = pool.attrs()
        auto = attrs.get("auto_pad")
        if auto not in ("explicit", "notset", "valid", None):
            return False
        nsp = len(begin) - 2
        pb = [0] * nsp if auto == "valid" else list(attrs.get("pads_begin") or [0] * nsp)
        pe = [0] * nsp if auto == "valid" else list(attrs.get("pads_end") or [0] * nsp)
        if len(pb) != nsp or len(pe) != nsp:
            return False
        attrs["pads_begin"] = [a + b for a, b in zip(pb, begin[2:])]
        attrs["pads_end"] = [a + b for a, b in zip(pe, end[2:])]
        attrs["auto_pad"] = "explicit"
        new = m.graph.create_node(pool.type, [x], attrs, version=pool.version)
        if pool.type == "MaxPool":
            # only output 0 is used: compare it alone
            if new.out_port(0).data.get_type() != pool.out_port(0).data.get_type():
                return False
            from xmo.graph import copy_runtime_info, replace_output

            copy_runtime_info([pool, pad], new)
            new.name = pool.name
            replace_output(pool.out_port(0), new.out_port(0))
            return True
        return fuse(pool, new, [pool, pad])
