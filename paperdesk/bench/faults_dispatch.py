"""Fault class "destructive free text": messages that read as abandon / undo / remove, in each face.

Every trial puts a scratch library in a state with work to lose (a summary draft of a paper that `add` put
there, with two revisions; a plan under review; a list after a typed undo or remove), sends one free-text
message through a face (the Desk API, the shell reading a script, the TUI's command line) and answers no.
Clean: nothing was discarded (state, draft revision and text, plan, papers, PDFs) and the face asked
(a yes/no question, or a clarifying one) or refused (undo with no draft: the guards say why). "lost" counts papers gone. On the Desk, a second try answers yes,
and that must run the command through the guards (a question nobody can say yes to would be a dead end).
"""

from __future__ import annotations

import asyncio
import io
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from paperdesk.bench.faults_kill import Tally
from paperdesk.core.config import Settings

# (setup, message): the messages seen discarding work, and their neighbours
TRIALS: list[tuple[str, str]] = [
    ("summary", "scrap that sentence"), ("summary", "delete this paper"), ("summary", "throw it away"),
    ("summary", "get rid of the summary"), ("summary", "discard the draft"), ("summary", "undo that"),
    ("summary", "go back to the previous version"), ("summary", "never mind, discard this one"),
    ("plan", "get rid of the summary"), ("plan", "throw it away"), ("plan", "scrap the plan"),
    ("after-undo", "...must run the command: remove 1"), ("after-undo", "do it again"),
    ("after-remove", "do it again"), ("after-remove", "delete this paper"),
]
TUI_TRIALS = [("summary", "throw it away"), ("summary", "scrap that sentence"), ("plan", "get rid of the summary"),
              ("after-remove", "do it again")]


def _setup(settings: Settings, embedder: Any, pdf: Path, kind: str) -> None:
    """Put the stored session (and the library) in the trial's state; the Desk opened next resumes it."""
    from paperdesk.core.db.desk_store import DeskStore
    from paperdesk.core.library.library import Library
    from paperdesk.core.research.rules import rule_plan
    from paperdesk.core.commands.session import DraftRef, Session, ResultItem

    lib = Library(settings, embedder=embedder)
    try:
        papers = lib.store.list_papers(limit=10)
        pid = papers[0].id if papers else lib.add_pdf(pdf).paper.id
        if kind == "summary":  # what add leaves: the paper it added, its draft summary (two revisions)
            for n in (1, 2):
                lib.store.add_revision(pid, f"# summary\n\n## Problem\nDraft {n}.", "draft")
            session, state = Session(selected=pid, draft=DraftRef("summary", paper_id=pid, added_paper=True)), \
                "draft-summary"
        elif kind == "plan":
            session = Session(mode="plan", plan=rule_plan("how do readers keep track of citations").to_json(),
                              plan_created=time.time())
            state = "draft-plan"
        else:  # a list of the library after a typed undo (refused) or remove
            paper = lib.store.get_paper(pid)
            session = Session(results=[ResultItem(pid, paper.title if paper else pid, in_library=True)],
                              results_kind="list")
            state = "select-view"
            lib.store.add_history("remove 1" if kind == "after-remove" else "undo", state, "ok")
        DeskStore(lib.store).save_session(session.to_json(state))
    finally:
        lib.close()


@contextmanager
def _trial_desk(settings: Settings, embedder: Any, pdf: Path, kind: str) -> Iterator[Any]:
    """A Desk opened on the data dir put in the trial's state; closed after the trial."""
    from paperdesk.core.desk.desk import Desk

    _setup(settings, embedder, pdf, kind)
    desk = Desk(settings, embedder=embedder)
    try:
        yield desk
    finally:
        desk.close()


def _kept(desk: Any) -> tuple:
    view = desk.draft_view()
    papers = sorted(p.id for p in desk.store.list_papers(limit=1000))
    pdfs = sorted(p.name for p in (desk.settings.home / "papers").glob("*.pdf"))
    return (desk.state, view.revision if view else None, view.text if view else None, papers, pdfs,
            desk.session.plan, desk.session.plan_pending)


def _problems(before: tuple, after: tuple, asked: bool, what: str) -> tuple[list[str], int]:
    problems = [] if asked else [f"{what}: no question was asked"]
    if after != before:
        problems.append(f"{what}: changed {before[0]} r{before[1]} -> {after[0]} r{after[1]}")
    return problems, len(set(before[3]) - set(after[3]))


