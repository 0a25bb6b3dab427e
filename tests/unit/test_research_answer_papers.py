"""A research sub-answer holds each named paper's findings, and never a sentence that only restates the question.

Real library (SQLite, tantivy, MiniLM) of two fixture papers, CiteSee and PaperMage. The writer is
PassageEchoStandIn, a STAND-IN backend, NOT a model: it opens with a lead-in that restates the question,
then copies the start of the first passage of its prompt, cited [1]: what a small model often writes. The
test is about which passages each part of the answer reads and what the answer keeps.
"""

from __future__ import annotations

import re

from fake_llm import FakeLLM
from library_helpers import library_fixture
from paperdesk.core.config import load_settings
from paperdesk.core.research.tools import ToolContext, answer

QUESTION = "How do CiteSee and PaperMage handle citations?"
library = library_fixture("2302.07302v1.pdf", "papermage.pdf")


class PassageEchoStandIn(FakeLLM):
    """STAND-IN, not a model: "Here is how the papers handle citations: [1]." then passage [1]'s first words."""

    def stream(self, request, cancel=None):  # noqa: ANN001
        prompt = request.prompt or "\n".join(m["content"] for m in request.messages or [])
        passages = re.findall(r"^\[1\] \([^)]*\) (.+)$", prompt, re.M)
        first = " ".join(passages[-1].split()[:14]).rstrip(",.;:") if passages else "nothing"
        self.text = f"Here is how the papers handle citations: [1]. {first} [1]."
        yield from super().stream(request, cancel)


def test_each_named_paper_gives_a_cited_part_and_the_lead_in_that_restates_the_question_is_not_shown(library):
    ctx = ToolContext(library, PassageEchoStandIn(), load_settings(), answer_tokens=80, k=5)
    result = answer(ctx, {"question": QUESTION}, {})
    cited = {c["paper_id"] for c in result["citations"]}
    titles = {p.id: p.title.split(":")[0] for p in library.store.list_papers()}
    assert {titles[p] for p in cited} == {"CiteSee", "PaperMage"}, result["text"]
    assert result["paper_parts"] == 2 and result["supported"]
    assert "Here is how the papers handle citations" not in result["text"]
    marks = {int(n) for n in re.findall(r"\[(\d+)\]", result["text"])}
    assert marks == {int(c["n"]) for c in result["citations"]}  # each [n] left in the text is a cited passage


def test_a_sub_question_on_one_named_paper_the_writer_fails_quotes_that_papers_closest_sentence(library):
    unusable = FakeLLM("The the the the the the the the.")  # STAND-IN: text no passage supports
    ctx = ToolContext(library, unusable, load_settings(), answer_tokens=80, k=5)
    result = answer(ctx, {"question": "How does PaperMage cope with handwritten notes in scanned theses?"}, {})
    titles = {p.id: p.title.split(":")[0] for p in library.store.list_papers()}
    assert result["supported"] and {titles[c["paper_id"]] for c in result["citations"]} == {"PaperMage"}
    assert result["text"].startswith("PaperMage, in its own words:"), result["text"]
    quote = re.sub(r"\s*\[\d+\]", "", result["text"].split(":", 1)[1]).strip().rstrip(".")
    cited = result["citations"][0]["chunk_id"]
    assert quote in " ".join(library.store.chunks_by_ids([cited])[cited].text.split())  # the paper's own words

