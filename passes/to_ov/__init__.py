"""What the legalizations of every frontend share (MLIR's ``Conversion`` utilities).

* :mod:`.builder` -- ``Builder`` (emits ov ops with inferred types, names them
  after the framework node), ``NodeBase``, ``ConversionFailure``
* :mod:`.helpers` -- small sub-graph helpers (axes, scalars, slices, dims)
* :mod:`.report` -- ``UnsupportedOpsError``: one report of every node that
  cannot be converted
* :mod:`.scoped` -- converter tables of extensions, active only for the
  conversions that load them (``ConverterScope``, ``ConverterTable``,
  ``using_tables``, ``check_clashes``)
"""
