"""The status line's live figures: the model's own token count and rate from the meter every generation
reports to, and the stage's elapsed time. FakeLLM is a stand-in streamer (not a model): this is about the
counting, not the text."""

from __future__ import annotations


from fake_llm import FakeLLM
from paperdesk.core.llm.backend import GenerationRequest, generate
from paperdesk.core.llm.meter import METER, Reading
from paperdesk.tui.status_bar import live_suffix


def test_the_meter_counts_every_token_of_the_generation_under_way_and_stops_with_it():
    seen = []
    llm = FakeLLM("one two three four five six", delay=0.01)
    generate(llm, GenerationRequest(prompt="x", max_tokens=6), on_token=lambda t: seen.append(METER.read()))
    assert [r.tokens for r in seen] == [1, 2, 3, 4, 5, 6] and all(r.live for r in seen)
    assert seen[-1].rate > 0 and seen[0].rate == 0  # one token has no rate: its time is the prompt's
    after = METER.read()
    assert after.tokens == 6 and not after.live


def test_the_live_suffix_says_stage_time_and_model_tokens():
    assert live_suffix(12.4, None) == "12 s"
    assert live_suffix(3, Reading(0, 2.2, 0.0, True)) == "3 s · model reading the prompt 2 s"
    assert live_suffix(30, Reading(1, 5.0, 0.0, True)) == "30 s · model 1 token"
    assert live_suffix(30, Reading(134, 9.0, 14.24, True)) == "30 s · model 134 tokens, 14.2 tok/s"
    assert live_suffix(30, Reading(134, 9.0, 14.24, False)) == "30 s"  # between generations: no model figure
