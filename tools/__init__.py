"""Command-line entry points (``xmo``, ``xmo-opt``)."""
