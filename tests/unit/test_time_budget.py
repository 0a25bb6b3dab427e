"""A model call's time limit follows the machine: the model file's measured speed, the prompt's size, a floor.

No model runs here. The speeds are written the way `bench llm` writes them (speeds.record) into a
temporary cache, for a stand-in model file (a few bytes, NOT a GGUF): the limit is arithmetic over them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paperdesk.core.llm import speeds
from paperdesk.core.llm.backend import GenerationRequest
from paperdesk.core.llm.time_budget import DECODE_TPS, PROMPT_TPS, budget, for_request, prompt_tokens


class StandInBackend:
    """A stand-in backend that only names a model file (it never generates)."""

    def __init__(self, model_path: Path | None) -> None:
        if model_path is not None:
            self.model_path = model_path


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # speeds.json and the probe's verdicts
    return tmp_path / "cache"


def test_the_limit_grows_with_the_prompt_and_the_reply():
    measured = (150.0, 8.0, "bench llm")
    short = budget(100, 50, 1.0, measured)
    longer = budget(2000, 50, 1.0, measured)
    more_words = budget(2000, 400, 1.0, measured)
    assert short.seconds < longer.seconds < more_words.seconds
    assert longer.seconds - short.seconds == pytest.approx(1.5 * 1900 / 150)


def test_the_limit_falls_as_the_measured_speed_rises():
    slow = budget(1000, 200, 1.0, (100.0, 5.0, "bench llm"))
    fast = budget(1000, 200, 1.0, (1000.0, 50.0, "bench llm"))
    assert fast.seconds < slow.seconds
    assert slow.seconds == pytest.approx(1.5 * (1000 / 100 + 200 / 5))


def test_the_configured_step_timeout_is_the_floor_and_the_message_says_so():
    small = budget(20, 5, 30.0, (500.0, 40.0, "bench llm"))
    assert small.seconds == 30.0
    assert small.describe().startswith("30 s (research.step_timeout, the minimum; the estimate was")
    remote = budget(5000, 500, 30.0, None)  # no model file, no measured speed: the configured value
    assert remote.seconds == 30.0 and "no measured speed" in remote.describe()


def test_the_message_says_how_the_limit_was_reached():
    found = budget(1050, 200, 30.0, (150.0, 8.0, "bench llm"))
    assert found.describe() == "48 s (prompt ~1050 tokens at 150 tok/s + 200 tokens at 8 tok/s, x1.5)"


def test_the_prompt_is_sized_from_its_characters_chat_messages_too():
    assert prompt_tokens("x" * 3500) == 1000
    assert prompt_tokens(messages=[{"role": "user", "content": "x" * 350}]) > prompt_tokens("x" * 350)


def test_a_request_on_a_measured_model_file_uses_that_files_speed(tmp_path, cache):
    model = tmp_path / "stand-in.gguf"
    model.write_bytes(b"not a model")
    request = GenerationRequest(prompt="word " * 700, max_tokens=100)
    unmeasured = for_request(StandInBackend(model), request, 1.0)
    assert (unmeasured.prompt_tps, unmeasured.decode_tps) == (PROMPT_TPS, DECODE_TPS)  # conservative defaults
    assert "not measured" in unmeasured.speed_source
    speeds.record(model, {"decode_tps": 40.0, "prompt_tps": 400.0, "source": "bench llm"})
    measured = for_request(StandInBackend(model), request, 1.0)
    assert (measured.prompt_tps, measured.decode_tps) == (400.0, 40.0)
    assert measured.seconds < unmeasured.seconds
    assert for_request(StandInBackend(None), request, 12.0).seconds == 12.0  # a remote endpoint: the floor
