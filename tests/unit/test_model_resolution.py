
import pytest

from paperdesk.core.config import load_settings
from paperdesk.core.errors import ConfigError
from paperdesk.core.llm import models


def test_configured_path_wins_and_missing_is_clear(tmp_home, tmp_path, monkeypatch):
    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setenv("PAPERDESK_LLM_MODEL_PATH", str(gguf))
    choice = models.resolve_model(load_settings())
    assert choice.path == gguf and choice.source == "config"
    monkeypatch.setenv("PAPERDESK_LLM_MODEL_PATH", str(tmp_path / "gone.gguf"))
    with pytest.raises(ConfigError, match="llm.model_path: no model file"):
        models.resolve_model(load_settings())


def test_first_gguf_in_data_dir_models(tmp_home, tmp_path, monkeypatch):
    monkeypatch.delenv("PAPERDESK_LLM_WRITER_MODEL")  # no writer named: the folders come next
    monkeypatch.setattr(models, "PROJECT_ROOT", tmp_path / "project")
    monkeypatch.chdir(tmp_path)
    (tmp_home / "models").mkdir()
    for name in ("b.gguf", "a.gguf"):
        (tmp_home / "models" / name).write_bytes(b"GGUF")
    choice = models.resolve_model(load_settings())
    assert choice.path.name == "a.gguf" and choice.source == "data dir"


def test_default_model_is_assembled_atomically_once(tmp_path):
    cache = tmp_path / "cache"
    path = models.default_model(cache)
    assert path.read_bytes()[:4] == b"GGUF"
    assert [p.name for p in cache.iterdir()] == [path.name]  # no temp left behind
    mtime = path.stat().st_mtime_ns
    assert models.default_model(cache).stat().st_mtime_ns == mtime


def test_models_verb_marks_the_active_one(tmp_home, tmp_path, monkeypatch, capsys):
    from paperdesk.cli import main
    import json

    gguf = tmp_path / "mine.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setenv("PAPERDESK_LLM_MODEL_PATH", str(gguf))
    assert main(["models", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["active"] == {"path": str(gguf), "source": "config", "size": 4}
    assert main(["models"]) == 0
    assert f"writer: mine  {gguf}  (from config)" in capsys.readouterr().out
