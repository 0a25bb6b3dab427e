"""snapshots of the Plan pane: plan streaming, diff pending, run in progress, finished report.

Built from stored data (a plan in the session, a run in the tracker with fixed timings) and Desk
events posted to the app as a run would post them, so no model runs and every screen is stable.
Regenerate only after looking at the diff: pytest tests/snapshots/test_plan_screens.py --snapshot-update.
"""


import pytest

from paperdesk.core.desk.desk import Desk
from paperdesk.core.handlers import plans
from paperdesk.core.research import Tracker
from paperdesk.core.research.plan import COMPLETED, IN_PROGRESS, Plan, Step
from paperdesk.core.research.tracker import WHOLE
from paperdesk.core.commands.session import DraftRef, ResultItem, Session
from paperdesk.core.commands.views import PlanUpdated
from tui_helpers import settle, snapshot_app as app_for, snapshot_settings as settings_for

pytestmark = pytest.mark.slow
SIZE = (120, 36)
QUESTION = "How does CiteSee help readers keep track of citations?"
REPORT = """# How does CiteSee help readers keep track of citations?

## How does CiteSee help readers keep track of citations?

CiteSee highlights citations a reader has already saved or opened [1], and shows how often a cited paper was
seen before [2].

## Sources

[1] CiteSee: Augmenting Citations in Scientific Papers ... (2302.07302v1), p. 1, chunk 1
[2] CiteSee: Augmenting Citations in Scientific Papers ... (2302.07302v1), p. 4, chunk 9

## How this was researched

Plan made by rules; 3 steps.
- 1 library_search(query=CiteSee citations readers) -> passages_1: COMPLETED, 0.4 s
- 2 read_paper(paper={item}, query=citation history) -> per_paper_2 for each of passages_1: COMPLETED, 1.2 s
- 3 answer(question=How does CiteSee help readers?, inputs=["passages_1", "per_paper_2"]) -> answer_3: COMPLETED, 6.3 s
"""


def the_plan() -> Plan:
    return Plan(QUESTION, [
        Step(1, "Search the library for CiteSee citations readers", "library_search",
             {"query": "CiteSee citations readers"}, "passages_1"),
        Step(2, "Read each paper found about citation history", "read_paper",
             {"paper": "{item}", "query": "citation history"}, "per_paper_2", iterate_over="passages_1"),
        Step(3, "Answer, citing the passages", "answer",
             {"question": "How does CiteSee help readers?", "inputs": ["passages_1", "per_paper_2"]}, "answer_3"),
    ], made_by="rules")


@pytest.fixture(scope="module")
def library_home(library_of):
    return library_of("2302.07302v1", added=(1_700_000_000.0,))


def store(home, api_url, embedder, state, session, prepare=None):
    desk = Desk(settings_for(home, api_url), embedder=embedder)
    if prepare is not None:
        prepare(desk, session)
    desk.drafts.save_session(session.to_json(state))
    desk.close()


def post(view_for, message=""):
    """run_before: settle, then post a PlanUpdated built from the app's desk as a run would."""
    async def run(pilot):
        await settle(pilot)
        app = pilot.app
        app.router.event(PlanUpdated(view_for(app.desk), message))
        await pilot.pause(0.3)
    return run


def test_plan_streaming(snap_compare, home, arxiv):
    def view(desk):
        return plans.plan_view(desk, the_plan(), streaming=True, upto=2)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE,
                        run_before=post(view, "planning: step 2 of 3"))


def test_diff_pending(snap_compare, home, arxiv, embedder):
    plan = the_plan()
    pending = plan.copy()
    pending.steps = [s for s in pending.steps if s.id != 2]
    pending.steps[-1].parameters["inputs"] = ["passages_1"]
    pending.steps.append(Step(4, "list the dataset names", "extract_list", {"source": "passages_1", "kind": "dataset"},
                              "names_4"))
    session = Session(mode="plan", plan=plan.to_json(), plan_pending=pending.to_json(), plan_created=1.0)
    store(home, arxiv.api_url, embedder, "draft-plan", session)

    async def run(pilot):
        await settle(pilot)
        await pilot.press("f7")
        await pilot.pause(0.3)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=run)


def test_run_in_progress(snap_compare, home, arxiv, embedder):
    store(home, arxiv.api_url, embedder, "draft-plan",
          Session(mode="plan", plan=the_plan().to_json(), plan_created=1.0))

    def view(desk):
        statuses = {1: (COMPLETED, 0.4, ""), 2: (IN_PROGRESS, None, "")}
        return plans.plan_view(desk, the_plan(), statuses=statuses)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE,
                        run_before=post(view, "step 2/3 read_paper: running"))


def test_finished_report_with_its_steps(snap_compare, home, arxiv, embedder):
    def prepare(desk, session):
        plan = the_plan()
        tracker = Tracker.for_library(desk.library)
        run_id = tracker.new_run(plan)
        for step_id, seconds in ((1, 0.4), (2, 1.2), (3, 6.3)):
            tracker.ensure_task(run_id, step_id, WHOLE, None, f"k{step_id}")
            tracker.complete(run_id, step_id, WHOLE, {"ok": True}, seconds)
        tracker.finish_run(run_id, COMPLETED, REPORT, {"total_s": 7.9})
        tracker.close()
        draft_id = desk.drafts.new_draft("report", QUESTION)
        sources = [{"n": 1, "paper_id": "2302.07302v1", "title": "CiteSee", "page": 1, "chunk_id": 1, "cited": True},
                   {"n": 2, "paper_id": "2302.07302v1", "title": "CiteSee", "page": 4, "chunk_id": 9, "cited": True}]
        desk.drafts.add_draft_revision(draft_id, REPORT, sources)
        paper = desk.store.papers_by_ids(["2302.07302v1"])["2302.07302v1"]
        session.results = [ResultItem.from_paper(paper, "pp. 1, 4")]
        session.results_kind, session.results_query = "research", QUESTION
        session.draft = DraftRef("report", draft_id=draft_id, query=QUESTION)
        session.plan, session.plan_run = plan.to_json(), run_id

    store(home, arxiv.api_url, embedder, "draft-research", Session(mode="agent", plan_created=1.0), prepare)

    async def run(pilot):
        await settle(pilot)
        await pilot.press("f7")
        await pilot.pause(0.3)

    assert snap_compare(app_for(home, arxiv.api_url), terminal_size=SIZE, run_before=run)
