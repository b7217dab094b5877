"""Framework frontends: model files -> framework dialect modules."""
