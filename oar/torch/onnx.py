"""torch.onnx on oar: importable, so that training scripts that offer an ONNX export (pytorch/
examples' word_language_model imports it at the top) run; oar has no ONNX exporter, so
`export` refuses with NotImplementedError naming the missing feature instead of writing a file.
"""
from __future__ import annotations

__all__ = ["export", "is_in_onnx_export"]


def is_in_onnx_export() -> bool:
    """False: oar never traces a model for ONNX export."""
    return False


def export(model, args=(), f=None, *pos, **kwargs):
    """Not available on oar: there is no ONNX exporter (torch.onnx.export traces the model)."""
    raise NotImplementedError("torch.onnx.export: oar has no ONNX exporter; save the "
                              "state_dict with torch.save and export it from PyTorch")
