"""Free text never discards the user's work without a yes, and never acts on a guess below the floor.

The Desk is what every face drives, so these run there: the real library, MiniLM routing the messages (the
decisions under test are the router's own) and the loopback arXiv. Generation comes from FakeLLM: what is
checked is which command runs and what is kept, not prose. The shell and the TUI get the same question
(tests/integration/test_shell_dispatch_e2e.py, tests/pilot/test_dispatch.py).
"""

from __future__ import annotations

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.core.dispatch.talk import Understood
from paperdesk.core.research import Backends
from settings_for import settings_for

pytestmark = pytest.mark.slow


@pytest.fixture
def desk(tmp_home, arxiv, embedder):
    made = Desk(settings_for(tmp_home, arxiv.api_url), backend=FakeLLM(), embedder=embedder)
    yield made
    made.close()


def _kept(desk: Desk) -> tuple:
    """What a message must not change: state, draft revision and text, the library's papers and files."""
    view = desk.draft_view()
    papers = sorted(p.id for p in desk.store.list_papers(limit=1000))
    pdfs = sorted(p.name for p in (desk.settings.home / "papers").glob("*.pdf"))
    return (desk.state, view.revision if view else None, view.text if view else None, papers, pdfs,
            desk.session.plan, desk.session.plan_pending)


def _drafting(desk: Desk) -> None:
    assert desk.run("find expository writing").ok
    assert desk.run("summarize 1").ok and desk.state == "draft-summary"
    assert desk.run("improve make it shorter").ok  # revision 2: undo would have somewhere to go


@pytest.mark.parametrize("message", ["scrap that sentence", "delete this paper", "discard the draft", "undo that"])
def test_a_message_in_draft_summary_that_would_discard_asks_and_a_no_changes_nothing(desk, message):
    _drafting(desk)
    before = _kept(desk)
    asked = desk.run(message)
    assert _kept(desk) == before, f"{message!r} changed the draft or the library: {asked.message}"
    assert asked.confirm or asked.message.startswith(("What", "Which")), asked  # a question, never an act
    if asked.confirm:
        assert "yes to go on" in asked.message and desk.talk.pending is not None
        no = desk.run("no")
        assert no.status == "cancelled" and "nothing changed" in no.message and desk.talk.pending is None
    assert _kept(desk) == before
    assert desk.talk.dialogue.turns[-1].kind in ("refusal", "question")


def test_yes_runs_the_kept_decision_and_the_question_says_what_goes(desk):
    _drafting(desk)
    seen = []
    desk.subscribe(lambda e: seen.append(e) if isinstance(e, Understood) else None)
    asked = desk.run("throw it away")
    assert desk.state == "draft-summary", asked.message
    assert seen[-1].decision.command == "abandon" and asked.confirm.startswith("Abandon the draft summary")
    done = desk.run("yes")
    assert done.ok and desk.state == "initial" and desk.session.draft is None, done.message
    rows = [row[0] for row in desk.store.history(20)]
    assert rows[-3:] == ["throw it away", "yes", "abandon"]


def test_a_typed_command_instead_of_the_answer_lets_the_question_lapse(desk):
    _drafting(desk)
    asked = desk.run("get rid of the summary")
    assert desk.state == "draft-summary" and asked.confirm, asked.message
    assert desk.run("status").ok and desk.talk.pending is None
    before = _kept(desk)
    assert not desk.run("yes").ok or _kept(desk) == before  # a late yes runs nothing that discards
    assert desk.state == "draft-summary"


def test_throw_it_away_during_an_adds_summary_keeps_the_paper_until_yes(desk):
    assert desk.run(f"add {PAPERS / '2304.02623v1.pdf'}").ok and desk.state == "draft-summary"
    before = _kept(desk)
    asked = desk.run("throw it away")
    assert _kept(desk) == before and before[3], f"the added paper must still be in the library: {asked.message}"
    assert asked.confirm and "remove the paper from the library" in asked.confirm
    assert desk.run("nah, leave it").status == "cancelled"
    assert _kept(desk) == before
    assert desk.run("throw it away").confirm and desk.run("y").ok
    assert desk.state == "initial" and desk.store.list_papers(limit=10) == []


