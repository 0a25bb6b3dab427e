"""`llm.n_ctx = 512`, the smallest window the config accepts: ask fits its prompt to it (dropping the weakest
passages) instead of failing with llama.cpp's ValueError, and a prompt that cannot fit is one clear error."""

from __future__ import annotations

import pytest

from conftest import PAPERS
from paperdesk.core.errors import ConfigError
from paperdesk.core.llm.backend import GenerationRequest, generate

pytestmark = pytest.mark.slow  # the real GGUF model


@pytest.fixture(scope="module")
def small_window(llama_probe):
    from paperdesk.core.llm.local import LocalBackend
    from paperdesk.core.llm.models import default_model

    backend = LocalBackend(default_model(), n_ctx=512)
    backend.llama()
    return backend


def test_ask_fits_its_prompt_to_a_512_token_window(library, small_window):
    from paperdesk.core.agents.answer import answer

    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    result = answer(library, small_window, "How does CiteSee help readers with citations?", k=5, max_tokens=60)
    assert result.text.strip()
    assert 1 <= len(result.hits) < 5  # the weakest passages were left out to fit


def test_a_prompt_larger_than_the_window_is_a_clear_error(small_window):
    request = GenerationRequest(prompt="word " * 2000, max_tokens=10)
    with pytest.raises(ConfigError, match=r"does not fit the model's window \(llm.n_ctx = 512\).*raise llm.n_ctx"):
        generate(small_window, request)
