"""numba's vector width for the CPU backend's kernels
(``xmo.backends.cpu.vector_width``): 512-bit vectors on AVX-512 CPUs unless
the user chose numba's target or opted out. Each case runs in a fresh
process (the setting is made once, before numba's first compile)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from xmo.backends.cpu import vector_width

numba = pytest.importorskip("numba")

# a loop LLVM vectorises at the preferred width (its asm names zmm registers
# only with 512-bit vectors), compiled after xmo's first kernel module
KERNEL = textwrap.dedent(
    """
    import numba
    import numpy as np


    @numba.njit(cache=True)
    def axpb(x, out):
        for i in range(x.shape[0]):
            out[i] = x[i] * np.float32(2.0) + np.float32(1.0)
    """
)

REPORT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    from xmo.backends.cpu.kernels import rows
    rows.row_kernels()  # the first xmo kernel module: configures numba
    import kmod
    from numba.core import config
    from numba.core.registry import cpu_target
    from xmo.backends.cpu import vector_width
    x = np.ones(256, np.float32)
    out = np.empty_like(x)
    kmod.axpb(x, out)
    sig = kmod.axpb.signatures[0]
    hits = sum(kmod.axpb.stats.cache_hits.values())
    asm = "" if hits else kmod.axpb.inspect_asm(sig)
    print(json.dumps({
        "set": vector_width.configure(),
        "config": config.CPU_FEATURES,
        "codegen": cpu_target.target_context.codegen()._tm_features,
        "zmm": asm.count("zmm"),
        "hits": hits,
        "ok": bool((out == 3).all()),
    }))
    """
)


def _host_avx512() -> bool:
    from numba.core import codegen

    return "+avx512f" in codegen.get_host_cpu_features().split(",")


needs_avx512 = pytest.mark.skipif(not _host_avx512(), reason="the host has no AVX-512F")


def _report(tmp: Path, **env: str) -> dict:
    """The setting in a fresh process with ``env`` (the kernel module and
    its numba cache in ``tmp``)."""
    (tmp / "kmod.py").write_text(KERNEL)
    environ = {k: v for k, v in os.environ.items()
               if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", vector_width.ENV)}
    environ.update(env)
    r = subprocess.run([sys.executable, "-c", REPORT, str(tmp)], capture_output=True, text=True,
                       timeout=300, env=environ)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@needs_avx512
def test_wide_vectors_by_default_and_cache_keyed_on_width(tmp_path: Path) -> None:
    wide = _report(tmp_path)
    assert wide["ok"] and wide["hits"] == 0
    assert wide["set"] and wide["set"].endswith(",-prefer-256-bit")
    assert wide["config"] == wide["set"] == wide["codegen"]
    assert wide["zmm"] > 0
    # the same cache, 256-bit: the 512-bit kernel is not loaded for it (the
    # key differs: neither width loads the other's), then found again
    narrow = _report(tmp_path, **{vector_width.ENV: "256"})
    assert narrow["ok"] and narrow["hits"] == 0
    assert narrow["set"] is None and narrow["config"] is None
    assert "prefer-256-bit" not in narrow["codegen"]
    assert _report(tmp_path, **{vector_width.ENV: "256"})["hits"] == 1


@needs_avx512
def test_user_numba_features_left_alone(tmp_path: Path) -> None:
    from numba.core import codegen

    features = codegen.get_host_cpu_features()
    user = _report(tmp_path, NUMBA_CPU_FEATURES=features)
    assert user["ok"] and user["set"] is None
    assert user["config"] == user["codegen"] == features
    named = _report(tmp_path, NUMBA_CPU_NAME="host")
    assert named["ok"] and named["set"] is None and named["config"] is None


def test_env_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(vector_width.ENV, raising=False)
    assert vector_width.env_bits() == 512
    monkeypatch.setenv(vector_width.ENV, "256")
    assert vector_width.env_bits() == 256
    monkeypatch.setenv(vector_width.ENV, "1024")
    with pytest.raises(ValueError, match="XMO_CPU_VECTOR_BITS"):
        vector_width.env_bits()
