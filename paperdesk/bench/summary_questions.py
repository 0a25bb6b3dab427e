"""What a summary states of its paper, measured by the QA set's known answers.

The held-out papers' questions (bench qa's files) carry regexes every correct answer matches. A summary
states a question's answer when its text matches them all; its Limitations section names the paper's
limitation when the section alone matches a limitation question's regexes. A paper has at most one such
question, and may state other limits too, so these are floors, not shares of what the paper says.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

from paperdesk.bench.qa import ABSENT, MARKER, Question, load_questions
from paperdesk.bench.qa_split import SETS
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.summarizer import split_sections


def questions_of(pdf: Path) -> list[Question]:
    """The answerable questions asked of `pdf` (by file name) in bench qa's question files."""
    out: list[Question] = []
    for questions, _ in SETS:
        if questions.exists():
            out += [q for q in load_questions(questions) if q.paper == pdf.name and q.kind != ABSENT]
    return out


def _states(text: str, question: Question) -> bool:
    plain = CITATION.sub(" ", MARKER.sub(" ", text))
    return bool(question.answer) and all(re.search(p, plain, re.IGNORECASE) for p in question.answer)


def stated(summary: str, questions: Sequence[Question]) -> dict[str, Any]:
    """How many of `questions` the summary answers, and how many limitation questions its Limitations
    section answers."""
    limits = [q for q in questions if q.kind == "limitation"]
    section = split_sections(summary).get("Limitations", "")
    return {"questions": len(questions), "answered": sum(_states(summary, q) for q in questions),
            "limitation_questions": len(limits), "limitations_named": sum(_states(section, q) for q in limits)}
