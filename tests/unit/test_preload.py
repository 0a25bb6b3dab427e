"""ModelPreload: the embedder and LLM backend start loading in the background and the Desk uses those parts."""

from __future__ import annotations

import pytest

from paperdesk.core.errors import PaperdeskError
from paperdesk.core.desk.preload import ModelPreload
from settings_for import NO_MODEL, settings_for


def test_preload_loads_the_embedder_and_leaves_the_llm_error_for_the_user(tmp_home):
    settings = settings_for(tmp_home, **NO_MODEL)
    preload = ModelPreload(settings)
    preload.wait(timeout=120)
    assert preload.embedder.loaded  # loaded in its thread, the same object the Desk will get
    assert preload.embedder.expected_backend() == preload.embedder.backend
    # The GGUF is missing: no backend is preloaded, and the Desk's own backend says what is wrong.
    assert preload.backend is None
    from paperdesk.core.desk.desk import Desk

    desk = Desk(settings, backend=preload.backend, embedder=preload.embedder)
    try:
        with pytest.raises(PaperdeskError, match="no model file"):
            desk.backend.warm_up()
    finally:
        desk.close()


def test_desk_built_from_a_preload_uses_its_parts(tmp_home):
    from paperdesk.core.desk.desk import Desk

    settings = settings_for(tmp_home, **NO_MODEL)
    preload = ModelPreload(settings)
    desk = Desk(settings, backend=preload.backend, embedder=preload.embedder)
    try:
        preload.wait(timeout=120)
        assert desk.library.embedder is preload.embedder
        assert desk.library.embedder.encode_query("hybrid search").shape == (384,)
    finally:
        desk.close()
