"""Pick the configured backend for each role: the local GGUF models or a remote OpenAI-compatible server.

The writer writes what the user reads; the structure model writes plans and short
JSON. Each is created once by its owner (the Desk, a CLI verb) and shared; nothing
is loaded here: a local backend loads its GGUF on first use.
"""

from __future__ import annotations

from paperdesk.core.config import Settings
from paperdesk.core.errors import ConfigError
from paperdesk.core.llm.backend import Backend

STRUCTURE_N_CTX = 2048  # a few-shot plan or a router pick fits; keeps the second model's memory small


def make_backend(settings: Settings) -> Backend:
    """The writer."""
    if settings["llm.backend"] == "remote":
        if settings["offline"]:
            raise ConfigError("offline: llm.backend is remote; set llm.backend = local or drop --offline")
        if not settings["llm.remote_url"]:
            raise ConfigError("config key llm.remote_url: set it to the server's base URL, e.g. http://127.0.0.1:8000")
        from paperdesk.core.llm.remote import RemoteBackend

        return RemoteBackend(settings["llm.remote_url"], settings["llm.api_key"], settings["llm.timeout"],
                             settings["llm.remote_model"], chat=settings["llm.remote_chat"])
    from paperdesk.core.llm.local import LocalBackend
    from paperdesk.core.llm.models import resolve_writer
    from paperdesk.core.llm.prefix_states import default_folder

    return LocalBackend(resolve_writer(settings).path, settings["llm.n_ctx"], settings["llm.n_threads"],
                        settings["llm.n_batch"], prefix_folder=default_folder())


def make_structure_backend(settings: Settings, writer: Backend | None = None) -> tuple[Backend | None, str]:
    """The structure model and its name: "remote" (the endpoint serves both roles), the model's name, or
    "writer" when no structure model is installed (the writer, given or made, does it too).

    A structure model that is the writer's own file shares the writer's backend (one load).
    """
    if settings["llm.backend"] == "remote":
        return (writer if writer is not None else make_backend(settings)), "remote"
    from paperdesk.core.llm.models import resolve_structure

    choice = resolve_structure(settings)
    if choice is None:
        return (writer if writer is not None else make_backend(settings)), "writer"
    same = getattr(writer, "model_path", None)
    if same is not None and choice.path.resolve() == same.resolve():
        return writer, choice.name
    from paperdesk.core.llm.local import LocalBackend

    return LocalBackend(choice.path, n_ctx=STRUCTURE_N_CTX, n_threads=settings["llm.n_threads"],
                        n_batch=settings["llm.n_batch"]), choice.name
