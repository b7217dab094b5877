"""The one report a legalization raises when nodes cannot be converted."""

from __future__ import annotations

from xmo.errors import ConversionError, printable


class UnsupportedOpsError(ConversionError):
    """Some nodes cannot be converted; ``str()`` is the full report."""

    def __init__(self, failures: dict[str, list[tuple[str, str]]]) -> None:
        self.failures = failures
        lines = ["List of operations that cannot be converted:"]
        for op_type in sorted(failures):
            entries = failures[op_type]
            reasons = sorted({printable(r) for _, r in entries})
            names = ", ".join(printable(n) for n, _ in entries[:10])
            more = f", ... ({len(entries) - 10} more)" if len(entries) > 10 else ""
            lines.append(f"  {printable(op_type)} ({len(entries)}): {names}{more}")
            for r in reasons[:3]:
                lines.append(f"      reason: {r}")
        super().__init__("\n".join(lines))
