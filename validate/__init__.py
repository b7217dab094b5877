"""``xmo validate``: convert and check many models, each in a process of its own.

* :mod:`.manifest`: what to validate (:class:`Task`: a model and its options;
  manifests of one model a line, or JSON / YAML lists);
* :mod:`.worker`: one model, inside its isolated process: convert with xmo
  (and ovc), run the reference and the IR, compare, locate the first
  diverging tensor; prints a :class:`Result`;
* :mod:`.isolation`: the process around a worker (time and memory limits,
  the status of a crash, a timeout or an out-of-memory);
* :mod:`.runner`: many tasks on a local pool (``--jobs``) or a Dask cluster
  (``--scheduler``), with the terminal progress line;
* :mod:`.db`: the SQLite results (resumable runs, JSON / CSV exports);
* :mod:`.report`: the self-contained HTML report;
* :mod:`.cli`: the ``xmo validate`` sub-command.
"""
