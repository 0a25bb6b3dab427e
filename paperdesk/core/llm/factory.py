"""Pick the configured backend: the local GGUF model or a remote OpenAI-compatible server."""

from __future__ import annotations

from paperdesk.config import Settings
from paperdesk.core.errors import ConfigError
from paperdesk.core.llm.backend import Backend


def make_backend(settings: Settings) -> Backend:
    if settings["llm.backend"] == "remote":
        if settings["offline"]:
            raise ConfigError("offline: llm.backend is remote; set llm.backend = local or drop --offline")
        if not settings["llm.remote_url"]:
            raise ConfigError("config key llm.remote_url: set it to the server's base URL, e.g. http://127.0.0.1:8000")
        from paperdesk.core.llm.remote import RemoteBackend

        return RemoteBackend(settings["llm.remote_url"], settings["llm.api_key"], settings["llm.timeout"],
                             settings["llm.remote_model"])
    from paperdesk.core.llm.local import LocalBackend
    from paperdesk.core.llm.models import resolve_model

    return LocalBackend(resolve_model(settings).path, settings["llm.n_ctx"], settings["llm.n_threads"],
                        settings["llm.n_batch"])
