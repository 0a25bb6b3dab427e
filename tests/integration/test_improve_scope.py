"""`improve` on a real library (SQLite, tantivy, MiniLM) over the 'Beyond Summarization' fixture paper.

The writer here is FakeLLM, a stand-in that always writes the same text: these tests are about the
orchestration (which sections are rewritten, what is stored, what is streamed), not about the model.
"""

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.agents import extractive
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.improve_scope import sections_for
from paperdesk.core.agents.summarizer import SECTIONS, Summarizer, split_sections

KEYS = [k for k, _ in SECTIONS]
CURRENT = """# Beyond Summarization

## Problem
AI support for expository writing is understudied [p. 1].

## Method
The authors sketch three components for AI support design [p. 1].

## Results
Expository writing is evidence-based and knowledge-generating [p. 1].

## Limitations
The paper discusses considerations for future research [p. 1].
"""
# A sentence page 1 supports, for the stand-in writer to "write".
SUPPORTED = "Expository writing contains summaries of external documents as well as new information or knowledge."


def test_feedback_about_one_thing_targets_only_its_sections():
    assert sections_for("name the datasets in the table", KEYS) == ["method", "results"]
    assert sections_for("state the exact factor from the paper", KEYS) == ["results"]
    assert sections_for("improve the limitations: be concrete", KEYS) == ["limitations"]
    assert sections_for("shorter please", KEYS) == KEYS


@pytest.fixture
def paper(library):
    paper = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    library.store.add_revision(paper.id, CURRENT)
    return paper


def improve(library, paper, text, feedback):
    streamed: list[str] = []
    summarizer = Summarizer(library.store, FakeLLM(text), section_tokens=60, embedder=library.embedder)
    sources = library.passages(feedback, k=3, papers=[paper.id])
    return summarizer.improve(paper.id, feedback, sources, on_token=streamed.append), "".join(streamed)


def test_an_improve_that_changes_nothing_stores_nothing_and_says_why(library, paper):
    result, _ = improve(library, paper, "Bananas grow in 20 tropical countries of the world.",
                        "state the exact factor from the paper")
    assert result.unchanged.startswith("no new revision") and "Results" in result.unchanged
    assert len(library.store.revisions(paper.id)) == 1 and result.revision.revision == 1
    assert result.text == CURRENT


def test_untouched_sections_stay_as_they_were_and_are_never_quoted(library, paper):
    result, streamed = improve(library, paper, SUPPORTED, "name the datasets in the table")
    old, new = split_sections(CURRENT), split_sections(result.text)
    assert not result.unchanged and result.revision.revision == 2
    assert new["Problem"] == old["Problem"] and new["Limitations"] == old["Limitations"]
    assert extractive.NOTE not in result.text and result.grounding.extractive_sections == []
    assert "new information or knowledge" in new["Results"]
    assert [1 <= int(m.group(1)) <= 4 for m in CITATION.finditer(new["Results"])] == [True]
    assert " ".join(streamed.split()) == " ".join(result.text.split())  # the stream is what was stored
