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
    assert section is not None and section.note == NOTE and section.question == QUESTION
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
