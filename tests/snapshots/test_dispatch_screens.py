"""Snapshots of free text in the workbench: the "understood as" line above the command line.

A delegated command shown before it runs, a clarifying question and its reply, a refusal explained, and a
message that interrupts a running generation. MiniLM (shared, loaded once) routes the messages. No model
writes here: the interruption uses FakeLLM, because what is pictured is orchestration (what was cancelled,
kept and run next), and its text must be the same on every run.
Regenerate only after looking at the diff: pytest tests/snapshots/test_dispatch_screens.py --snapshot-update.
"""


import pytest

from fake_llm import FakeLLM
from paperdesk.core.desk.desk import Desk
from paperdesk.core.commands.session import DraftRef, Session
from paperdesk.tui.app import PaperDeskApp
from tui_helpers import settle, typed, snapshot_settings as settings_for, SUMMARY

pytestmark = pytest.mark.slow
SIZE = (120, 36)
TALL = (120, 46)


@pytest.fixture(scope="module")
def library_home(library_of):
    return library_of("2304.02623v1", "2302.07302v1", added=(1_700_000_012.0, 1_700_000_012.0))


@pytest.fixture
def make_app(tmp_path, arxiv, embedder):
    desks = []

    def make(home=None, backend=None, prepare=None):
        home = home or tmp_path / "empty"
        if prepare is not None:  # stored before the app's Desk opens, so it resumes there
            before = Desk(settings_for(home, arxiv.api_url), embedder=embedder)
            prepare(before)
            before.close()
        desk = Desk(settings_for(home, arxiv.api_url), embedder=embedder, backend=backend)
        desks.append(desk)
        return PaperDeskApp(desk.settings, desk=desk, warm_up=False, cursor_blink=False,
                            live_status=False)

    yield make
    for desk in desks:
        desk.close()


def test_a_delegated_command_is_shown_before_it_runs(snap_compare, make_app):
    app = make_app()
    assert snap_compare(app, terminal_size=SIZE, run_before=typed("look for new papers on expository writing"))
    assert app.desk.state == "select-new"


def test_a_clarifying_question(snap_compare, make_app, home):
    app = make_app(home)
    assert snap_compare(app, terminal_size=SIZE, run_before=typed("list", "open that one"))
    assert app.desk.talk.dialogue.pending_question is not None


def test_the_reply_to_a_clarifying_question(snap_compare, make_app, home):
    app = make_app(home)
    assert snap_compare(app, terminal_size=SIZE, run_before=typed("list", "open that one", "the second"))
    assert app.desk.session.reader is not None and app.desk.talk.dialogue.turns[2].kind == "reply"


def test_a_refusal_is_explained(snap_compare, make_app):
    app = make_app()
    assert snap_compare(app, terminal_size=SIZE, run_before=typed("ask summarize 1"))
    assert app.desk.state == "initial"


def test_a_message_interrupts_a_running_generation(snap_compare, make_app, home):
    # the first generation holds after its first word until the message interrupts it
    fake = FakeLLM("the authors sketch three components of AI support for expository writing", delay=0.02,
                   hold_first_after=1)

    def prepare(desk):
        desk.store.add_revision("2304.02623v1", SUMMARY, "draft")
        desk.drafts.save_session(Session(selected="2304.02623v1", draft=DraftRef("summary", paper_id="2304.02623v1"))
                                 .to_json("draft-summary"))

    app = make_app(home, backend=fake, prepare=prepare)

    async def interrupt(pilot):
        await settle(pilot)
        await pilot.press(*"improve make it longer", "enter")
        await settle(pilot, until=lambda: fake.started.is_set())
        await pilot.press(*"focus on the evaluation", "enter")
        await settle(pilot, until=lambda: len(pilot.app.desk.store.revisions("2304.02623v1")) == 3
                     and not pilot.app.busy)
        await settle(pilot)
        await pilot.pause(0.4)  # the stored revision's Markdown mounts its blocks over a few frames

    # tall enough that the whole revision fits: the draft's scrollbar is drawn from frames that race the last
    # stream flush, and the picture is about what was cancelled, kept and run next
    assert snap_compare(app, terminal_size=TALL, run_before=interrupt)
    statuses = [r.status for r in app.desk.store.revisions("2304.02623v1")]
    assert statuses[1] == "interrupted" and len(statuses) == 3
    ran = [row[0] for row in app.desk.store.history(20)]
    assert "improve focus on the evaluation" in ran and "focus on the evaluation" in ran
