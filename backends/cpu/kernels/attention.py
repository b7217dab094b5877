"""ScaledDotProductAttention: softmax(Q K^T * scale + bias) V, blocked.

The batch (and head) dims are flattened to one axis B and the queries cut
into row blocks small enough that a block's scores ``[rows, S]`` stay in the
L2 cache (about 1.5 MB); short problems take several batch entries per block
instead. The work is split into tasks (:func:`_task`): one per head when a
head takes several blocks, else equal parts of the heads' rows, else groups
of whole heads; each task has one scratch buffer for its blocks' scores. A
task whose head takes several blocks first copies that head's K^T and V
C-ordered (they often arrive as transposed views of a projection, which
every block's products would read again). Per block: the scores are one
matrix product of the Q block with K^T, the mask is added, and an f32
softmax is one numba call
(:func:`~xmo.backends.cpu.kernels.attention_jit.softmax_rows`: the row
maximum on integer keys, the exponentials as a vectorised polynomial, the
sum, the normalisation) before the product with V. With nothing added to
the scores (no mask, or causal) the scale goes into that call
(``exp((s - max) * scale)``) and Q is used as it comes; else Q's block is
scaled first (rows x E products, not rows x S). f64 (and numba-less
installs) use numpy, dividing ``P V`` by the row sums. A causal block
computes only the key columns up to its last row and masks the triangle on
its diagonal square. With more than one thread, problems above
``PARALLEL_MIN_WORK`` run as about ``TASKS_PER_THREAD`` tasks per thread on
the helper pool (:func:`threads.run_tasks`; BLAS is on one thread:
threads.py). An f32 problem that is one task of one block (its scores within
``BLOCK_SCORES``, on the calling thread: vit's and whisper_encoder's tiny
heads) skips the tasks and slices: one batched product, the mask, one
softmax call and one batched product over all heads (:func:`_small`; the
same values, ~14-18 us less a call on the tiny heads).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from xmo.backends.cpu import threads
from xmo.backends.cpu.kernels._common import jit_module
from xmo.backends.cpu.node import KernelNode
from xmo.backends.cpu.registry import register_kernel

#: score elements per block (f32: 1.5 MB, in the 2 MB L2 next to a K^T of 64 x S;
#: measured ~5% quicker than 768 KB on 1500 x 1500 heads)
BLOCK_SCORES = 393216
#: scores of a block from which its f32 softmax is the numba call (one call
#: is quicker than numpy's five at every size measured, 100 scores and up)
EXP_ROWS_MIN = 1
#: multiply-adds below which a call stays on the calling thread (BLAS as set)
PARALLEL_MIN_WORK = 1 << 22
#: tasks per thread wanted when a call runs on the pool (dynamic balance: a
#: thread held up on a busy machine delays only the task it holds)
TASKS_PER_THREAD = 2


def _flat(x: np.ndarray, batch: tuple[int, ...], n_b: int) -> np.ndarray:
    """``x [..., R, C]`` as ``[n_b or 1, R, C]`` (a copy only where the
    batch dims broadcast and cannot merge)."""
    if x.shape[:-2] == batch:
        return x.reshape((n_b,) + x.shape[-2:])
    if all(d == 1 for d in x.shape[:-2]):
        return x.reshape((1,) + x.shape[-2:])
    return np.broadcast_to(x, batch + x.shape[-2:]).reshape((n_b,) + x.shape[-2:])




def _softmax_rows() -> Any:
    """:func:`~xmo.backends.cpu.kernels.attention_jit.softmax_rows` (f32
    rows, numba; compiled on first use), or None without numba."""
    jit = jit_module("attention_jit")
    return None if jit is None else jit.softmax_rows


def _task(
    q: np.ndarray, kt: np.ndarray, v: np.ndarray, scale: Any, bias: np.ndarray | float | None,
    tri: np.ndarray | None, out: np.ndarray, b0: int, b1: int, r0: int, r1: int, rows: int,
) -> None:
    """Rows ``r0:r1`` of batch entries ``b0:b1`` in blocks of ``rows`` rows
    (``q``, ``kt`` K transposed and ``v`` as given, ``[B or 1, ., .]``;
    ``bias`` a ``[B or 1, L or 1, S or 1]`` array, a float or None). One
    scratch of scores for the blocks; a head taking several blocks has its
    K^T and V copied C-ordered first when they are not (they often arrive as
    transposed views of a projection, which every block's products would
    read again; Q K^T is then a plain product)."""
    kb = kt[b0:b1] if kt.shape[0] > 1 else kt
    vb = v[b0:b1] if v.shape[0] > 1 else v
    if r1 - r0 > rows:
        if not kb.flags.c_contiguous:
            kb = np.ascontiguousarray(kb)
        if not vb.flags.c_contiguous:
            vb = np.ascontiguousarray(vb)
    if bias is not None and type(bias) is not float and bias.shape[0] > 1:
        bias = bias[b0:b1]
    n_b, n_s, n_e = b1 - b0, kt.shape[2], q.shape[2]
    scores = np.empty(n_b * min(rows, r1 - r0) * n_s, out.dtype)
    qs = np.empty(n_b * min(rows, r1 - r0) * n_e, out.dtype)
    softmax = _softmax_rows() if out.dtype == np.float32 else None
    # the scale in the numba softmax (exp((s - max) * scale)) when nothing is
    # added to the scores: Q K^T of Q as it comes, no scaled copy
    fold = softmax is not None and bias is None and scale > 0
    for lo in range(r0, r1, rows):
        hi = min(r1, lo + rows)
        n_k = n_s if tri is None else min(n_s, hi)
        size = n_b * (hi - lo) * n_k
        jit = softmax is not None and size >= EXP_ROWS_MIN
        if jit and fold:
            qb = q[b0:b1, lo:hi]
        else:  # the scale on Q (rows x E products, not rows x S), C-ordered
            qb = np.multiply(q[b0:b1, lo:hi], scale,
                             out=qs[: n_b * (hi - lo) * n_e].reshape(n_b, hi - lo, n_e))
        s = np.matmul(qb, kb[:, :, :n_k] if n_k < n_s else kb,
                      out=scores[:size].reshape(n_b, hi - lo, n_k))
        if tri is not None:
            if lo < n_k:
                np.copyto(s[:, :, lo:n_k], -np.inf, where=tri[: hi - lo, : n_k - lo])
        elif type(bias) is float:
            s += bias
        elif bias is not None:
            s += bias[:, lo:hi] if bias.shape[1] > 1 else bias
        o = out[b0:b1, lo:hi]
        if jit:  # one numba call: exp, sum, normalisation
            softmax(s.reshape(-1, n_k), scale if fold else out.dtype.type(1.0))
            np.matmul(s, vb[:, :n_k] if n_k < n_s else vb, out=o)
        else:
            s -= np.maximum.reduce(s, axis=-1, keepdims=True)
            np.exp(s, out=s)
            den = np.add.reduce(s, axis=-1, keepdims=True)
            np.matmul(s, vb[:, :n_k], out=o)
            o /= den


def _small(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: Any,
           bias: np.ndarray | float | None, causal: bool, softmax: Any, out: np.ndarray) -> None:
    """A small f32 problem as one block over all heads: ``q [B, L, E]``,
    ``k [B or 1, S, E]``, ``v [B or 1, S, Ev]``, ``bias`` a ``[B or
    1, L or 1, S or 1]`` array, a float shift or None. One batched product for
    the scores (the scale folded into the softmax when nothing is added, as
    :func:`_task` does), the mask, one softmax call, one batched product
    into ``out``."""
    fold = bias is None and scale > 0
    s = np.matmul(q if fold else q * scale, np.swapaxes(k, -1, -2))
    if causal:  # keys after the query's index (top-left aligned, as _task)
        np.copyto(s, -np.inf, where=np.triu(np.ones(s.shape[1:], np.bool_), k=1))
    elif bias is not None:
        s += bias
    softmax(s.reshape(-1, s.shape[2]), scale if fold else out.dtype.type(1.0))
    np.matmul(s, v, out=out)


@register_kernel("ov.ScaledDotProductAttention")
def _sdpa(
    node: KernelNode, q: np.ndarray, k: np.ndarray, v: np.ndarray, *extra: np.ndarray
) -> np.ndarray:
    """softmax(q @ k^T * scale + bias, -1) @ v (opset13): the scale defaults
    to 1 / sqrt(E); the bias is a causal upper triangle of -inf, else the
    mask (boolean: -inf where False; float: added), else 0. The batch dims of
    q, k, v and the mask broadcast (grouped-query attention)."""
    dtype = q.dtype
    work = np.float32 if dtype in (np.float16, np.float32) else np.float64
    mask = extra[0] if extra else None
    if len(extra) > 1:
        scale = np.asarray(extra[1], work).reshape(-1)[0]
    else:
        scale = work(1.0) / np.sqrt(work(q.shape[-1]))
    q, k, v = q.astype(work, copy=False), k.astype(work, copy=False), v.astype(work, copy=False)
    causal = bool(node.attr("causal", False))
    mask_batch = () if mask is None or causal else mask.shape[:-2]
    shift = None  # a one-element float mask: a scalar bias
    if mask is not None and not causal and mask.size == 1 and mask.dtype != np.bool_:
        shift = float(mask.reshape(-1)[0])
        mask = None
    batch = q.shape[:-2]
    if k.shape[:-2] != batch or v.shape[:-2] != batch or (mask_batch and mask_batch != batch):
        batch = np.broadcast_shapes(batch, k.shape[:-2], v.shape[:-2], mask_batch)
    n_l, n_s, n_ev = q.shape[-2], k.shape[-2], v.shape[-1]
    n_b = math.prod(batch)
    out = np.empty((n_b, n_l, n_ev), work)
    if out.size == 0:
        return out.reshape(batch + (n_l, n_ev)).astype(dtype, copy=False)
    q3, k3, v3 = _flat(q, batch, n_b), _flat(k, batch, n_b), _flat(v, batch, n_b)
    bias = None
    if mask is not None and not causal:
        if mask.dtype == np.bool_:
            bias = np.where(mask, work(0), work(-np.inf))
        else:
            bias = mask.astype(work, copy=False)
        bias = _flat(bias.reshape((1,) * max(0, 2 - bias.ndim) + bias.shape), batch, n_b)
    work_size = n_b * n_l * n_s * (q.shape[-1] + n_ev)
    parallel = threads.threads() > 1 and work_size >= PARALLEL_MIN_WORK
    if q3.shape[0] != n_b:
        q3 = np.broadcast_to(q3, (n_b,) + q3.shape[1:])  # q drives the blocks
    if not parallel and n_b * n_l * n_s <= BLOCK_SCORES:  # one task, one block
        softmax = _softmax_rows() if work is np.float32 else None
        if softmax is not None:
            _small(q3, k3, v3, scale, shift if shift else bias, causal, softmax, out)
            return out.reshape(batch + (n_l, n_ev)).astype(dtype, copy=False)
    kt = np.swapaxes(k3, -1, -2)
    want = TASKS_PER_THREAD * threads.threads() if parallel else 1
    rows = min(n_l, max(1, BLOCK_SCORES // max(n_s, 1)))
    if rows < n_l or n_b < want:
        # a task per head (all its row blocks) or, with fewer heads than
        # tasks wanted, per equal part of each head's rows
        parts = max(1, -(-want // n_b))
        span = max(1, -(-n_l // parts))
        if parts > 1 and span < rows:
            rows = span
        ranges = [(b, b + 1, r0, min(n_l, r0 + span)) for b in range(n_b)
                  for r0 in range(0, n_l, span)]
    else:  # whole heads per block, a few heads per task
        per_b = max(1, min(BLOCK_SCORES // max(n_l * n_s, 1), n_b // want))
        ranges = [(b0, min(n_b, b0 + per_b), 0, n_l) for b0 in range(0, n_b, per_b)]
        rows = n_l
    tri = None
    if causal:
        tri = np.triu(np.ones((rows, rows), np.bool_), k=1)
    elif shift is not None and shift != 0.0:
        bias = shift
    tasks = [(_task, (q3, kt, v3, scale, bias, tri, out) + r + (rows,)) for r in ranges]
    if parallel and len(tasks) > 1:
        threads.run_tasks(tasks)
    else:
        for fn, task_args in tasks:
            fn(*task_args)
    return out.reshape(batch + (n_l, n_ev)).astype(dtype, copy=False)
