"""A model server's yes-or-no on items (llm/remote_yes_no.py), on a real llama_cpp.server serving the default
writer: the same margins as the local backend's on the same model, and the answer check reads through it; a
server that reports no log-probabilities is asked once and then left alone, and an answer written through it in
chat turns stands unchecked."""

import pytest

from conftest import LLAMA_THREADS, installed_writer
from paperdesk.core.agents import answer_check
from paperdesk.core.llm.local import LocalBackend
from paperdesk.core.llm.remote import RemoteBackend

pytestmark = pytest.mark.slow


SYSTEM = "You check whether a sentence states the answer to a question."
ASK = "Question: What colour is the sky on a clear day?"
THEN = "\nDoes this sentence state the answer? Reply yes or no."
ITEMS = ["Sentence: On a clear day the sky is blue." + THEN,
         "Sentence: The train leaves at noon from platform four." + THEN]


@pytest.fixture(scope="module")
def local_writer(llama_probe):
    """The default writer on the local backend, to compare the served one with."""
    backend = LocalBackend(installed_writer(), n_ctx=2048, n_threads=LLAMA_THREADS)
    backend.llama()
    return backend


def test_a_server_reporting_log_probabilities_gives_the_local_margins(writer_server_with_logprobs_url, local_writer):
    remote = RemoteBackend(writer_server_with_logprobs_url)
    margins = remote.yes_margins(SYSTEM, ASK, ITEMS, seconds=60)
    local = local_writer.yes_margins(SYSTEM, ASK, ITEMS)
    assert len(margins) == 2 and not remote.refused_judging
    # the same chat through the server's template; only yes/no spellings outside its top 20 are not summed
    assert margins == pytest.approx(local, abs=0.15)
    assert margins[0] > 0 > margins[1]  # the writer reads these two plainly
    windows = ["In dry plots, seeds coated with nitrogen-fixing bacteria gave 12% more wheat than uncoated seeds."]
    checked = answer_check.margin(remote, "How much more wheat did coated seeds give in dry plots?",
                                  "Coated seeds gave 12% more wheat [1].", windows)
    assert checked is not None and checked > answer_check.FIRM_MIN  # the answer check reads through the server


def test_a_server_without_log_probabilities_is_asked_once(llama_server_url):
    remote = RemoteBackend(llama_server_url)
    assert remote.yes_margins(SYSTEM, ASK, ITEMS, seconds=60) == []
    assert remote.refused_judging  # why, for the log
    assert remote.yes_margins(SYSTEM, ASK, ITEMS, seconds=60) == []
    assert answer_check.margin(remote, "What colour is the sky?", "Blue [1].", ["The sky is blue."]) is None


class _Recording(RemoteBackend):
    """The real remote client, with each generation request it sends kept."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.sent = []

    def stream(self, request, cancel=None):
        self.sent.append(request)
        return super().stream(request, cancel)


def test_an_answer_through_a_chat_server_is_sent_as_chat_turns_and_stands_unchecked_without_log_probabilities(
        llama_server_url, library):
    from conftest import PAPERS
    from paperdesk.core.agents import answer as answers

    library.add_pdf(PAPERS / "papermage.pdf")
    remote = _Recording(llama_server_url, chat=True)  # the tiny default model, behind a server reporting none
    result = answers.answer(library, remote, "How long does papermage take to process a paper?", k=2,
                            recall_k=0, max_tokens=24)
    first = remote.sent[0]
    assert first.prompt is None and first.messages[0]["role"] == "system"  # chat turns, the worked turn among them
    assert any(m["role"] == "assistant" for m in first.messages)
    assert result.text and result.support is None
