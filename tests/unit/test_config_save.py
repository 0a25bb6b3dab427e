"""Saving a setting picked in the app never widens who can read the config file (it may hold the API key),
and a symlinked config is updated where it points."""

import os
import stat
import tomllib

import pytest

from paperdesk.config_save import save_setting
from paperdesk.core.config import load_settings


def mode_of(path):
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask():
    old = os.umask(0o022)  # the usual umask: a plain write would make the file 0644
    yield
    os.umask(old)


def test_a_private_config_with_an_api_key_stays_private(tmp_path, open_umask):
    config = tmp_path / "config.toml"
    config.write_text('[llm]\napi_key = "sk-secret"\n')
    config.chmod(0o600)
    save_setting(load_settings(environ={}, path=config), "theme", "paperdesk-light")
    assert mode_of(config) == 0o600
    saved = tomllib.loads(config.read_text())
    assert saved == {"theme": "paperdesk-light", "llm": {"api_key": "sk-secret"}}
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temp file left beside it


def test_an_existing_mode_is_kept_and_a_new_file_is_owner_only(tmp_path, open_umask):
    shared = tmp_path / "shared.toml"
    shared.write_text("# mine\n")
    shared.chmod(0o640)
    save_setting(load_settings(environ={}, path=shared), "theme", "textual-dark")
    assert mode_of(shared) == 0o640
    fresh = tmp_path / "sub" / "new.toml"
    save_setting(load_settings(environ={}, path=fresh), "theme", "textual-dark")
    assert mode_of(fresh) == 0o600


def test_a_symlinked_config_stays_a_link_and_its_target_is_updated(tmp_path, open_umask):
    real = tmp_path / "dotfiles" / "paperdesk.toml"
    real.parent.mkdir()
    real.write_text('[llm]\napi_key = "sk-secret"\n')
    real.chmod(0o600)
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    save_setting(load_settings(environ={}, path=link), "theme", "paperdesk-light")
    assert link.is_symlink()
    assert tomllib.loads(real.read_text())["theme"] == "paperdesk-light"
    assert mode_of(real) == 0o600

