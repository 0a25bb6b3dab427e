"""Requests written together: the window arithmetic, and the one-after-another path every backend has."""

from paperdesk.core.cancel import CancelToken
from paperdesk.core.llm.backend import Capabilities, GenerationRequest, generate_all
from paperdesk.core.llm.batch_decode import common_length, fits, stream_length
from tests.fake_llm import ScriptedFakeLLM


def test_common_length_leaves_each_prompt_a_token_of_its_own():
    assert common_length([[1, 2, 3, 4], [1, 2, 3, 5]]) == 3
    assert common_length([[1, 2, 3], [1, 2, 3, 4]]) == 2  # the shorter prompt keeps its last token
    assert common_length([[7, 8], [9, 8]]) == 0
    assert common_length([[1, 2, 3]]) == 2
    assert common_length([]) == 0


def test_fits_checks_each_sequence_and_the_streams_together():
    assert stream_length(1) == 256 and stream_length(256) == 256 and stream_length(257) == 512
    assert fits([[0] * 400, [0] * 300], [64, 64], n_ctx=1024)
    assert not fits([[0] * 1000, [0] * 10], [64, 64], n_ctx=1024)  # one prompt and its answer overflow the window
    # eight streams of 512 cells are four 1,024-token windows: the most one batch may take
    assert fits([[0] * 400] * 8, [64] * 8, n_ctx=1024)
    assert not fits([[0] * 400] * 9, [64] * 9, n_ctx=1024)


def test_a_backend_without_batches_runs_the_requests_in_order():
    """ScriptedFakeLLM is a stand-in text source, not a model: this is about the order and the callbacks."""
    backend = ScriptedFakeLLM(["first reply", "second reply", "third reply"])
    seen = []
    results = generate_all(backend, [GenerationRequest(prompt=f"p{i}", max_tokens=8) for i in range(3)],
                           on_started=lambda i: seen.append(("started", i)),
                           on_finished=lambda i, g: seen.append((i, g.text)))
    assert [r.text for r in results] == ["first reply", "second reply", "third reply"]
    assert seen == [("started", 0), (0, "first reply"), ("started", 1), (1, "second reply"),
                    ("started", 2), (2, "third reply")]


def test_a_cancel_ends_the_requests_not_yet_run():
    backend = ScriptedFakeLLM(["first reply", "second reply", "third reply"])
    token = CancelToken()
    results = generate_all(backend, [GenerationRequest(prompt=f"p{i}", max_tokens=8) for i in range(3)],
                           cancel=token, on_finished=lambda i, g: token.cancel() if i == 0 else None)
    assert results[0].text == "first reply" and not results[0].cancelled
    assert [r.cancelled for r in results[1:]] == [True, True] and len(backend.requests) == 1


def test_a_set_the_backend_declines_is_run_one_after_another():
    """A stand-in that claims batches but declines every set (as the local model does for a schema)."""

    class Declining(ScriptedFakeLLM):
        capabilities = Capabilities(streams=True, batches=True)

        def generate_batch(self, requests, cancel=None, on_finished=None, on_started=None):
            self.declined = len(requests)
            return None

    backend = Declining(["one", "two"])
    results = generate_all(backend, [GenerationRequest(prompt="a"), GenerationRequest(prompt="b")])
    assert backend.declined == 2 and [r.text for r in results] == ["one", "two"]
