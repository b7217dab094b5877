"""``xmo validate``: convert and check many models, each in a process of its own.

* :mod:`.manifest`: what to validate (:class:`Task`: a model and its options;
  manifests of one model a line, or JSON / YAML lists; :class:`CallTask`: a
  named function, e.g. one ONNX conformance case);
* :mod:`.worker`: tasks inside an isolated process: for a model, convert
  with xmo (and ovc), run the reference and the IR, compare, locate the first
  diverging tensor; writes a :class:`Result` (a :class:`CallResult` for a
  call);
* :mod:`.isolation`: the process around a worker, for one task or task after
  task (time and memory limits, the status of a crash, a timeout or an
  out-of-memory, a fresh process after one);
* :mod:`.runner`: many tasks on a local pool (``--jobs``) or a Dask cluster
  (``--scheduler``), a fresh process per task or reused workers, with the
  terminal progress line;
* :mod:`.db`: the SQLite results (resumable runs, JSON / CSV exports);
* :mod:`.report`: the self-contained HTML report;
* :mod:`.cli`: the ``xmo validate`` sub-command.
"""
