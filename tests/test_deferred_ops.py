"""Op classes IRDL-defined on first use (``xmo.dialects.deferred``): the ``ov``
and ``onnx`` dialects declare their generated ops cheaply and each class is
completed when an op of it is created, its definition or its traits are read."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, traits_def
from xdsl.traits import Commutative, Pure

from xmo.dialects.deferred import DeferredOperation, define, defer


def _fresh(code: str) -> object:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_importing_the_ov_dialect_defines_no_generated_op():
    got = _fresh(
        "import json\n"
        "from xmo.dialects.ov import ops\n"
        "print(json.dumps(sum('get_irdl_definition' in c.__dict__ for c in ops.GENERATED_OPS)))\n"
    )
    assert got == 0


def test_each_first_use_completes_the_class():
    got = _fresh(
        "import json\n"
        "from xdsl.traits import Pure\n"
        "from xmo.dialects.ov import ops\n"
        "from xmo.dialects.ov.traits import ElementwiseUnary\n"
        "defined = lambda c: 'get_irdl_definition' in c.__dict__\n"
        "out = {}\n"
        "out['traits'] = [ops.AbsOp.has_trait(Pure), ops.AbsOp.has_trait(ElementwiseUnary),\n"
        "                 defined(ops.AbsOp)]\n"
        "out['definition'] = [ops.AcosOp.get_irdl_definition().name, defined(ops.AcosOp)]\n"
        "out['create'] = [ops.AddOp.create().name, defined(ops.AddOp)]\n"
        "out['untouched'] = defined(ops.AcoshOp)\n"
        "print(json.dumps(out))\n"
    )
    assert got == {
        "traits": [True, True, True],
        "definition": ["ov.Acos", True],
        "create": ["ov.Add", True],
        "untouched": False,
    }


class _Base(DeferredOperation):
    traits = traits_def(Commutative())


def _make(name: str, finish=None):  # noqa: ANN001, ANN202
    cls = type(name, (_Base,), {"name": f"test.{name}", "traits": traits_def(Pure())})
    return defer(cls, finish)


def test_deferred_definition_equals_the_eager_one():
    eager = irdl_op_definition(
        type("Eager", (IRDLOperation,), {"name": "test.Eager",
                                         "traits": traits_def(Commutative(), Pure())})
    )
    finished = []
    lazy = _make("Lazy", finished.append)
    assert not finished
    # reading the traits completes the class; they merge the base's, as eagerly
    assert lazy.has_trait(Commutative) and lazy.has_trait(Pure)
    assert finished == [lazy]
    assert set(map(type, lazy.traits)) == set(map(type, eager.traits))
    assert lazy.get_irdl_definition().name == "test.Lazy"
    assert define(lazy) is lazy and finished == [lazy]  # once


def test_a_dialect_lists_deferred_ops_and_creates_them():
    op = _make("Listed")
    dialect = Dialect("test", [op], [])
    assert list(dialect.operations) == [op]
    assert "get_irdl_definition" not in op.__dict__
    assert op.create().name == "test.Listed"
    assert "get_irdl_definition" in op.__dict__


def test_defer_refuses_a_class_without_the_base():
    class Plain(IRDLOperation):
        name = "test.Plain"

    with pytest.raises(TypeError, match="DeferredOperation"):
        defer(Plain)


def test_threads_meeting_a_class_being_completed_wait_for_it():
    import threading

    finished = []
    op = _make("Raced", finished.append)
    barrier = threading.Barrier(8)
    names, errors = [], []

    def first_use() -> None:
        barrier.wait()
        try:
            names.append(op.create().name)
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    workers = [threading.Thread(target=first_use) for _ in range(8)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert not errors and names == ["test.Raced"] * 8
    assert finished == [op]  # completed once
