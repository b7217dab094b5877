"""Where a run of the CPU backend spends its time: per op type and per node.

:meth:`CompiledModel.profile <xmo.backends.cpu.compiled.CompiledModel.profile>`
times every step of the schedule the model runs (after constant folding and
affine fusion: a fused chain is one step, named after its ops, e.g.
``Multiply+Add``) and returns a :class:`RunProfile`; ``xmo run --profile``
prints its tables (like OpenVINO's ``benchmark_app -pc``). A step's time
includes casting and checking its outputs.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StepInfo:
    """One step of a schedule as the profile names it."""

    type: str  # op type ("Convolution"), or the fused ops' types joined by '+'
    name: str  # friendly name of the (last) op, '' when it has none


@dataclass(frozen=True)
class TypeTime:
    type: str
    calls: int  # steps of this type in the schedule
    seconds: float


@dataclass(frozen=True)
class NodeTime:
    name: str
    type: str
    seconds: float


class RunProfile:
    """Seconds of each step of one schedule: the median over ``runs`` runs
    (one run preempted by another process moves no figure)."""

    def __init__(self, steps: list[StepInfo], seconds: list[float], runs: int) -> None:
        if len(steps) != len(seconds):
            raise ValueError(f"{len(steps)} steps, {len(seconds)} times")
        self.steps = steps
        self.seconds = seconds
        self.runs = runs

    @property
    def total(self) -> float:
        """Seconds per run spent in the steps (the sum of their medians)."""
        return sum(self.seconds)

    def by_type(self) -> list[TypeTime]:
        """Time per op type, slowest first."""
        calls: dict[str, int] = {}
        secs: dict[str, float] = {}
        for st, s in zip(self.steps, self.seconds):
            calls[st.type] = calls.get(st.type, 0) + 1
            secs[st.type] = secs.get(st.type, 0.0) + s
        rows = [TypeTime(t, calls[t], secs[t]) for t in secs]
        return sorted(rows, key=lambda r: (-r.seconds, r.type))

    def by_node(self) -> list[NodeTime]:
        """Time per step, slowest first (unnamed steps as ``#index``)."""
        rows = [
            NodeTime(st.name or f"#{i}", st.type, s)
            for i, (st, s) in enumerate(zip(self.steps, self.seconds))
        ]
        return sorted(rows, key=lambda r: -r.seconds)

    def format(self, top: int = 10) -> str:
        """The two tables, ``top`` rows each, as ``xmo run --profile`` prints them."""
        total = self.total or float("inf")
        lines = [
            f"profile: {self.total * 1e3:.3f} ms per run in {len(self.steps)} steps "
            f"(each step's median over {self.runs} run{'s' if self.runs != 1 else ''})",
            f"top {top} op types:",
            f"  {'op type':<28} {'calls':>6} {'ms':>10} {'%':>6}",
        ]
        for r in self.by_type()[:top]:
            lines.append(f"  {r.type:<28} {r.calls:>6} {r.seconds * 1e3:>10.3f} "
                         f"{100 * r.seconds / total:>6.1f}")
        lines += [f"top {top} nodes:", f"  {'node':<40} {'op type':<28} {'ms':>10} {'%':>6}"]
        for r in self.by_node()[:top]:
            lines.append(f"  {r.name:<40} {r.type:<28} {r.seconds * 1e3:>10.3f} "
                         f"{100 * r.seconds / total:>6.1f}")
        return "\n".join(lines)
