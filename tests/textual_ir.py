"""Compare printed modules whose ``dense_resource`` handles may differ.

Handles are unique among the weight stores alive in the process, so parsing a
printed module in a second context can rename them (``w`` -> ``w_3``) and the
resources section can list them in another order. Two texts are the same IR
when the bodies agree with every handle replaced by its order of first use and
each handle carries the same payload.
"""

from __future__ import annotations

import re

_USE = re.compile(r"dense_resource<([\w.$-]+)>")
_ENTRY = re.compile(r'^\s*([\w.$-]+):\s*"(0x[0-9A-Fa-f]*)",?\s*$', re.MULTILINE)


def canonical(text: str) -> tuple[str, dict[str, str]]:
    """(body with handles renamed ``@R<i>@``, {renamed handle: payload})."""
    body, _, resources = text.partition("{-#")
    order = {h: f"@R{i}@" for i, h in enumerate(dict.fromkeys(_USE.findall(body)))}
    body = _USE.sub(lambda m: f"dense_resource<{order[m.group(1)]}>", body)
    payloads = {order.get(h, f"unused:{h}"): v for h, v in _ENTRY.findall(resources)}
    return body, payloads


def assert_same_ir_text(got: str, want: str) -> None:
    body_got, res_got = canonical(got)
    body_want, res_want = canonical(want)
    assert body_got == body_want
    assert res_got.keys() == res_want.keys()
    for k in res_want:
        assert res_got[k] == res_want[k], f"payload of {k} differs"
