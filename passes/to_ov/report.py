"""The one report a legalization raises when nodes cannot be converted."""

from __future__ import annotations
from xmo.errors import ConversionError


def _printable(text: str) -> str:
    """Names and reasons from the model on one line: control characters escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class UnsupportedOpsError(ConversionError):
    """Some nodes cannot be converted; ``str()`` is the full report."""

    def __init__(self, failures: dict[str, list[tuple[str, str]]]) -> None:
        self.failures = failures
        lines = ["List of operations that cannot be converted:"]
        for op_type in sorted(failures):
            entries = failures[op_type]
            reasons = sorted({_printable(r) for _, r in entries})
            names = ", ".join(_printable(n) for n, _ in entries[:10])
            more = f", ... ({len(entries) - 10} more)" if len(entries) > 10 else ""
            lines.append(f"  {_printable(op_type)} ({len(entries)}): {names}{more}")
            for r in reasons[:3]:
                lines.append(f"      reason: {r}")
        super().__init__("\n".join(lines))
