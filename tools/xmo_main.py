"""``xmo``: the converter's command line (``xmo convert``, ``xmo run``).

``xmo convert MODEL -o OUT.xml`` writes OpenVINO IR (OUT.xml + OUT.bin);
``xmo run MODEL`` executes a model and prints its outputs;
``xmo validate MODEL... | --manifest FILE`` converts and checks many
(:mod:`xmo.validate`).

Every failure ends in a one-line ``xmo: error: ...`` and a non-zero exit code;
``--log_level DEBUG`` (or ``XMO_DEBUG=1``) shows the traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from xmo import bus_error
from xmo.errors import XmoError
from xmo.gc_policy import configure_process, leave_to_os
from xmo.termination import Terminated, install_termination_handlers

log = logging.getLogger("xmo")


class CLIError(XmoError):
    """A usage error reported as one line."""


def _add_convert(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "convert",
        help="convert a model to OpenVINO IR",
        description="Convert MODEL (.onnx; TensorFlow frozen graph .pb/.pbtxt; "
        "Kaldi nnet1/nnet3 .nnet/.raw/.mdl; "
        "MXNet PREFIX-symbol.json / PREFIX-NNNN.params; Caffe "
        ".prototxt (with the .caffemodel beside it) or .caffemodel; "
        "or .mlir / OpenVINO IR .xml) to OpenVINO IR v11.",
    )
    p.add_argument("input_model", metavar="MODEL")
    p.add_argument(
        "-o",
        "--output_model",
        "--output-model",
        dest="output_model",
        metavar="OUT.xml",
        help="IR file to write (the .bin goes beside it); default: MODEL's name "
        "with .xml in the current folder",
    )
    p.add_argument(
        "--input", help="input names and shapes, e.g. 'data[1,3,224,224],mask[1,?]'"
    )
    p.add_argument("--output", help="comma-separated output tensor names to cut at")
    p.add_argument("-b", "--batch", type=int, help="batch size to set on every input")
    p.add_argument("--compress_to_fp16", action="store_true")
    p.add_argument("--static_shape", action="store_true")
    p.add_argument(
        "--layout",
        help="change input/output layouts, e.g. 'input(nhwc->nchw)' or 'nhwc->nchw' "
        "(every input of that rank)",
    )
    p.add_argument(
        "--disable_nhwc_to_nchw",
        "--disable-nhwc-to-nchw",
        dest="disable_nhwc_to_nchw",
        action="store_true",
        help="TensorFlow models: keep computing in NHWC (no layout change)",
    )
    p.add_argument(
        "--memory-limit",
        "--memory_limit",
        dest="memory_limit",
        metavar="SIZE",
        help="memory the conversion may allocate, e.g. 4G or 512M (default: half of "
        "the physical memory); beyond it the conversion stops with an error",
    )
    g = p.add_argument_group("MXNet")
    g.add_argument("--input_params", "--input-params", dest="input_params", metavar="PARAMS",
                   help="MXNet: the .params file of MODEL (-symbol.json); default: "
                   "PREFIX-NNNN.params beside it, the newest epoch")
    g.add_argument("--epoch", type=int, metavar="N",
                   help="MXNet: read PREFIX-NNNN.params of epoch N")
    p.add_argument(
        "--mean_values", "--mean-values", dest="mean_values",
        help="values subtracted from inputs, per channel: 'data[123,117,104]' or "
        "'[123,117,104]' (every input)",
    )
    p.add_argument(
        "--scale_values", "--scale-values", dest="scale_values",
        help="values inputs are divided by (after the mean), per channel, as --mean_values",
    )
    p.add_argument(
        "--reverse_input_channels", "--reverse-input-channels",
        dest="reverse_input_channels", action="store_true",
        help="reverse the channels of 3-channel inputs (RGB <-> BGR), before mean/scale",
    )
    p.add_argument(
        "--input_proto", "--input-proto", dest="input_proto", metavar="PROTOTXT",
        help="Caffe: the deploy .prototxt of a .caffemodel MODEL",
    )
    _add_extension_options(p)
    _add_log_level(p)


def _mxnet_options(args: argparse.Namespace) -> dict:
    """The MXNet frontend's options that were given."""
    given = {"params": args.input_params, "epoch": args.epoch}
    return {k: v for k, v in given.items() if v is not None}


