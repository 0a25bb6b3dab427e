"""Researcher orchestration: revise proposals and diffs, the check's one reformulated retry, synthesis.

Tools are stand-ins that record calls (control flow only); the tracker is real SQLite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paperdesk.core.config import load_settings
from paperdesk.core.research import Backends, Researcher, Tracker
from paperdesk.core.research.plan import PlanError
from paperdesk.core.research.rules import rule_plan
from paperdesk.core.research.synthesizer import Section, synthesize


@pytest.fixture
def settings(tmp_path: Path):
    return load_settings(environ={}, path=tmp_path / "absent.toml")


class Tools:
    def __init__(self, supported_after: int = 0) -> None:
        self.calls: list[tuple[str, dict]] = []
        self.supported_after = supported_after  # answers before this many calls are unsupported

    def table(self):
        def search(ctx, params, inputs):
            self.calls.append(("library_search", params))
            return {"passages": [{"paper_id": "p1", "title": "CiteSee", "page": 3, "chunk_id": 7, "text": "t"}]}

        def answer(ctx, params, inputs):
            self.calls.append(("answer", params))
            n = sum(c[0] == "answer" for c in self.calls)
            ok = n > self.supported_after
            cites = [{"n": 1, "paper_id": "p1", "title": "CiteSee", "page": 3, "chunk_id": 7, "quote": "q"}]
            return {"question": params["question"], "text": "Readers see it [1]." if ok else "Unclear.",
                    "citations": cites if ok else [], "sources": [], "supported": ok}

        return {"library_search": search, "answer": answer}


def make(tmp_path, settings, tools=None) -> Researcher:
    tracker = Tracker(tmp_path / "library.sqlite")
    return Researcher(None, Backends(None), tracker, settings=settings, tools=tools)  # type: ignore[arg-type]


def test_revise_proposes_and_leaves_the_plan_alone(tmp_path, settings):
    r = make(tmp_path, settings)
    plan = rule_plan("Is there new work on arXiv about citation recommendation?")
    before = plan.to_json()
    new, diff = r.revise(plan, "without arxiv please")
    assert [s.id for s in diff.removed] == [2] and plan.to_json() == before
    new2, diff2 = r.revise(plan, "also which datasets are used?")
    assert [s.tool for s in diff2.added] == ["library_search", "extract_list", "answer"]
    assert [s.id for s in diff2.added] == [4, 5, 6] and new2.made_by.endswith("+revised")
    assert new2.steps[-1].parameters["inputs"] == ["passages_4"]
    _, diff3 = r.revise(plan, "step edit 1 query=citation recommenders")
    assert diff3.changed[0][0] == 1
    with pytest.raises(PlanError, match="unknown tool"):
        r.revise(plan, "step add grep x")


def test_unsupported_sub_question_gets_one_reformulated_retry(tmp_path, settings):
    tools = Tools(supported_after=1)
    r = make(tmp_path, settings, tools.table())
    result = r.run(rule_plan("How does CiteSee show citations?"))
    searches = [c[1]["query"] for c in tools.calls if c[0] == "library_search"]
    assert searches == ["CiteSee citations", "CiteSee show citations"]  # the plan's search, then the reformulated one
    assert result.unanswered == [] and "answered after searching again" in result.report
    assert result.citations[0]["chunk_id"] == 7 and "[1]" in result.report


def test_still_unsupported_is_listed_not_invented(tmp_path, settings):
    tools = Tools(supported_after=99)
    r = make(tmp_path, settings, tools.table())
    result = r.run(rule_plan("How does CiteSee show citations?"))
    assert result.unanswered == ["How does CiteSee show citations?"]
    assert "## Not answered" in result.report and "## Sources" not in result.report
    assert sum(c[0] == "answer" for c in tools.calls) == 2  # the answer, and one retry only


def test_synthesis_renumbers_citations_across_sections():
    plan = rule_plan("Which datasets are used and how is accuracy measured?")
    a = {"question": "A?", "text": "One [1]. Two [2]. Bogus [5].", "citations": [
        {"n": 1, "paper_id": "p", "page": 1, "chunk_id": 10}, {"n": 2, "paper_id": "p", "page": 2, "chunk_id": 11}]}
    b = {"question": "B?", "text": "Three [1].", "citations": [{"n": 1, "paper_id": "q", "page": 4, "chunk_id": 11}]}
    pieces: list[str] = []
    report = synthesize(plan, [Section("A?", a), Section("B?", b)], [], [], {"steps_s": 1.0}, pieces.append)
    assert "One [1]. Two [2]. Bogus." in report.text and "Three [2]." in report.text
    assert [c["chunk_id"] for c in report.citations] == [10, 11]
    assert "".join(pieces).rstrip() == report.text.rstrip() and len(pieces) > 3
    assert "Plan made by rules; 5 steps." in report.text


def test_extracted_names_are_listed_with_their_passage_cited():
    plan = rule_plan("Which datasets do the papers release?")
    found = {"kind": "dataset", "items": [
        {"item": "Multi-LexSum", "passage": {"paper_id": "p", "page": 3, "chunk_id": 10}},
        {"item": "CLERC", "passage": {"paper_id": "q", "page": 5, "chunk_id": 12}}]}
    a = {"question": "Which datasets do the papers release?", "text": "They release one [1].",
         "citations": [{"n": 1, "paper_id": "p", "page": 3, "chunk_id": 10}]}
    report = synthesize(plan, [Section(a["question"], a)], [], [], {}, lists=[found])
    assert "## Dataset names in the passages" in report.text
    assert "- Multi-LexSum [1]" in report.text and "- CLERC [2]" in report.text
    assert [c["chunk_id"] for c in report.citations] == [10, 12]
    assert "## Which datasets" not in report.text  # one section that is the question itself gets no heading


def test_arxiv_results_are_listed_as_new_work_not_cited():
    plan = rule_plan("Is there new work on arXiv about citation recommendation?")
    online = {"papers": [{"arxiv_id": "2401.00001v1", "title": "Citation Recs", "year": 2024, "url": "u"}]}
    report = synthesize(plan, [], ["Q?"], [], {}, lists=[online])
    assert "## New on arXiv (not in your library)\n\n- Citation Recs (arXiv 2401.00001v1, 2024)" in report.text
    assert report.citations == []
