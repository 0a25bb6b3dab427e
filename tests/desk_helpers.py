"""Helpers for tests that drive a Desk: Desks made over one data dir and closed together, a command run
in the background, a wait for a condition, a summary held running by a slow stand-in model."""

from __future__ import annotations

import threading
import time
from pathlib import Path


class DeskMaker:
    """make(backend=None, **env) -> a Desk over `home`; FakeLLM writes unless `backend` is given (tests of
    orchestration). With `rule_plans`, research plans come from the rule planner, not a planner model.
    close_all() closes every Desk made (a second close does nothing)."""

    def __init__(self, home: Path, embedder, api_url: str = "", rule_plans: bool = False) -> None:
        self.home, self.embedder, self.api_url, self.rule_plans = home, embedder, api_url, rule_plans
        self.made: list = []

    def __call__(self, backend=None, **env):
        from fake_llm import FakeLLM
        from paperdesk.core.desk.desk import Desk
        from paperdesk.core.research import Backends
        from settings_for import settings_for

        desk = Desk(settings_for(self.home, self.api_url, **env), backend=backend or FakeLLM(),
                    embedder=self.embedder)
        if self.rule_plans:
            desk.research_backends = Backends(desk.backend, None)
        self.made.append(desk)
        return desk

    def close_all(self) -> None:
        for desk in self.made:
            desk.close()


def run_in_background(desk, line: str) -> tuple[threading.Thread, list]:
    """Start `desk.run(line)` on its own thread; returns the thread and a list that gets the outcome."""
    box: list = []
    worker = threading.Thread(target=lambda: box.append(desk.run(line)))
    worker.start()
    return worker, box


def start_summary(desk, llm, timeout: float = 60) -> tuple[threading.Thread, list]:
    """Find papers, then run `summarize 1` in the background until the stand-in `llm` streams."""
    desk.run("find expository writing")
    worker, box = run_in_background(desk, "summarize 1")
    assert llm.started.wait(timeout)
    return worker, box


def wait_until(predicate, seconds: float = 30.0, step: float = 0.005) -> bool:
    """Poll `predicate` until it holds (True) or `seconds` pass (False)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return False


def expect(desk, line: str, status: str, *phrases: str):
    """Run `line` at `desk`; assert the outcome's status is `status` and its message has every phrase."""
    outcome = desk.run(line)
    assert outcome.status == status and all(p in outcome.message for p in phrases), (outcome.status, outcome.message)
    return outcome


def listed_library(make_desk, library, pdf: Path):
    """`pdf` added to the library, then a Desk that has run `list`; returns the Desk and the paper's id."""
    paper_id = library.add_pdf(pdf).paper.id
    desk = make_desk()
    assert desk.run("list").ok
    return desk, paper_id


def cited_source(n: int, paper_id: str, title: str, chunk, quote: str) -> dict:
    """Source [n] of an answer: `quote` from `chunk` of the paper, cited in the text."""
    return {"n": n, "paper_id": paper_id, "title": title, "page": chunk.page_start, "chunk_id": chunk.id,
            "quote": quote, "cited": True}


def save_answer(desk, paper_id: str, query: str, text: str, sources: list[dict], where: str) -> None:
    """Write into the store what sem-search leaves: an answer draft (`text` citing `sources`) to `query`, the
    paper as the one result (found at `where`, e.g. "p. 4"), saved as the session."""
    from paperdesk.core.commands.session import DraftRef, ResultItem, Session

    draft_id = desk.drafts.new_draft("answer", query)
    desk.drafts.add_draft_revision(draft_id, text, sources)
    session = Session(results=[ResultItem.from_paper(desk.store.get_paper(paper_id), where)],
                      results_kind="sem-search", results_query=query,
                      draft=DraftRef("answer", draft_id=draft_id, query=query))
    desk.drafts.save_session(session.to_json("draft-sem-search"))
