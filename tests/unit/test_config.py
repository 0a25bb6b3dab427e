from pathlib import Path

import pytest

from paperdesk.core.config import KEYS, load_settings
from paperdesk.core.errors import ConfigError


def test_defaults_without_file_or_env(tmp_path: Path):
    settings = load_settings(environ={}, path=tmp_path / "missing.toml")
    assert settings["arxiv.delay_seconds"] == 3.0
    assert settings["search.mode"] == "hybrid"
    assert all(settings.sources[k.name] == "default" for k in KEYS)


def test_file_then_env_override(tmp_path: Path):
    file = tmp_path / "config.toml"
    file.write_text('offline = true\n[arxiv]\napi_url = "http://127.0.0.1:9/api/query"\ndelay_seconds = 1\n')
    settings = load_settings(environ={"PAPERDESK_ARXIV_DELAY_SECONDS": "0.5"}, path=file)
    assert settings["offline"] is True
    assert settings["arxiv.api_url"] == "http://127.0.0.1:9/api/query"
    assert settings["arxiv.delay_seconds"] == 0.5
    assert settings.sources["arxiv.delay_seconds"] == "PAPERDESK_ARXIV_DELAY_SECONDS"


def test_every_key_has_an_env_override(tmp_path: Path):
    env = {"PAPERDESK_SEARCH_ALPHA": "0.25", "PAPERDESK_LLM_N_CTX": "2048", "PAPERDESK_OFFLINE": "yes"}
    settings = load_settings(environ=env, path=tmp_path / "none.toml")
    assert settings["search.alpha"] == 0.25
    assert settings["llm.n_ctx"] == 2048
    assert settings["offline"] is True


@pytest.mark.parametrize(
    ("env", "key"),
    [
        ({"PAPERDESK_ARXIV_DELAY_SECONDS": "soon"}, "arxiv.delay_seconds"),
        ({"PAPERDESK_SEARCH_MODE": "fuzzy"}, "search.mode"),
        ({"PAPERDESK_SEARCH_ALPHA": "1.5"}, "search.alpha"),
        ({"PAPERDESK_OFFLINE": "maybe"}, "offline"),
        ({"PAPERDESK_INGEST_CHUNK_WORDS": "0"}, "ingest.chunk_words"),
    ],
)
def test_bad_env_value_names_the_key(tmp_path: Path, env, key):
    with pytest.raises(ConfigError) as err:
        load_settings(environ=env, path=tmp_path / "none.toml")
    message = str(err.value)
    assert key in message and "\n" not in message
    assert next(iter(env)) in message


def test_bad_file_values_name_the_key(tmp_path: Path):
    file = tmp_path / "config.toml"
    file.write_text('[search]\ncandidates = "many"\n')
    with pytest.raises(ConfigError, match="search.candidates"):
        load_settings(environ={}, path=file)
    file.write_text("[search]\nnot_a_key = 1\n")
    with pytest.raises(ConfigError, match="unknown config key search.not_a_key"):
        load_settings(environ={}, path=file)
    file.write_text("[search\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(environ={}, path=file)


def test_home_comes_from_paperdesk_home(tmp_path: Path):
    settings = load_settings(environ={"PAPERDESK_HOME": str(tmp_path / "data")}, path=tmp_path / "none.toml")
    assert settings.home == tmp_path / "data"
