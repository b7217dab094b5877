"""xmo dialects: ``ov`` (OpenVINO opset) and the framework dialects."""