def _add_extension_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--extensions",
        action="append",
        default=[],
        metavar="DIR",
        help="load an extension folder: ops/, front/<framework>/, middle/, back/, "
        "kernels/ (repeatable; see docs/extensions.md)",
    )
    p.add_argument(
        "--transformations_config",
        "--transformations-config",
        dest="transformations_config",
        metavar="FILE.json",
        help="transformation entries (id, match_kind scope/points/general, "
        "custom_attributes)",
    )
    p.add_argument(
        "--update_transformations_config",
        "--update-transformations-config",
        dest="update_transformations_config",
        action="store_true",
        help="write the computed inputs/outputs of scope entries back into "
        "the --transformations_config file",
    )
    p.add_argument(
        "--enable_transforms",
        "--enable-transforms",
        dest="enable_transforms",
        metavar="IDS",
        help="comma-separated transformation ids to enable (also XMO_ENABLED_TRANSFORMS)",
    )
    p.add_argument(
        "--disable_transforms",
        "--disable-transforms",
        dest="disable_transforms",
        metavar="IDS",
        help="comma-separated transformation ids to disable (also XMO_DISABLED_TRANSFORMS)",
    )
    _add_debug_flags(p)


def _add_debug_flags(p: argparse.ArgumentParser) -> None:
    """Pipeline debugging (xmo.passes.debug)."""
    g = p.add_argument_group("debugging")
    g.add_argument("--print-ir-after-all", action="store_true",
                   help="print the IR after every pass (stderr)")
    g.add_argument("--print-ir-after", action="append", default=[], metavar="PASS",
                   help="print the IR after the named pass(es) (repeatable, comma-separated)")
    g.add_argument("--time-passes", action="store_true",
                   help="print a table of wall time per pass at the end (stderr)")
    g.add_argument("--dump-dir", metavar="D",
                   help="write the IR after each pass to D/NNN_<pass>.mlir")


def _debug_session(args: argparse.Namespace, total: int | None = None):  # noqa: ANN202
    from xmo.passes.debug import session

    return session(
        print_ir_after_all=getattr(args, "print_ir_after_all", False),
        print_ir_after=getattr(args, "print_ir_after", []),
        time_passes=getattr(args, "time_passes", False),
        dump_dir=getattr(args, "dump_dir", None),
        total=total,
    )


def _add_viz(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "viz",
        help="draw a model's graph (Graphviz)",
        description="Convert MODEL (as xmo convert does; .xml / .mlir are read as they "
        "are) and draw its graph: op types, friendly names and tensor shapes. "
        "Writes SVG (or any format dot knows, from the suffix) when Graphviz dot "
        "is installed, otherwise the .dot source next to the requested file.",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument("-o", "--output", metavar="FILE", default="graph.svg",
                   help="picture to write (default graph.svg; .dot writes the source)")
    p.add_argument("--input", help="input names and shapes, as for xmo convert")
    _add_log_level(p)


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run a model and print its outputs",
        description="Run MODEL (.onnx, .xml, .mlir) on given or generated inputs "
        "with xmo's CPU backend (or --device openvino).",
    )
    p.add_argument("model", metavar="MODEL")
    p.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="input values (repeatable); missing inputs get arange(n)/n data",
    )
    p.add_argument("--output-dir", metavar="DIR",
                   help="write each output as DIR/NAME.npy (NAME percent-encoded: "
                   "every character but letters, digits and _.-~)")
    p.add_argument("--benchmark", type=int, metavar="N", help="time N runs")
    p.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="CPU backend threads (BLAS, numba, xmo's pool; default: the cores "
        "this process may use)",
    )
    p.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=10,
        metavar="RUNS",
        help="time every op over RUNS runs (default 10; CPU backend) and print the "
        "ten slowest op types and nodes",
    )
    p.add_argument(
        "--device",
        choices=["cpu", "openvino"],
        default="cpu",
        help="cpu: xmo's own CPU backend (default); openvino: the OpenVINO runtime",
    )
    p.add_argument(
        "--compare-with",
        choices=["onnxruntime"],
        help="run the ONNX model in onnxruntime too and name the first tensor "
        "whose values diverge",
    )
    _add_log_level(p)