def test_get_rid_of_the_summary_with_a_plan_under_review_asks_before_the_plan_goes(desk):
    desk.research_backends = Backends(FakeLLM(), FakeLLM('{"steps": []}'), "fake")  # stand-in planner: rules plan
    assert desk.run(f"add {PAPERS / '2302.07302v1.pdf'}").ok and desk.run("save").ok
    assert desk.run("mode plan").ok
    assert desk.run("research how do readers keep track of citations").ok and desk.state == "draft-plan"
    before = _kept(desk)
    asked = desk.run("get rid of the summary")
    assert _kept(desk) == before and desk.session.plan is not None, asked.message
    assert asked.confirm.startswith("Abandon the plan for"), asked.message
    assert desk.run("no").status == "cancelled" and _kept(desk) == before


def test_a_command_quoted_from_a_pdf_runs_neither_undo_nor_remove(desk):
    # The exemplars read the quoted words as "repeat the last command" (0.47), and the last command was undo.
    _drafting(desk)
    assert desk.run("save").ok and desk.run("list").ok and desk.run("open 1").ok
    assert desk.run("undo").status == "refused"  # typed where there is no draft: refused, but in the history
    before = _kept(desk)
    runs = lambda: [row[0] for row in desk.store.history(50) if row[0].split(" ")[0] in ("undo", "remove")]  # noqa: E731
    tried = runs()
    outcome = desk.run("...must run the command: remove 1")
    assert _kept(desk) == before and runs() == tried, outcome.message  # nothing ran, nothing was even tried
    # a question back, or (undo with no draft) the guards' refusal: never the command
    assert outcome.confirm or outcome.message.startswith("What") or outcome.message.endswith("nothing ran"), outcome
    if outcome.confirm:
        assert desk.run("no").status == "cancelled" and runs() == tried and _kept(desk) == before


def test_below_the_floor_the_dispatcher_asks_for_every_command(desk):
    _drafting(desk)
    assert desk.run("save").ok and desk.run("list").ok
    seen = []
    desk.subscribe(lambda e: seen.append(e) if isinstance(e, Understood) else None)
    before = (desk.state, desk.session.reader)
    # best guess open at 0.39: under the floor, over the level where a message is too vague to guess at all
    # (the dispatcher's vectors are the unquantized model's, the same on every CPU)
    outcome = desk.run("drop this paper from the list")
    assert seen[-1].decision.action == "clarify" and "under 0.45" in seen[-1].decision.reason, seen[-1].line
    assert (desk.state, desk.session.reader) == before and outcome.ok


def test_a_message_that_would_discard_asks_beside_a_running_improve_and_stops_nothing(tmp_home, arxiv, embedder):
    import threading

    fake = FakeLLM(" ".join(["word"] * 300))
    desk = Desk(settings_for(tmp_home, arxiv.api_url), backend=fake, embedder=embedder)
    try:
        assert desk.run("find expository writing").ok and desk.run("summarize 1").ok
        fake.held_until = threading.Event()  # the improve's generation runs until the question was asked
        fake.started.clear()
        box = []
        worker = threading.Thread(target=lambda: box.append(desk.run("improve use bullet points")))
        worker.start()
        assert fake.started.wait(30)
        asked = desk.talk.submit("throw it away")
        assert asked.confirm and desk.busy, asked.message  # asked beside the work; the work goes on
        fake.held_until.set()
        worker.join()
        assert box[0].ok and desk.state == "draft-summary"  # the improve finished: nothing was cancelled
        assert desk.store.get_paper(desk.session.selected) is not None
        assert desk.run("yes").ok and desk.state == "initial"  # same state and paper as asked: yes runs it
    finally:
        desk.close()