def desk_trials(settings: Settings, embedder: Any, pdf: Path, tally: Tally) -> None:
    """The Desk API (what every face drives): message, then no; then, from the same state again, yes."""
    for kind, message in TRIALS:
        with _trial_desk(settings, embedder, pdf, kind) as desk:
            before = _kept(desk)
            first = desk.run(message)
            asked = bool(first.confirm) or first.message.startswith(("What", "Which", "Do what")) \
                or first.message.endswith("nothing ran")  # the guards refused it: nothing to ask about
            no = desk.run("no") if first.confirm else first
            problems, lost = _problems(before, _kept(desk), asked and no.status != "error", f"{kind}/{message!r}")
        if first.confirm and not problems:
            problems += _yes_runs_it(settings, embedder, pdf, kind, message)
        tally.record(problems, lost)


def _yes_runs_it(settings: Settings, embedder: Any, pdf: Path, kind: str, message: str) -> list[str]:
    """A yes runs the decision that was asked about, through the guards like a typed command."""
    with _trial_desk(settings, embedder, pdf, kind) as desk:
        desk.run(message)
        pending = desk.talk.pending.decision.command if desk.talk.pending else ""
        yes = desk.run("yes")
        rows = desk.store.history(1)
        if not pending or yes.status == "cancelled" or not rows or rows[-1][0] != pending:
            return [f"{kind}/{message!r}: yes did not run {pending or 'anything'} ({yes.message})"]
        return []


def shell_trials(settings: Settings, embedder: Any, pdf: Path, tally: Tally) -> None:
    """`paperdesk shell < script`: the message, then `no` on the next line."""
    from paperdesk.shell import run_shell

    for kind, message in TRIALS:
        with _trial_desk(settings, embedder, pdf, kind) as desk:
            before = _kept(desk)
            out, err = io.StringIO(), io.StringIO()
            run_shell(settings, stdin=io.StringIO(f"{message}\nno\n"), out=out, err=err, desk=desk)
            text = out.getvalue()
            asked = "Say yes to go on" in text or "\n? " in f"\n{text}" or "nothing ran" in err.getvalue()
            tally.record(*_problems(before, _kept(desk), asked, f"{kind}/{message!r}"))


def tui_trials(settings: Settings, embedder: Any, pdf: Path, tally: Tally) -> None:
    """The TUI's command line: type the message, Enter; the y/n dialog gets n."""
    from paperdesk.tui.app import PaperDeskApp
    from paperdesk.tui.screens.confirm import ConfirmScreen

    async def drive(app: Any, message: str) -> tuple[tuple, tuple, bool]:
        async with app.run_test(size=(120, 36)) as pilot:
            await _until(pilot, lambda: app.desk is not None and not app.busy)
            before = _kept(app.desk)
            await pilot.press(*message, "enter")
            questioned = lambda: "?" in str(app.main.query_one("#understood").render())  # noqa: E731
            await _until(pilot, lambda: isinstance(app.screen, ConfirmScreen) or _kept(app.desk) != before
                         or (not app.busy and questioned()))
            asked = isinstance(app.screen, ConfirmScreen) or questioned()
            if isinstance(app.screen, ConfirmScreen):
                await pilot.press("n")
            await _until(pilot, lambda: not isinstance(app.screen, ConfirmScreen) and not app.busy)
            return before, _kept(app.desk), asked

    for kind, message in TUI_TRIALS:
        with _trial_desk(settings, embedder, pdf, kind) as desk:
            try:
                before, after, asked = asyncio.run(drive(PaperDeskApp(settings, desk=desk, warm_up=False), message))
                tally.record(*_problems(before, after, asked, f"{kind}/{message!r}"))
            except Exception as exc:  # noqa: BLE001 - a trial that breaks is a problem to report, not a crash
                tally.record([f"{kind}/{message!r}: {type(exc).__name__}: {exc}"])


async def _until(pilot: Any, done: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    await pilot.pause(0.2)
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError("the app did not settle")
        await pilot.pause(0.05)
    await pilot.pause(0.1)


def run_all(home_settings: Callable[[str], Settings], embedder: Any, pdf: Path) -> list[Tally]:
    tallies = []
    for face, trials in (("Desk", desk_trials), ("shell", shell_trials), ("TUI", tui_trials)):
        tally = Tally(f"destructive free text ({face})")
        trials(home_settings(f"dispatch-{face.lower()}"), embedder, pdf, tally)
        tallies.append(tally)
    return tallies
