"""``xmo-opt``: the opt-style pass driver, built on xDSL's ``xdsl-opt`` main.

Everything ``xdsl-opt`` offers stays (``-p`` pipelines with options,
``--print-between-passes``, ``--time-passes``, ``--split-input-file``,
``--verify-diagnostics``, xDSL's dialects and passes); on top of it:

* the xmo dialects and passes, registered lazily;
* inputs: ``.mlir``, OpenVINO IR ``.xml`` (read with its ``.bin``),
  ``.onnx`` (loaded into the ``onnx`` dialect; ``-p convert-onnx-to-ov``
  legalizes it), TensorFlow frozen graphs ``.pb``/``.pbtxt`` (loaded into
  the ``tf`` dialect) and Kaldi ``.nnet``/``.raw``/``.mdl`` models (the
  ``kaldi`` dialect; ``-p convert-kaldi-to-ov``);
* targets: ``-t mlir`` (default) and ``-t ov-ir -o model.xml`` (writes
  ``model.xml`` + ``model.bin`` atomically);
* ``--extensions DIR``: load an extension folder (``xmo.extensions``):
  operations, TF and ONNX extractors and front op replacements (active for
  ``convert-tf-to-ov`` / ``convert-onnx-to-ov``), front/middle/back
  transformations (each a pass named by its id), kernels, and passes from
  ``DIR/passes/*.py``;
* every pass runs through :func:`xmo.passes.tracing.run_pass`:
  ``XMO_PROFILE_PASS_ENABLE=1`` prints per-pass timings,
  ``XMO_ENABLE_VISUALIZE_TRACING=1`` writes a graph picture after each pass;
* ``--memory-limit SIZE``: the memory budget of loading and the passes
  (:mod:`xmo.budget`);
* ``--elide-weights[=BYTES]``: leave weight payloads larger than BYTES (default
  64) out of the printed resources section, for readable FileCheck output;
* the module is verified after parsing and after every pass.

Errors end in one line on stderr and exit code 1 (``XMO_DEBUG=1`` shows the
traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from xmo import xdsl_speedups
from xmo.context import make_context, weight_store
from xmo.errors import XmoError
from xmo.termination import Terminated, install_termination_handlers


@dataclass(frozen=True)
class OVIRTarget(Target):
    """``-t ov-ir``: OpenVINO IR v11; needs ``-o model.xml``."""

    name = "ov-ir"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        raise RuntimeError("the ov-ir target writes files: use -o model.xml")


class XmoOptMain(xDSLOptMain):
    """xdsl-opt with the xmo dialects, passes, IR input and the ov-ir target."""

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="xmo modular optimizer driver", args=args)
        if self.args.elide_weights is not None:
            weight_store(self.ctx).elide_larger_than = self.args.elide_weights
        if self.args.target == "ov-ir":
            if not self.args.output_file:
                raise XmoOptError("-t ov-ir needs -o model.xml")
            if self.args.split_input_file:
                raise XmoOptError("-t ov-ir cannot be combined with --split-input-file")

    # -- registration ----------------------------------------------------------
    def register_all_dialects(self) -> None:
        self.ctx = make_context()

    def register_all_passes(self) -> None:
        super().register_all_passes()
        from xmo.passes import get_all_passes

        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        self.available_targets["ov-ir"] = lambda: OVIRTarget

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        # Files read by path (they need sibling files), see parse_chunk: IR and
        # every framework frontend's model files.
        from xmo.frontends import FRONTENDS

        self.available_frontends["xml"] = _read_by_path
        for f in FRONTENDS:
            for suffix in f.suffixes:
                # MXNet's -symbol.json is told apart from other .json files in parse_chunk
                ext = os.path.splitext(suffix)[1] or suffix
                self.available_frontends[ext.lstrip(".")] = _read_by_path

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--elide-weights",
            nargs="?",
            type=int,
            const=64,
            default=None,
            metavar="BYTES",
            help="do not print weight payloads larger than BYTES (default 64)",
        )
        arg_parser.add_argument(
            "--memory-limit",
            metavar="SIZE",
            default=None,
            help="memory loading and the passes may allocate, e.g. 4G or 512M "
            "(default: half of the physical memory)",
        )
        arg_parser.add_argument(
            "--extensions",
            action="append",
            default=[],
            metavar="DIR",
            help="load an extension: operations (DIR/ops), extractors and "
            "transformations (DIR/front/<framework>, DIR/middle, DIR/back; each "
            "transformation becomes a pass named by its id), kernels (DIR/kernels) "
            "and passes (DIR/passes) (repeatable)",
        )
        # pipeline debugging (xmo.passes.debug); --time-passes is xDSL's, and
        # also prints xmo's table at the end
        arg_parser.add_argument("--print-ir-after-all", action="store_true",
                                help="print the IR after every pass (stderr)")
        arg_parser.add_argument("--print-ir-after", action="append", default=[],
                                metavar="PASS", help="print the IR after the named pass(es)")
        arg_parser.add_argument("--dump-dir", metavar="D",
                                help="write the IR after each pass to D/NNN_<pass>.mlir")

    def setup_pipeline(self) -> None:
        # Extensions first: their passes may be named in the pipeline. Every
        # pass then runs through xmo's run_pass (XMO_PROFILE_PASS_ENABLE,
        # XMO_ENABLE_VISUALIZE_TRACING); xDSL's callback (verification,
        # --print-between-passes, --time-passes) stays.
        from xmo.extensions import load_extension, load_extension_passes

        self._converters = []
        exts = []
        for folder in self.args.extensions:
            ext = load_extension(folder, self.ctx)  # ops, kernels, front/middle/back
            exts.append(ext)
            for t in ext.transformations:  # each transformation is a pass named by its id
                self.register_pass(t.id, lambda t=t: t)
            for name, cls in load_extension_passes(folder).items():
                self.register_pass(name, lambda cls=cls: cls)
        if exts:  # extractors and front op replacements of every framework
            from xmo.extensions import phase_manager

            self._converters = phase_manager(exts).converter_tables()
        super().setup_pipeline()
        from xmo.passes.conversion import XmoConvertPass
        from xmo.passes.pipeline import TracedPassPipeline

        # xmo-convert records the conversion of the input file as xmo convert does
        passes = tuple(
            replace(p, input_model=self.args.input_file)
            if isinstance(p, XmoConvertPass) and p.input_model is None and self.args.input_file
            else p
            for p in self.pipeline.passes
        )
        self.pipeline = TracedPassPipeline(passes, self.pipeline.callback)

    # -- input -------------------------------------------------------------------
    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """The input file opened only when it is a regular file (a FIFO or a
        device is refused, not waited on; ``.mlir`` within its size limit)."""
        if self.args.input_file is None:
            return super().get_input_stream()  # stdin
        extension = os.path.splitext(self.args.input_file)[1].lstrip(".")
        if (self.args.frontend or extension) == "mlir":
            from xmo.mlir_file import open_mlir

            return open_mlir(self.args.input_file, XmoOptError), extension
        from xmo.input_files import open_input

        return open_input(self.args.input_file, XmoOptError), extension

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        if (self.args.frontend or file_extension) == "xml":
            from xmo.backends.ir import read_ir

            if self.args.input_file is None:
                raise XmoOptError("OpenVINO IR input must be a file path")
            return read_ir(self.args.input_file, ctx=self.ctx)
        from xmo.frontends import FRONTENDS

        kind = "." + (self.args.frontend or file_extension)
        frontend = next((f for f in FRONTENDS if kind in f.suffixes), None)
        if frontend is None and self.args.frontend is None and self.args.input_file is not None:
            from xmo.frontends import find_frontend

            frontend = find_frontend(self.args.input_file)  # e.g. PREFIX-symbol.json
        if frontend is None and (self.args.frontend or file_extension) == "json":
            raise XmoOptError("a .json input must be an MXNet PREFIX-symbol.json file")
        if frontend is not None:
            if self.args.input_file is None:
                raise XmoOptError(f"{frontend.name} model input must be a file path")
            return frontend.load(self.args.input_file, self.ctx)
        return super().parse_chunk(chunk, file_extension, start_offset)

    def apply_passes(self, prog: ModuleOp) -> None:
        if not self.args.disable_verify:
            prog.verify()
        from xmo.passes.to_ov.scoped import using_tables

        # the extensions' extractors and front op replacements (TF and ONNX)
        with using_tables(*getattr(self, "_converters", ())):
            super().apply_passes(prog)

    # -- output ------------------------------------------------------------------
    def prepare_output(self) -> IO[str]:
        if self.args.target == "ov-ir":
            return open(os.devnull, "w")  # the serializer writes the files itself
        if self.args.output_file is None:
            return sys.stdout
        # Written next to the destination and renamed by run() on success.
        out = os.path.abspath(self.args.output_file)
        fd, self._tmp_output = tempfile.mkstemp(
            prefix=".xmo-", suffix=".tmp", dir=os.path.dirname(out)
        )
        from xmo import bus_error

        bus_error.remove_on_fault(self._tmp_output)
        return os.fdopen(fd, "w")

    def run(self) -> None:
        self._tmp_output: str | None = None
        from xmo.budget import memory_budget
        from xmo.passes.debug import session

        try:
            with memory_budget(self.args.memory_limit), session(
                print_ir_after_all=self.args.print_ir_after_all,
                print_ir_after=self.args.print_ir_after,
                time_passes=self.args.time_passes,
                dump_dir=self.args.dump_dir,
                progress=False,
            ):
                super().run()
        except BaseException:
            if self._tmp_output is not None and os.path.exists(self._tmp_output):
                os.unlink(self._tmp_output)
            raise
        if self._tmp_output is not None:
            os.replace(self._tmp_output, self.args.output_file)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        if self.args.target == "ov-ir":
            from xmo.backends.ir import serialize

            serialize(prog, self.args.output_file)
            return ""
        return super().output_resulting_program(prog)


def _read_by_path(stream: IO[bytes]) -> ModuleOp:  # pragma: no cover - placeholder
    raise XmoOptError("OpenVINO IR input must be a file path")


class XmoOptError(XmoError):
    """A driver usage error."""


def cli() -> int:
    """The ``xmo-opt`` command: :func:`main` in a process of its own, with
    the collector settings (at exit too) and the SIGTERM / SIGHUP handling of ``xmo`` (see
    :func:`xmo.tools.xmo_main.cli`)."""
    from xmo.gc_policy import configure_process, leave_to_os

    configure_process()
    install_termination_handlers()
    from xmo import bus_error

    bus_error.install("xmo-opt")
    try:
        return main()
    finally:
        leave_to_os()


def main(argv: Sequence[str] | None = None) -> int:
    xdsl_speedups.apply()  # xmo-opt parses textual IR (docs/xdsl-patches.md)
    driver = None
    try:
        driver = XmoOptMain(args=argv)
        driver.run()
    except SystemExit as e:
        from xmo.extensions import extension_file_of

        where = extension_file_of(e.__traceback__)
        if where is None:  # argparse's and xdsl-opt's own exits
            raise
        print(f"xmo-opt: error: {where}: SystemExit: sys.exit({e.code!r}) called while "
              "running", file=sys.stderr)
        return 1
    except Terminated as e:
        print(f"xmo-opt: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("xmo-opt: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - the driver's single error exit
        if os.environ.get("XMO_DEBUG"):
            raise
        from xmo.input_files import shrunk_inputs

        source = getattr(getattr(driver, "args", None), "input_file", None) or "<stdin>"
        # a mapped input that shrank is the cause of whatever failed ("Bad address")
        shrunk = shrunk_inputs()
        print(f"xmo-opt: error: {shrunk[0] if shrunk else _error_line(e, source)}",
              file=sys.stderr)
        return 1
    return 0


def _error_line(e: Exception, source: str) -> str:
    """The one line ``xmo-opt`` prints for ``e`` (``source``: the input's name)."""
    from xdsl.utils.exceptions import ParseError

    if isinstance(e, ParseError):
        from xmo.api import parse_error_line

        return parse_error_line(e)
    if isinstance(e, UnicodeDecodeError):
        return f"{source}: not a text file (not UTF-8)"
    if isinstance(e, RecursionError):
        return f"{source}: nested too deeply"
    return str(e).strip() or type(e).__name__


if __name__ == "__main__":
    sys.exit(cli())
