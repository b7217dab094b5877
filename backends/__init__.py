"""Backends: OpenVINO IR serialization/reading and CPU execution."""
