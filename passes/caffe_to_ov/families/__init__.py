"""Caffe -> ov converters, one module per layer family. Importing this
package registers every converter (see :mod:`xmo.passes.caffe_to_ov.registry`)."""

import importlib
import pkgutil

for _m in pkgutil.iter_modules(__path__):
    if not _m.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_m.name}")
