"""One trace gives the int8 model and its unquantized copy; a missing copy is made alone.

The tracing, fusing and quantizing steps are stand-ins here (they write marker files): what is checked is
which copies are made from how many traces, and that each lands whole in its own cache folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperdesk.core.search import onnx_export


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "tokenizer.json").write_text("{}")
    (folder / "config.json").write_text(json.dumps({"max_position_embeddings": 512}))
    return folder


@pytest.fixture
def traces(monkeypatch) -> list[Path]:
    made: list[Path] = []

    def trace(_model_dir: Path, target: Path) -> None:
        made.append(target)
        target.write_text("traced")

    monkeypatch.setattr(onnx_export, "_export_fp32", trace)
    monkeypatch.setattr(onnx_export, "_fuse", lambda source, _target, _dir: (source, {}))
    monkeypatch.setattr(onnx_export, "_quantize", lambda source, target: target.write_text("int8 of " + source.read_text()))
    monkeypatch.setattr(onnx_export, "window_of", lambda _dir: 256)
    return made


def test_int8_with_its_copy_is_one_trace(model_dir: Path, tmp_path: Path, traces: list[Path]):
    root = tmp_path / "cache"
    int8 = onnx_export.export_int8(model_dir, root, with_fp32=True)
    assert len(traces) == 1
    assert (int8 / onnx_export.MODEL_FILE).read_text() == "int8 of traced"
    fp32 = onnx_export.export_dir(model_dir, root, "fp32")
    assert fp32 != int8 and (fp32 / onnx_export.FP32_FILE).read_text() == "traced"
    assert json.loads((fp32 / onnx_export.MANIFEST).read_text())["model_file"] == onnx_export.FP32_FILE
    assert onnx_export.export_fp32(model_dir, root) == fp32 and len(traces) == 1  # in the cache: no new trace
    assert not list(root.glob(".export-*"))  # the work folder is gone


def test_a_missing_copy_is_made_alone_and_int8_alone_makes_no_copy(model_dir: Path, tmp_path: Path,
                                                                   traces: list[Path]):
    root = tmp_path / "cache"
    onnx_export.export_int8(model_dir, root)  # a reader model: int8 only
    assert not onnx_export.is_exported(model_dir, root, "fp32")
    before = (onnx_export.export_dir(model_dir, root) / onnx_export.MODEL_FILE).stat().st_mtime_ns
    onnx_export.export_fp32(model_dir, root)
    assert len(traces) == 2 and onnx_export.is_exported(model_dir, root, "fp32")
    assert (onnx_export.export_dir(model_dir, root) / onnx_export.MODEL_FILE).stat().st_mtime_ns == before
    onnx_export.export_int8(model_dir, root, with_fp32=True)  # both there: nothing to do
    assert len(traces) == 2


def test_failures_are_recorded_per_precision(model_dir: Path, tmp_path: Path):
    onnx_export.record_failure(model_dir, "no room", tmp_path, "fp32")
    assert onnx_export.failed_before(model_dir, tmp_path, "fp32") == "no room"
    assert onnx_export.failed_before(model_dir, tmp_path) is None
