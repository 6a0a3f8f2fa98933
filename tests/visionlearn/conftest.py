import pytest

pytest.importorskip("torch", reason="learning needs the optional 'learn' extra (torch)")
pytest.importorskip("onnx", reason="learning needs the optional 'learn' extra (onnx)")
