"""`paperdesk config --keys`: the command an unknown-key error points to exists and lists every setting."""

import json

import pytest

from paperdesk.cli import main
from paperdesk.core.config import KEYS, load_settings
from paperdesk.core.errors import ConfigError


def test_config_keys_lists_every_setting_with_type_default_and_source(tmp_home, capsys, monkeypatch):
    monkeypatch.setenv("PAPERDESK_ANSWER_K", "7")
    monkeypatch.setenv("PAPERDESK_LLM_API_KEY", "sk-secret")
    assert main(["config", "--keys", "--json"]) == 0
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)["keys"]}
    assert set(rows) == {k.name for k in KEYS}
    assert rows["answer.k"] == {"key": "answer.k", "type": "int", "default": 5, "value": 7,
                                "source": "PAPERDESK_ANSWER_K", "env": "PAPERDESK_ANSWER_K",
                                "help": "passages a sem-search answer is written from"}
    assert rows["search.mode"]["type"] == "str (hybrid, keyword, vector)"
    assert rows["llm.api_key"]["value"] == "(set)"
    assert main(["config", "--keys"]) == 0
    text = capsys.readouterr().out
    assert "llm.remote_model" in text and "sk-secret" not in text
    assert main(["config"]) == 0
    changed = capsys.readouterr().out
    assert "answer.k" in changed and "search.mode" not in changed  # without --keys: what differs from defaults


def test_the_unknown_key_error_names_a_command_that_works(tmp_path, capsys):
    bad = tmp_path / "config.toml"
    bad.write_text("[answer]\nkay = 3\n")
    with pytest.raises(ConfigError, match="paperdesk config --keys"):
        load_settings(environ={}, path=bad)
