"""numba's on-disk cache kept coherent with the kernel sources (backends/cpu/jit_cache.py)."""

from __future__ import annotations

from pathlib import Path

from xmo.backends.cpu import jit_cache


def _tree(root: Path) -> Path:
    k = root / "kernels"
    k.mkdir(parents=True)
    (root / "vector_width.py").write_text("def configure(): pass\n")
    (k / "rows.py").write_text("CHUNK = 512\n")
    (k / "plain.py").write_text("X = 1\n")
    (k / "rows_jit.py").write_text(
        "from xmo.backends.cpu import vector_width\n"
        "from xmo.backends.cpu.kernels.rows import CHUNK\n"
        "vector_width.configure()\n")
    (k / "conv_jit.py").write_text(
        "from xmo.backends.cpu import vector_width\n"
        "from xmo.backends.cpu.kernels.rows_jit import (\n    a,\n    b,\n)\n"
        "vector_width.configure()\n")
    return k


def _cached(k: Path) -> list[str]:
    cache = k / "__pycache__"
    cache.mkdir(exist_ok=True)
    for name in ("conv_jit.f-1.py311.nbi", "conv_jit.f-1.py311.1.nbc", "rows_jit.g-2.py311.nbi"):
        (cache / name).write_bytes(b"x")
    (cache / "conv_jit.cpython-311.pyc").write_bytes(b"x")
    return sorted(p.name for p in cache.iterdir())


def test_sources_follow_the_kernels_imports(tmp_path):
    k = _tree(tmp_path)
    got = [p.relative_to(tmp_path).as_posix() for p in jit_cache.kernel_sources(tmp_path)]
    # conv_jit imports rows_jit (a parenthesised import), rows_jit imports
    # rows' constants and vector_width; plain.py is not a kernel input
    assert got == ["kernels/conv_jit.py", "kernels/rows.py", "kernels/rows_jit.py",
                   "vector_width.py"]
    assert k.exists()


def test_a_changed_dependency_drops_the_cached_kernels(tmp_path):
    k = _tree(tmp_path)
    _cached(k)
    assert jit_cache.refresh(tmp_path)  # nothing stamped yet: cleared and stamped
    assert [p.name for p in (k / "__pycache__").iterdir()] == ["conv_jit.cpython-311.pyc"]
    assert (tmp_path / "__pycache__" / jit_cache.STAMP).is_file()
    _cached(k)
    assert not jit_cache.refresh(tmp_path)  # same sources: the cache stands
    assert len(list((k / "__pycache__").glob("*.nb[ic]"))) == 3
    (k / "plain.py").write_text("X = 2\n")  # not an input of any kernel
    assert not jit_cache.refresh(tmp_path)
    (k / "rows.py").write_text("CHUNK = 1024\n")  # a constant a kernel freezes
    assert jit_cache.refresh(tmp_path)
    assert not list((k / "__pycache__").glob("*.nb[ic]"))
    assert (k / "__pycache__" / "conv_jit.cpython-311.pyc").is_file()  # Python's own cache kept


def test_the_backend_itself_is_stamped():
    root = Path(jit_cache.__file__).resolve().parent
    names = {p.relative_to(root).as_posix() for p in jit_cache.kernel_sources(root)}
    # the kernels whose cached code inlines another module's njit
    # functions or constants, and those modules
    assert {"kernels/rows_jit.py", "kernels/rows.py", "kernels/grouped_jit.py",
            "kernels/attention_jit.py", "kernels/gemm_jit.py"} <= names
    assert "threads.py" not in names and "node.py" not in names
