"""The conversion's memory budget and shape limits (:mod:`xmo.budget`).

Issue #15's inputs (:data:`xmo.tools.resource_bombs.ISSUE_INPUTS`: doubling
chains, ConstantOfShape, nested and doubling Loops, TensorFlow string / float
Consts, a million unused initializers, IR dims of 2**63) each run ``xmo
convert`` in a process of its own under a 2 GiB address-space cap: exit 0 with
an IR OpenVINO reads, or exit 1 with one error line naming the node, within
30 s, nothing left in the output folder on failure.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import xmo
from xmo import budget
from xmo.backends.ir import IRReadError, read_ir
from xmo.budget import (
    MAX_DIM,
    DimensionLimitError,
    MemoryBudget,
    MemoryLimitError,
    check_dims,
    format_size,
    memory_budget,
    parse_size,
)
from xmo.dialects.ov.base import dims_of
from xmo.errors import XmoError
from xmo.tools import resource_bombs as rb

CAP = 2 << 30
TIME_LIMIT = 30.0


def _write(bomb: rb.Bomb, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in bomb.files.items():
        (folder / name).write_bytes(data)
    return folder / bomb.model


def _convert(bomb: rb.Bomb, tmp_path: Path, **options):
    return xmo.convert_model(str(_write(bomb, tmp_path / "in")), **options)


def _op_counts(module) -> Counter:
    return Counter(op.name for op in module.body.block.ops)


# ---------------------------------------------------------------------------
# The budget object
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "nbytes"), [
    ("4G", 4 << 30), ("4GB", 4 << 30), ("512MiB", 512 << 20), ("1.5g", 3 << 29),
    ("1000000", 1000000), ("64k", 64 << 10), (12345, 12345),
])  # fmt: skip
def test_parse_size(text, nbytes):
    assert parse_size(text) == nbytes


@pytest.mark.parametrize("text", ["", "-1G", "0", "4X", "G", "1e9", 0, -5])
def test_parse_size_refuses(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_format_size():
    assert format_size(int(5.1 * (1 << 30))) == "5.1 GiB"
    assert format_size(512 << 20) == "512.0 MiB"
    assert format_size(12) == "12 bytes"


def test_charge_beyond_the_limit_is_one_line_naming_the_node():
    b = MemoryBudget(4 << 30)
    b.charge(1 << 30, "its values")
    assert b.used == 1 << 30 and b.remaining == 3 << 30
    with pytest.raises(MemoryLimitError) as e:
        try:
            b.charge(int(5.1 * (1 << 30)), "its result")
        except MemoryLimitError as err:
            raise err.at("x", "Concat") from None
    assert str(e.value) == (
        "node 'x' (Concat): its result would take 5.1 GiB, more than the conversion's "
        "memory limit 4.0 GiB, 1.0 GiB of it in use (--memory-limit)"
    )
    assert isinstance(e.value, XmoError)
    assert b.used == 1 << 30  # a refused charge is not counted


def test_the_innermost_node_is_named():
    err = MemoryLimitError("too big").at("inner", "Add").at("outer", "Loop")
    assert str(err) == "node 'inner' (Add): too big"


def test_memory_budget_context():
    with memory_budget("1M") as b:
        assert budget.current() is b and b.limit == 1 << 20
        with memory_budget() as inner:  # no limit given: the running budget
            assert inner is b
        with memory_budget("2M") as other:
            assert other is not b and budget.current() is other
        assert budget.current() is b
    assert budget.current() is not b
    with pytest.raises(MemoryLimitError):
        with memory_budget("1M"):
            budget.charge(2 << 20, "its values")


def test_default_limit_follows_the_address_space_cap():
    """Half of the physical memory, or of the address space left under
    RLIMIT_AS when that is lower."""
    assert budget.default_limit() <= (budget.physical_memory() or 1 << 62) // 2 + 1
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30));"
        "from xmo import budget; print(budget.default_limit())"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 64 << 20 <= int(r.stdout) <= 1 << 29


def test_check_dims():
    check_dims([1, MAX_DIM])
    check_dims([-1, 1 << 40])  # dynamic dims are not counted
    with pytest.raises(DimensionLimitError, match="beyond the largest OpenVINO accepts"):
        check_dims([1, 1 << 63])
    with pytest.raises(DimensionLimitError, match="more than an int64 can count"):
        check_dims([1 << 32, 1 << 32])


# ---------------------------------------------------------------------------
# What is charged, what is bounded
# ---------------------------------------------------------------------------


def test_fold_beyond_the_budget_stays_an_op(tmp_path):
    """A weight made by ConstantOfShape is folded (4 MiB) unless it does not
    fit the budget: then it stays a Broadcast, and the conversion succeeds."""
    bomb = rb.constant_of_shape(1 << 20, feed="matmul")
    folded = _op_counts(_convert(bomb, tmp_path))
    assert folded["ov.Broadcast"] == 0
    kept = _op_counts(_convert(bomb, tmp_path, memory_limit="2M"))
    assert kept["ov.Broadcast"] == 1


def test_growth_guard_is_cumulative(tmp_path):
    """30 Concats doubling a 16-byte constant: folding stops at the guard
    (1 MiB), not one 4x step at a time up to 16 GiB."""
    m = _convert(rb.doubling_chain(30, base="constant", k=4), tmp_path)
    consts = [op for op in m.body.block.ops if op.name == "ov.Constant"]
    assert max(math.prod(dims_of(c.results[0].type)) * 4 for c in consts) <= 1 << 20
    assert _op_counts(m)["ov.Concat"] > 0


def test_tf_constants_are_charged_per_model(tmp_path):
    one = rb.tf_values(1, 1 << 20)  # 4 MiB
    _convert(one, tmp_path, memory_limit="5M")
    with pytest.raises(MemoryLimitError, match=r"node 'c1' \(Const\): its DT_FLOAT values"):
        _convert(rb.tf_values(2, 1 << 20), tmp_path / "two", memory_limit="5M")


def test_tf_strings_are_refused_before_they_exist(tmp_path):
    t0 = time.perf_counter()
    with pytest.raises(MemoryLimitError, match=r"node 'c0' \(Const\): its 268435456 strings"):
        _convert(rb.tf_strings(1 << 28), tmp_path, memory_limit="1G")
    assert time.perf_counter() - t0 < 10


def _loops_run(module, x: float, want: float, tmp_path: Path) -> None:
    """``module`` (one input x [1] -> y [1]) gives ``want`` on xmo's CPU
    backend and in OpenVINO (f32) from its IR."""
    import numpy as np
    import openvino as ov

    feed = np.array([x], np.float32)
    assert xmo.compile_model(module)([feed])[0].tolist() == [want]
    xml = tmp_path / "loops.xml"
    xmo.save_model(module, str(xml))
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    assert compiled([feed])[0].tolist() == [want]


def test_nested_unrolling_is_bounded(tmp_path):
    m = _convert(rb.nested_loops([16, 16]), tmp_path)
    assert _op_counts(m)["ov.Result"] == 1 and "ov.Loop" not in _op_counts(m)
    # past MAX_NESTED_UNROLL the loops stay loops: the innermost one unrolls
    # (256 iterations), the two around it keep one body each (not 256 copies)
    big = _convert(rb.nested_loops([256, 256, 256]), tmp_path / "big")
    assert Counter(op.name for op in big.walk())["ov.Loop"] == 2
    assert _op_counts(big)["ov.Loop"] == 1
    small = _convert(rb.nested_loops([2, 64, 64]), tmp_path / "small")
    assert Counter(op.name for op in small.walk())["ov.Loop"] == 2
    _loops_run(small, 0.5, 0.5 + 2 * 64 * 64, tmp_path)


def test_unrolled_ops_are_bounded(tmp_path):
    """200 Adds x 256 iterations would unroll to more than MAX_UNROLLED_OPS:
    an ov.Loop instead."""
    m = _convert(rb.loop_body(200, 256), tmp_path)
    assert _op_counts(m)["ov.Loop"] == 1
    _loops_run(m, 1.0, 1.0 + 200 * 256, tmp_path)


def test_loop_doubling_its_state_names_the_node(tmp_path):
    with pytest.raises(DimensionLimitError, match=r"node 'loop/iter62/s_out' \(Concat\)"):
        _convert(rb.loop_doubling(200), tmp_path)


def test_ir_reader_refuses_dims_beyond_openvino(tmp_path):
    with pytest.raises(IRReadError, match="beyond the largest OpenVINO accepts"):
        read_ir(_write(rb.ir_dims([1, 1 << 63]), tmp_path / "a"))
    with pytest.raises(IRReadError, match="more than an int64 can count"):
        read_ir(_write(rb.ir_dims([1 << 32, 1 << 32]), tmp_path / "b"))
    read_ir(_write(rb.ir_dims([1, MAX_DIM]), tmp_path / "c"))


def test_unused_initializers_are_cheap(tmp_path):
    t0 = time.perf_counter()
    m = _convert(rb.many_initializers(10**5), tmp_path)
    assert time.perf_counter() - t0 < 10
    assert _op_counts(m)["ov.Constant"] == 0


def test_cli_memory_limit(tmp_path):
    model = _write(rb.tf_values(1, 1 << 20), tmp_path / "in")
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "-m", "xmo.tools.xmo_main", "convert", str(model), "-o",
         str(out / "m.xml"), "--memory-limit", "1M"],
        capture_output=True, text=True, check=False,
    )
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        "xmo: error: node 'c0' (Const): its DT_FLOAT values ([1048576]) would take 4.0 MiB, "
        "more than the conversion's memory limit 1.0 MiB (--memory-limit)"
    ]
    assert not out.exists() or not any(out.iterdir())
    r = subprocess.run(
        [sys.executable, "-m", "xmo.tools.xmo_main", "convert", str(model), "-o",
         str(out / "m.xml"), "--memory-limit", "lots"],
        capture_output=True, text=True, check=False,
    )
    assert r.returncode != 0 and "lots" in r.stderr and "Traceback" not in r.stderr


def test_xmo_opt_memory_limit(tmp_path):
    model = _write(rb.tf_values(1, 1 << 20), tmp_path / "in")
    r = subprocess.run(
        [sys.executable, "-m", "xmo.tools.xmo_opt", str(model), "--memory-limit", "1M"],
        capture_output=True, text=True, check=False,
    )
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        "xmo-opt: error: node 'c0' (Const): its DT_FLOAT values ([1048576]) would take "
        "4.0 MiB, more than the conversion's memory limit 1.0 MiB (--memory-limit)"
    ]


# ---------------------------------------------------------------------------
# The issue's inputs, each in a process under a 2 GiB address-space cap
# ---------------------------------------------------------------------------


def _cap() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


@pytest.mark.parametrize("name", sorted(rb.ISSUE_INPUTS))
def test_issue_input_under_a_memory_cap(name, tmp_path):
    bomb = rb.ISSUE_INPUTS[name]()
    model = _write(bomb, tmp_path / "in")
    out = tmp_path / "out"
    env = dict(os.environ, XMO_NO_PROGRESS="1")
    env.pop("XMO_DEBUG", None)
    t0 = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "xmo.tools.xmo_main", "convert", str(model), "-o",
         str(out / "m.xml")],
        capture_output=True, text=True, timeout=2 * TIME_LIMIT, env=env, preexec_fn=_cap,
        check=False,
    )
    seconds = time.perf_counter() - t0
    assert seconds < TIME_LIMIT, f"{name}: {seconds:.1f} s"
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr, r.stderr[-500:]
    if r.returncode == 0:
        assert not bomb.must_fail, f"{name} converted"
        assert sorted(p.name for p in out.iterdir()) == ["m.bin", "m.xml"]
        import openvino as ov

        ov.Core().read_model(str(out / "m.xml"))  # OpenVINO reads what was written
        return
    assert r.returncode == 1, r.stderr[-500:]
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("xmo: error: ")
    if len(lines) > 1:  # the unsupported-ops report: one op per indented line
        assert "cannot be converted" in lines[0] and all(ln.startswith(" ") for ln in lines[1:])
    assert "node '" in r.stderr or "layer '" in r.stderr or ": loop" in r.stderr, r.stderr
    assert not out.exists() or not any(out.iterdir())
