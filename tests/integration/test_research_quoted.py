"""When every generated sub-answer failed its check, research quotes the passages it found (real library).

Real SQLite, tantivy and MiniLM over the CiteSee PDF; no model writes anything here.
"""

from __future__ import annotations

import re

from paperdesk.core.research.quoted import NOTE, passages_in, quoted_section
from paperdesk.core.research.tools import ToolContext, library_search

QUESTION = "how do readers keep track of citations they already know?"


def test_the_found_passages_closest_to_the_question_are_quoted_with_their_citations(library, citesee_pdf, settings):
    paper = library.add_pdf(citesee_pdf).paper
    found = library_search(ToolContext(library, None, settings, k=5), {"query": QUESTION}, {})
    results = {"passages_1": found, "per_paper_2": {"iterations": [{"item": paper.id, "result": found}]},
               "answer_3": {"question": "how do they compare?", "text": "unsupported", "citations": []}}
    assert len(passages_in(results)) == len(found["passages"])  # each passage once, iterations included

    section = quoted_section(library, QUESTION, results)
    assert section is not None and section.lead == NOTE.format(questions=QUESTION) and section.question == QUESTION
    answer = section.answer
    assert answer["supported"] and answer["citations"]
    for c in answer["citations"]:
        assert f"[{c['n']}]" in answer["text"] and c["paper_id"] == paper.id
        assert c["chunk_id"] in {p["chunk_id"] for p in found["passages"]}
    # the papers' own reference marks ("[20]") are dropped: every [n] left is one of ours
    assert {int(n) for n in re.findall(r"\[(\d+)\]", answer["text"])} == {c["n"] for c in answer["citations"]}
    sentences = [s for s in answer["text"].split(" [") if s]
    chunk_text = " ".join(" ".join(c.text.split()) for c in library.store.chunks_of(paper.id))
    assert sentences[0].strip()[:40] in chunk_text


def test_nothing_is_quoted_when_no_found_passage_is_about_the_question(library, citesee_pdf, settings):
    library.add_pdf(citesee_pdf)
    found = library_search(ToolContext(library, None, settings, k=5), {"query": QUESTION}, {})
    assert quoted_section(library, "glacier ablation rates in the Alps during summer", {"p": found}) is None
    assert quoted_section(library, QUESTION, {}) is None


def test_a_quoted_report_says_once_that_nothing_generated_held_up(library, citesee_pdf, settings, tmp_path):
    """No answer paragraph, then 'no generated answer', then 'Not answered' for the same question: one statement."""
    from paperdesk.core.research import Backends, Researcher, Tracker
    from paperdesk.core.research.rules import rule_plan

    library.add_pdf(citesee_pdf)

    def search(ctx, params, inputs):
        return library_search(ToolContext(library, None, settings, k=5), params, inputs)

    def answer(ctx, params, inputs):  # a stand-in writer whose every answer fails its check
        return {"question": params["question"], "text": "Unclear.", "citations": [], "sources": [],
                "supported": False}

    plan = rule_plan(QUESTION)
    r = Researcher(library, Backends(None), Tracker(tmp_path / "t.sqlite"), settings=settings,
                   tools={"library_search": search, "answer": answer})
    result = r.run(plan)
    report = result.report
    assert result.unanswered and "## Not answered" not in report
    assert report.count("No generated answer held up") == 1 and result.citations
    checks = sum(1 for row in result.steps if row["id"] not in {s.id for s in plan.steps})
    assert f"; {len(plan.steps)} steps, and {checks} check search" in report
