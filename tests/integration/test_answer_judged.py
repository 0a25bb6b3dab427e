"""An answer whose writer first judges the candidate sentences (sentence_judge.py): on the real local model
(the suite's small Gemma) over a real library of the CiteSee fixture paper. Whether its judgements are good
is the writer's matter (bench qa); here: the writer is asked, the passage it judges best is read first, the
status line says so, and a cancel during judging ends the answer with nothing streamed."""

import pytest

from paperdesk.core.agents import answer as answers, evidence, sentence_judge
from paperdesk.core.cancel import CancelToken
from paperdesk.core.search.reader import sentence_encoder

pytestmark = pytest.mark.slow
QUESTION = "How many participants took part in the CiteSee field study?"


@pytest.fixture(scope="module")
def library(tmp_path_factory, embedder):
    from library_helpers import library_with

    with library_with(tmp_path_factory.mktemp("judged"), embedder, "2302.07302v1.pdf") as lib:
        yield lib


class Spy:
    """The real local backend, with the items it judges recorded (and, with `cancel`, a cancel mid-way)."""

    def __init__(self, backend, cancel: CancelToken | None = None) -> None:
        self.backend, self.cancel, self.items, self.margins = backend, cancel, [], []

    def __getattr__(self, name):
        return getattr(self.backend, name)

    def yes_margins(self, system, opening, items, cancel=None, seconds=None):
        if self.cancel is not None:
            self.cancel.cancel()
        self.items.append(list(items))
        self.margins.append(self.backend.yes_margins(system, opening, items, cancel=cancel, seconds=seconds))
        return self.margins[-1]


def test_the_passage_the_writer_judges_best_is_read_first(library, local_backend):
    spy = Spy(local_backend)
    notes = []
    hits = answers.retrieve(library, QUESTION, 5, recall_k=0)
    result = answers.write(library, spy, QUESTION, hits, judge=6, note=notes.append, second_look=0)
    assert len(spy.items) == 1 and len(spy.items[0]) == 6 and len(spy.margins[0]) == 6
    assert any("which sentences state it" in n.stage for n in notes)
    chunks = library.store.chunks_by_ids([h.chunk_id for h in hits])
    scored = evidence.scored_passages(library, QUESTION, [chunks[h.chunk_id].text for h in hits],
                                      sentence_encoder(library.settings, library.embedder))
    judged, order = sentence_judge.judged(_Replay(spy.margins[0]), QUESTION, scored, 6)
    assert result.hits[0].chunk_id == hits[order[0]].chunk_id  # the best judged passage is [1]
    pick = judged[order[0]].sentences[judged[order[0]].kept]
    assert " ".join(pick.split()[:6]) in " ".join(result.read[0].split())  # and its window shows the pick


def test_a_cancel_while_judging_ends_the_answer_with_nothing_streamed(library, local_backend):
    token = CancelToken()
    spy = Spy(local_backend, cancel=token)
    streamed: list[str] = []
    hits = answers.retrieve(library, QUESTION, 5, recall_k=0)
    result = answers.write(library, spy, QUESTION, hits, judge=6, cancel=token, on_token=streamed.append)
    assert spy.margins == [[]] and result.cancelled and "".join(streamed).strip() == ""


def test_no_judging_with_judge_off(library, local_backend):
    spy = Spy(local_backend)
    hits = answers.retrieve(library, QUESTION, 5, recall_k=0)
    answers.write(library, spy, QUESTION, hits, judge=0, second_look=0)
    assert spy.items == []


class _Replay:
    """Replays recorded margins: a stand-in, not a model, so the test can recompute the order they give."""

    capabilities = type("Caps", (), {"judges": True})()

    def __init__(self, margins):
        self.recorded = margins

    def yes_margins(self, system, opening, items, cancel=None, seconds=None):
        return self.recorded[: len(items)]
