"""Result type inference for ``ov`` ops, one module per op family.

Each module registers functions with :func:`xmo.dialects.ov.base.shape_infer`;
importing this package registers them all.
"""
