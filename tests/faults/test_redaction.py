"""Credentials in a configured URL are never shown: config, config --keys/--json, doctor, doctor --json,
the status bar's model label and the remote backend's errors. Doctor talks to a real loopback server.
"""

from __future__ import annotations

import json

import pytest

SECRETS = ("sk-USERINFO", "sk-QUERY", "tok-ARXIV", "sig-VALUE")


def _clean(text: str) -> None:
    leaked = [s for s in SECRETS if s in text]
    assert not leaked, f"{leaked} shown in: {text[:400]}"


def test_userinfo_and_secret_query_parameters_are_masked_and_the_rest_kept():
    from paperdesk.core.text.redact import redact_text, redact_url

    url = "http://alice:sk-USERINFO@127.0.0.1:18555/v1?model=x&api_key=sk-QUERY&apiKey=k&X-Amz-Signature=sig-VALUE&n=2"
    shown = redact_url(url)
    _clean(shown)
    assert shown == "http://***@127.0.0.1:18555/v1?model=x&api_key=***&apiKey=***&X-Amz-Signature=***&n=2"
    assert redact_url("https://export.arxiv.org/api/query?search_query=all:x") == \
        "https://export.arxiv.org/api/query?search_query=all:x"
    assert redact_url("https://h/cb#access_token=tok-ARXIV&state=1") == "https://h/cb#access_token=***&state=1"
    text = "ok remote endpoint http://a:sk-USERINFO@127.0.0.1:9 answers; see https://h/q?token=tok-ARXIV."
    assert redact_text(text) == "ok remote endpoint http://***@127.0.0.1:9 answers; see https://h/q?token=***."


@pytest.fixture
def secret_urls(tmp_home, monkeypatch):
    """llm.remote_url and arxiv.api_url carrying credentials, from the environment."""
    from paperdesk.bench.hostile_http import HostileServer

    server = HostileServer().start()
    port = server.base_url.rsplit(":", 1)[1]
    monkeypatch.setenv("PAPERDESK_LLM_BACKEND", "remote")
    monkeypatch.setenv("PAPERDESK_LLM_REMOTE_URL", f"http://alice:sk-USERINFO@127.0.0.1:{port}/v1?api_key=sk-QUERY")
    monkeypatch.setenv("PAPERDESK_ARXIV_API_URL", f"http://127.0.0.1:{port}/canned?token=tok-ARXIV&sig=sig-VALUE")
    yield port
    server.stop()


def test_config_in_every_form_hides_url_credentials(secret_urls, capsys):
    from paperdesk.cli import main

    for argv in (["config"], ["config", "--keys"], ["config", "--json"], ["config", "--keys", "--json"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        _clean(out)
        assert f"http://***@127.0.0.1:{secret_urls}/v1?api_key=***" in out, argv
        assert "token=***&sig=***" in out, argv


def test_status_bar_label_hides_url_credentials(secret_urls):
    from paperdesk.core.config import load_settings
    from paperdesk.core.llm.models import describe_model

    label = describe_model(load_settings())
    _clean(label)
    assert label == f"remote http://***@127.0.0.1:{secret_urls}/v1?api_key=***"


def test_remote_errors_hide_query_secrets():
    from paperdesk.core.errors import NetworkError
    from paperdesk.core.llm.backend import GenerationRequest
    from paperdesk.core.llm.remote import RemoteBackend

    backend = RemoteBackend("http://127.0.0.1:9/?api_key=sk-QUERY")
    with pytest.raises(NetworkError) as info:
        list(backend.stream(GenerationRequest(prompt="hi", max_tokens=1)))
    _clean(str(info.value) + repr(backend))


@pytest.mark.slow  # doctor's embedding check loads the real embedder
def test_doctor_and_doctor_json_hide_url_credentials(secret_urls, capsys):
    from paperdesk.cli import main

    main(["doctor"])
    out = capsys.readouterr().out
    _clean(out)
    assert f"ok       remote endpoint  http://***@127.0.0.1:{secret_urls}/v1?api_key=*** answers" in out, out
    assert "token=***&sig=***" in out
    main(["doctor", "--json"])
    raw = capsys.readouterr().out
    _clean(raw)
    checks = {c["name"]: c for c in json.loads(raw)["checks"]}
    assert checks["remote endpoint"]["status"] == "ok" and "***@127.0.0.1" in checks["remote endpoint"]["summary"]
