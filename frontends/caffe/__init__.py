"""Caffe frontend: a deploy ``.prototxt`` + trained ``.caffemodel`` -> a
``caffe``-dialect module (no Caffe needed).

* :mod:`.schema` -- Caffe's protobuf messages, declared in Python;
* :mod:`.wire` -- the binary caffemodel walked at the wire level, so learned
  blobs are ``numpy`` views of the file's bytes (never Python lists);
* :mod:`.loader` -- :func:`~.loader.load_caffe`, :func:`~.loader.graph_input_shapes`,
  :class:`~.loader.CaffeFrontendError` (every malformed file: one line).

The loader is imported on first use (``xmo.frontends`` registers it by path).
"""
