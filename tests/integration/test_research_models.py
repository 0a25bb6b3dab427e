"""Research with the real models: SmolLM2 plans, Gemma writes, the real library retrieves.

Kept short: one planning call, one 2-step run over one paper with small token limits.
"""

from __future__ import annotations

import re

import pytest

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import CancelledError
from paperdesk.core.research import Backends, Researcher, Tracker
from paperdesk.core.research.plan import COMPLETED, validate
from paperdesk.core.research.rules import rule_plan

pytestmark = pytest.mark.slow


def test_planner_model_gives_a_valid_plan_that_says_who_made_it(planner_backend):
    from paperdesk.core.research.planner import Planner

    plan = Planner(planner_backend, "smollm2").plan("How does CiteSee help readers keep track of citations?")
    validate(plan)
    assert plan.made_by in ("model:smollm2", "rules")
    assert plan.steps[-1].tool == "answer"
    if plan.made_by == "rules":  # the fallback must say why the model's plan was refused
        assert any("model plan rejected" in n for n in plan.notes)


@pytest.fixture
def researcher(library, citesee_pdf, local_backend, tmp_home):
    library.add_pdf(citesee_pdf)
    # a generous step timeout: the test is about behaviour, and a loaded machine must not turn it into timeouts
    settings = library.settings.with_overrides(research__step_tokens=32, research__max_tokens=32,
                                               research__step_timeout=600)
    tracker = Tracker.for_library(library)
    yield Researcher(library, Backends(local_backend, None), tracker, settings=settings)
    tracker.close()


def test_a_run_writes_a_cited_report_with_how_it_was_researched(researcher, library):
    plan = rule_plan("How does CiteSee show citations readers have already seen?")
    tokens: list[str] = []
    result = researcher.run(plan, on_event=lambda e: tokens.append(e.text) if e.kind == "token" else None)
    assert "".join(tokens).strip() == result.report.strip()  # the report streamed as it was written
    assert "## How this was researched" in result.report and "library_search" in result.report
    assert [s["status"] for s in result.steps[:2]] == [COMPLETED, COMPLETED]  # a check retry may follow
    for c in result.citations:  # every [n] maps to a real chunk of the paper, on its page
        chunk = library.store.chunks_by_ids([c["chunk_id"]])[c["chunk_id"]]
        assert chunk.paper_id == c["paper_id"] and chunk.page_start == c["page"]
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", result.report.split("## Sources")[0])}
    assert cited <= {c["n"] for c in result.citations}
    assert result.to_json()["steps"][0]["tool"] == "library_search"


def test_cancel_mid_run_then_resume_finishes_without_redoing_the_search(researcher):
    plan = rule_plan("How does CiteSee show citations readers have already seen?")
    cancel = CancelToken()

    def on_event(event):
        if event.kind == "step_start" and event.step_id == 2:
            cancel.cancel()  # lands inside the answer step

    with pytest.raises(CancelledError):
        researcher.run(plan, on_event, cancel)
    run_id = researcher.tracker.unfinished()[0].id
    result = researcher.resume(run_id)
    attempts = {s["id"]: s["attempts"] for s in result.steps}
    assert attempts[1] == 1 and attempts[2] == 2  # the search was not run again
    assert result.calls == 1 + 2 * (len(attempts) - 2)  # the answer, plus any check retry (search + answer)
    assert result.run_id == run_id and "## How this was researched" in result.report


def test_tools_return_structured_results(library, citesee_pdf, arxiv):
    from paperdesk.core.errors import NetworkError
    from paperdesk.core.research import tools as t

    paper = library.add_pdf(citesee_pdf).paper
    settings = library.settings.with_overrides(arxiv__api_url=arxiv.api_url, arxiv__delay_seconds=0)
    ctx = t.ToolContext(library, None, settings)
    found = t.library_search(ctx, {"query": "citations readers have already seen"}, {})
    first = found["passages"][0]
    assert first["paper_id"] == paper.id and {"page", "chunk_id", "text", "score"} <= set(first)
    own = t.read_paper(ctx, {"paper": paper.id, "query": "user study"}, {})
    assert own["passages"] and all(p["paper_id"] == paper.id for p in own["passages"])
    summary = t.paper_summary(ctx, {"paper": paper.id}, {})
    assert summary["summary"] is None and summary["title"].startswith("CiteSee")
    names = t.extract_list(ctx, {"source": "found", "kind": "method"}, {"found": found})
    for item in names["items"]:  # every name comes with the passage it was found in
        assert item["passage"]["chunk_id"] in {p["chunk_id"] for p in found["passages"]}
    online = t.arxiv_search(ctx, {"query": "citations", "max": 2}, {})
    assert online["papers"] and {"arxiv_id", "title", "url"} <= set(online["papers"][0])
    assert library.store.count_papers() == 1  # arXiv results are not added
    offline = t.ToolContext(library, None, settings.with_overrides(offline=True))
    with pytest.raises(NetworkError, match="offline"):
        t.arxiv_search(offline, {"query": "citations"}, {})
