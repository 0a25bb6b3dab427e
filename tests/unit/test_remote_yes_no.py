"""Reading a yes-or-no margin from the log-probabilities an OpenAI-compatible server reports."""

import math

import pytest

from paperdesk.core.llm.remote_yes_no import first_token_logprobs, margin_of


def _reply(top):
    return {"choices": [{"logprobs": {"content": [{"token": top[0][0], "logprob": top[0][1],
                                                   "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top]}]}}]}


def test_every_spelling_of_yes_and_no_is_summed():
    top = [("Yes", math.log(0.5)), (" yes", math.log(0.2)), ("No", math.log(0.2)), ("no", math.log(0.05)),
           ("Maybe", math.log(0.05))]
    assert margin_of(top) == pytest.approx(math.log(0.7 / 0.25))


def test_a_word_not_listed_is_bounded_by_the_least_likely_token_listed():
    top = [("Yes", -0.01), ("The", -6.0), ("It", -7.5)]
    assert margin_of(top) == pytest.approx(-0.01 + 7.5)  # "no" is at most as likely as "It"
    assert margin_of([("No", -0.02), ("Sure", -5.0)]) == pytest.approx(-5.0 + 0.02)


def test_neither_word_listed_gives_no_margin():
    assert margin_of([("The", -0.5), ("It", -1.5)]) is None


def test_the_first_tokens_alternatives_are_read_from_a_chat_completion():
    assert first_token_logprobs(_reply([("Yes", -0.1), ("No", -2.5)])) == [("Yes", -0.1), ("No", -2.5)]


@pytest.mark.parametrize("data", [
    {}, {"choices": []}, {"choices": [{"logprobs": None}]}, {"choices": [{"logprobs": {"content": []}}]},
    {"choices": [{"logprobs": {"content": [{"top_logprobs": [{"token": "Yes"}]}]}}]},
    {"choices": [{"logprobs": {"content": [{"top_logprobs": [{"token": "Yes", "logprob": "high"}]}]}}]},
    {"choices": [{"logprobs": {"content": [{"top_logprobs": [{"token": "Yes", "logprob": float("nan")}]}]}}]},
    [1, 2], "yes",
])
def test_a_reply_without_them_in_that_shape_gives_none(data):
    assert first_token_logprobs(data) is None
