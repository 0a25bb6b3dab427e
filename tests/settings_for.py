"""The one place tests build Settings for a Desk or the workbench: isolated from the developer's config."""

from __future__ import annotations

from pathlib import Path

from paperdesk.core.config import Settings, load_settings

# generation kept short where a test runs the real model: tests check behaviour, not prose
SHORT_OUTPUTS = {"PAPERDESK_SUMMARY_SECTION_TOKENS": "16", "PAPERDESK_SUMMARY_MAP_TOKENS": "16",
                 "PAPERDESK_SUMMARY_EXCERPTS": "3", "PAPERDESK_ANSWER_MAX_TOKENS": "24"}
# for tests that must never load a model: anything that tries gets a clear "no model file" error
NO_MODEL = {"PAPERDESK_LLM_MODEL_PATH": "/nonexistent/no-model-in-this-test.gguf"}


def settings_for(home: Path, api_url: str = "", **env: str) -> Settings:
    """Settings on data dir `home` with the loopback arXiv at `api_url`; `env` adds PAPERDESK_* values."""
    environ = {"PAPERDESK_HOME": str(home), "PAPERDESK_ARXIV_DELAY_SECONDS": "0",
               "PAPERDESK_LLM_WRITER_MODEL": "gemma3-270m",  # the tiny writer, whatever else is installed
               "PAPERDESK_ANSWER_READER": ""}  # search's embedder reads, installed reader or not
    if api_url:
        environ["PAPERDESK_ARXIV_API_URL"] = api_url
    environ.update(env)
    return load_settings(environ=environ, path=home / "absent.toml")
