"""A shell session in free text only, with the real models: the default GGUF writes, MiniLM routes.

The shell runs in-process over a Desk that shares the session's loaded models (tests/conftest.py), with
tiny outputs, so the whole session stays short. Every line is a message, never a command; each decision
is printed before it runs (`-> find expository writing (delegate, 0.92)`).
"""

import io
import re

import pytest

from paperdesk.core.desk.desk import Desk
from paperdesk.shell import run_shell
from settings_for import SHORT_OUTPUTS, settings_for

pytestmark = pytest.mark.slow

SCRIPT = [
    "look for new papers on expository writing",
    "summarize the first one",
    "add a note that figure 2 is reusable",
    "please save the summary",
    "what do writers need from AI support?",
    "compare how the studies evaluate writing support across papers",
    "hmm, that one",
    "read it at page 2",
]


def test_a_free_text_session_finds_summarizes_notes_saves_asks_researches_and_clarifies(
        tmp_home, arxiv, embedder, local_backend):
    # two passages per answer and short research sub-answers: the routing is under test, not the prose
    settings = settings_for(tmp_home, arxiv.api_url, **SHORT_OUTPUTS, PAPERDESK_RESEARCH_MAX_TOKENS="24",
                            PAPERDESK_RESEARCH_STEP_TOKENS="24", PAPERDESK_ANSWER_K="2")
    desk = Desk(settings, backend=local_backend, embedder=embedder)
    out, err = io.StringIO(), io.StringIO()
    try:
        code = run_shell(settings, stdin=io.StringIO("\n".join(SCRIPT) + "\n"), out=out, err=err, desk=desk)
        text = out.getvalue()
        print(text)
        assert code == 0, f"{err.getvalue()}\n{text}"
        # a decision line ends in its route and confidence; an answer may itself begin with an arrow it copied
        decisions = re.findall(r"^(?:->|\?) .* \([a-z]+(?:: [a-z]+)?, \d\.\d+\)$", text, re.M)
        assert decisions[0].startswith("-> find expository writing (delegate,")
        assert decisions[1].startswith("-> summarize 1 (delegate,")
        assert decisions[2].startswith("-> notes figure 2 is reusable (delegate,")
        assert decisions[3].startswith("-> save (delegate,")
        assert decisions[4].startswith("-> sem-search ") and "(answer: simple," in decisions[4]
        assert decisions[5].startswith("-> research ") and "(answer: complex," in decisions[5]
        assert decisions[6].startswith("? ") and "(clarify," in decisions[6]  # a question back, whatever it asks
        assert re.match(r"-> open \S+ 2 \(navigate,", decisions[7])
        for expected in ("[find: initial -> select-new]", "[summarize: select-new -> draft-summary]",
                         "[save: draft-summary -> summarized]", "[sem-search: summarized -> draft-sem-search]",
                         "page 2 of"):
            assert expected in text, expected
        assert desk.drafts.notes(desk.store.list_papers()[0].id).strip().endswith("figure 2 is reusable")
        # the save was the act: the dialogue since then is the question, research, the clarify and its reply
        turns = desk.talk.dialogue.turns
        assert turns[0].text == "what do writers need from AI support?"
        assert [t.kind for t in turns if t.role == "user"] == ["message", "message", "message", "reply"]
        assert desk.status().lines()[-1] == "dialogue: 4 messages" and desk.state == "draft-research"
    finally:
        desk.close()


class _Terminal(io.StringIO):
    """A stream that says it is a terminal, so the shell runs interactively (prompts, y/N questions)."""

    def isatty(self) -> bool:
        return True


def test_free_text_that_would_discard_work_asks_y_n_in_the_interactive_shell(tmp_home, arxiv, embedder,
                                                                               local_backend, monkeypatch):
    from conftest import PAPERS

    settings = settings_for(tmp_home, arxiv.api_url, **SHORT_OUTPUTS)
    desk = Desk(settings, backend=local_backend, embedder=embedder)
    lines = [f"add {PAPERS / '2304.02623v1.pdf'}", "scrap that sentence", "throw it away", "status",
             "throw it away"]
    answers = ["n", "", "y"]  # no; Enter (the default is no); yes
    asked, typed = [], []

    def fake_input(prompt: str) -> str:
        if prompt.endswith("[y/N] "):
            asked.append((prompt, desk.state, [p.id for p in desk.store.list_papers(limit=10)]))
            return answers.pop(0)
        if not lines:
            raise EOFError
        typed.append(lines[0])
        return lines.pop(0)

    monkeypatch.setattr("builtins.input", fake_input)
    out, err = _Terminal(), _Terminal()
    try:
        run_shell(settings, stdin=_Terminal(), out=out, err=err, desk=desk)
        text = out.getvalue()
        assert len(asked) == 3, text
        for prompt, state, papers in asked:  # each question came before anything was discarded
            assert prompt.startswith("Abandon the draft summary") and "remove the paper" in prompt, prompt
            assert state == "draft-summary" and papers == ["2304.02623v1"]
        assert text.count("not run: -> abandon") == 2, text  # n and Enter: nothing discarded
        assert text.count("[abandon: draft-summary -> initial]") == 1 and desk.state == "initial"
        assert desk.store.list_papers(limit=10) == []  # the yes ran it: the added paper went with the draft
    finally:
        desk.close()