def _add_log_level(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--log_level",
        "--log-level",
        dest="log_level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xmo", description="xmo: convert framework models to OpenVINO IR"
    )
    from xmo import __version__

    parser.add_argument("--version", action="version", version=f"xmo {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_convert(sub)
    _add_run(sub)
    _add_viz(sub)
    from xmo.validate.cli import add_parser as add_validate

    add_validate(sub)
    return parser


def cmd_convert(args: argparse.Namespace) -> int:
    import xmo

    src = Path(args.input_model)
    out = Path(args.output_model) if args.output_model else Path(src.stem + ".xml")
    if out.suffix.lower() != ".xml":
        raise CLIError(f"output model must end in .xml: {out}")
    if out.parent.exists() and not out.parent.is_dir():
        raise CLIError(f"{out.parent} is not a folder")
    t0 = time.perf_counter()
    module = xmo.convert_model(
        args.input_model,  # as given: recorded in the IR's conversion_parameters
        input=args.input,
        output=args.output,
        batch=args.batch,
        static_shape=args.static_shape,
        layout=args.layout,
        disable_nhwc_to_nchw=args.disable_nhwc_to_nchw,
        extensions=args.extensions,
        transformations_config=_transformations_config(args),
        enable_transforms=args.enable_transforms,
        disable_transforms=args.disable_transforms,
        memory_limit=args.memory_limit,
        **_mxnet_options(args),
        mean_values=args.mean_values,
        scale_values=args.scale_values,
        reverse_input_channels=args.reverse_input_channels,
        **({"input_proto": args.input_proto} if args.input_proto else {}),
    )
    if not any(op.name == "ov.Result" for op in module.body.block.ops):
        raise CLIError(f"{src}: the converted model has no outputs (no Result): nothing to write")
    _check_inputs_intact()
    created = _make_folders(out.parent)  # like ovc: create the output folder
    try:
        # convert_model verified the module; ov-compress-fp16 keeps it valid
        xmo.save_model(module, out, compress_to_fp16=args.compress_to_fp16, verify=False)
    except BaseException:
        _remove_folders(created)
        raise
    for folder in created:
        bus_error.forget(folder)
    dt = time.perf_counter() - t0
    n_ops = sum(1 for _ in module.body.block.ops)
    from xmo.passes.debug import clear_status

    clear_status()
    print(f"[ xmo ] converted {src} ({n_ops} ops) in {dt:.2f} s")
    print(f"[ xmo ] IR: {out.resolve()}")
    print(f"[ xmo ] weights: {out.with_suffix('.bin').resolve()}")
    return 0


def _transformations_config(args: argparse.Namespace):  # noqa: ANN202
    if args.update_transformations_config and not args.transformations_config:
        raise CLIError("--update_transformations_config needs --transformations_config")
    if not args.transformations_config:
        return None
    from xmo.passes.phases.config import TransformationsConfig

    return TransformationsConfig.load(
        args.transformations_config, update=args.update_transformations_config
    )


def _make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; the ones created, deepest
    first (removed again when the command fails, or a SIGBUS ends it)."""
    missing = []
    p = folder
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    folder.mkdir(parents=True, exist_ok=True)
    for p in reversed(missing):
        bus_error.remove_on_fault(p)
    return missing


def _remove_folders(created: list[Path]) -> None:
    """Remove the folders :func:`_make_folders` created, if empty (deepest first)."""
    for p in created:
        bus_error.forget(p)
        try:
            p.rmdir()
        except OSError:
            break  # not empty (or gone): its parents are not empty either


def _check_inputs_intact() -> None:
    """A mapped input that shrank is the error (before the next read of it
    faults)."""
    from xmo.input_files import shrunk_inputs

    shrunk = shrunk_inputs()
    if shrunk:
        raise CLIError(shrunk[0])


def _load_inputs(specs: Sequence[str]) -> dict[str, "object"]:
    import numpy as np

    from xmo.input_files import open_input

    values: dict[str, object] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise CLIError(f"--input expects NAME=FILE.npy, got '{spec}'")
        with open_input(path, CLIError) as f:  # a FIFO is refused, not waited on
            try:
                values[name] = np.load(f, allow_pickle=False)
            except (OSError, ValueError, EOFError) as e:
                raise CLIError(f"cannot read {path}: {e}") from None
    return values


def output_file_name(name: str) -> str:
    """The ``--output-dir`` file of the output ``name``: the name
    percent-encoded (every character but ASCII letters, digits and ``_.-~``;
    ``urllib.parse.unquote`` gives the name back), then ``.npy``. Distinct
    names get distinct files."""
    from urllib.parse import quote

    return quote(name, safe="") + ".npy"


def _save_outputs(folder: str, results: dict) -> None:  # noqa: ANN001
    """Each output as ``folder/output_file_name(name)``; a file this run
    already wrote is never overwritten (a case-insensitive file system): an
    error; on any error the files and folders this run created are removed."""
    import numpy as np

    created = _make_folders(Path(folder))
    written: dict[tuple[int, int], str] = {}
    try:
        for name, arr in results.items():
            path = Path(folder) / output_file_name(name)
            try:
                st = path.stat()
            except FileNotFoundError:
                pass
            else:
                other = written.get((st.st_dev, st.st_ino))
                if other is not None:
                    raise CLIError(f"--output-dir: outputs '{other}' and '{name}' would be "
                                   f"written to the same file {path}")
            np.save(path, arr)
            st = path.stat()
            written[(st.st_dev, st.st_ino)] = name
    except BaseException:
        for p in [Path(folder) / output_file_name(n) for n in written.values()]:
            p.unlink(missing_ok=True)
        _remove_folders(created)
        raise
    for p in created:
        bus_error.forget(p)


def _default_feed(ports, given: dict) -> dict:  # noqa: ANN001
    """Given inputs, plus arange(n)/n data for the missing ones."""
    from xmo.backends.openvino_runner import default_input

    feed = dict(given)
    for p in ports:
        if any(n in given for n in p.names):
            continue
        if p.shape is None:
            raise CLIError(f"input '{p.name}' has a dynamic rank: give it with --input")
        shape = tuple(d if d >= 0 else 1 for d in p.shape)
        feed[p.name] = default_input(shape, p.dtype)
    return feed


def cmd_run(args: argparse.Namespace) -> int:
    import numpy as np

    given = _load_inputs(args.input)
    profile = None
    if args.device == "openvino" and args.profile is not None:
        raise CLIError("--profile works with --device cpu")
    if args.device == "openvino" and args.threads is not None:
        raise CLIError("--threads works with --device cpu")
    if args.device == "openvino":
        from xmo.backends.openvino_runner import run_with_openvino

        results, timings = run_with_openvino(args.model, given, args.benchmark or 0)
        engine = "OpenVINO CPU, f32"
        feed = given
    else:
        import xmo

        t0 = time.perf_counter()
        if args.threads is not None and args.threads < 1:
            raise CLIError(f"--threads: N must be at least 1, got {args.threads}")
        compiled = xmo.compile_model(args.model, threads=args.threads)
        log.info("compiled %s in %.2f s", args.model, time.perf_counter() - t0)
        _check_inputs_intact()
        feed = _default_feed(compiled.inputs, given)
        results = compiled(feed).to_dict()
        timings = []
        for _ in range(args.benchmark or 0):
            t0 = time.perf_counter()
            compiled(feed)
            timings.append(time.perf_counter() - t0)
        engine = "xmo CPU backend"
        if args.profile is not None:
            if args.profile < 1:
                raise CLIError(f"--profile: RUNS must be at least 1, got {args.profile}")
            profile = compiled.profile(feed, args.profile)
    for name, arr in results.items():
        a = np.asarray(arr)
        stats = ""
        if a.size and a.dtype.kind in "fiub":
            stats = f" min {a.min():.6g} max {a.max():.6g} mean {a.mean():.6g}"
        print(f"[ xmo ] output {name}: {a.dtype}{list(a.shape)}{stats}")
        if a.ndim <= 2 and a.size and a.dtype.kind == "f":
            flat = a.reshape(-1)
            top = np.argsort(flat)[::-1][:3]
            print("[ xmo ]   top: " + ", ".join(f"#{int(i)}={float(flat[i]):.4f}" for i in top))
    if args.output_dir:
        _save_outputs(args.output_dir, results)
    if timings:
        ms = sorted(t * 1e3 for t in timings)
        print(
            f"[ xmo ] latency over {len(ms)} runs ({engine}): "
            f"median {ms[len(ms) // 2]:.3f} ms, min {ms[0]:.3f} ms"
        )
    if profile is not None:
        for line in profile.format(top=10).splitlines():
            print(f"[ xmo ] {line}")
    if args.compare_with:
        from xmo.tools.compare import compare_with_onnxruntime

        if args.device == "openvino":
            raise CLIError("--compare-with works with --device cpu")
        print(compare_with_onnxruntime(args.model, feed))
    return 0


def cmd_viz(args: argparse.Namespace) -> int:
    import shutil
    import subprocess

    import xmo
    from xmo.graph.dot import to_dot

    module = xmo.convert_model(Path(args.model), input=args.input)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = to_dot(module, title=Path(args.model).name)
    dot = shutil.which("dot")
    if out.suffix.lower() != ".dot" and dot is not None:
        fmt = out.suffix.lstrip(".").lower() or "svg"
        r = subprocess.run([dot, f"-T{fmt}", "-o", str(out)], input=text.encode(),
                           capture_output=True)
        if r.returncode == 0:
            print(f"[ xmo ] graph: {out.resolve()}")
            return 0
        log.warning("dot failed: %s", r.stderr.decode(errors="replace").strip())
    src = out if out.suffix.lower() == ".dot" else out.with_suffix(".dot")
    src.write_text(text)
    if out.suffix.lower() != ".dot":
        print(f"[ xmo ] Graphviz dot not available: wrote the source {src.resolve()} "
              f"(render it with: dot -T{out.suffix.lstrip('.') or 'svg'} {src.name} -o {out.name})")
    else:
        print(f"[ xmo ] graph: {src.resolve()}")
    return 0


def cli() -> int:
    """The ``xmo`` command: :func:`main` in a process of its own.

    A short-lived process holding one large graph: full collections are rare
    (see :func:`xmo.gc_policy.configure_process`), and what it built is left
    to the operating system at exit (:func:`~xmo.gc_policy.leave_to_os`).
    SIGTERM and SIGHUP unwind it like Ctrl-C (files being written are
    removed), and it exits with 128 plus the signal's number (see
    :mod:`xmo.termination`)."""
    configure_process()
    install_termination_handlers()
    bus_error.install("xmo")
    try:
        return main()
    finally:
        leave_to_os()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=getattr(logging, args.log_level), format="[ %(levelname)s ] %(message)s"
    )
    debug = args.log_level == "DEBUG" or bool(os.environ.get("XMO_DEBUG"))
    try:
        if args.command == "convert":
            steps = 9 + bool(args.compress_to_fp16)  # load, legalization, serialize
            with _debug_session(args, steps):
                return cmd_convert(args)
        if args.command == "viz":
            return cmd_viz(args)
        if args.command == "run":
            return cmd_run(args)
        if args.command == "validate":
            from xmo.validate.cli import cmd_validate

            return cmd_validate(args)
    except Terminated as e:
        print(f"xmo: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("xmo: interrupted", file=sys.stderr)
        return 130
    except SystemExit as e:  # not argparse's (outside): an extension's sys.exit()
        from xmo.extensions import extension_file_of

        where = extension_file_of(e.__traceback__)
        print(f"xmo: error: {where or 'the conversion'}: SystemExit: sys.exit({e.code!r}) "
              "called while converting", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - the CLI's single error exit
        if debug:
            raise
        from xmo.input_files import shrunk_inputs

        # a mapped input that shrank is the cause of whatever failed ("Bad address")
        shrunk = shrunk_inputs()
        # one line, except for reports that are lists (the unsupported-ops report)
        msg = shrunk[0] if shrunk else "\n".join(
            " ".join(ln.split()) if i == 0 else ln.rstrip()
            for i, ln in enumerate(str(e).strip().splitlines()))
        msg = msg or type(e).__name__
        print(f"xmo: error: {msg}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(cli())
