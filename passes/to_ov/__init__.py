"""What the legalizations of every frontend share (MLIR's ``Conversion`` utilities).

* :mod:`.driver` -- the legalization driver: the walk over the framework
  ops, the value map, poisoned values, the failure report, names, graph
  inputs / constants / outputs; each frontend gives a ``LegalizationHooks``
  object for what differs
* :mod:`.registry` -- the one converter registry, keyed by framework,
  domain, op type and version range, with one collision rule
  (``FrameworkConverters``: one per frontend)
* :mod:`.builder` -- ``Builder`` (emits ov ops with inferred types, names them
  after the framework node), ``ConverterNode`` (the node a converter sees),
  ``NotConvertible`` (what a converter raises, as
  ``node.unsupported(why)``, for a node it cannot convert), values that live
  only during conversion (``SeqValue``, ``DEAD``)
* :mod:`.helpers` -- small sub-graph helpers (axes, scalars, slices, dims)
* :mod:`.report` -- ``UnsupportedOpsError``: one report of every node that
  cannot be converted
* :mod:`.scoped` -- converter tables of extensions, active only for the
  conversions that load them (``ConverterScope``, ``ConverterTable``,
  ``using_tables``, ``check_clashes``)
"""
