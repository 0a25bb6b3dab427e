"""The observer: an insight for each agent every K turns, and the final annotated summary.

Everything it says is computed from the stored turns (figures.py): repeated
questions by embedding similarity, sections no turn has covered, answers whose
sentences lack a supporting citation, answers stuck on the same page; and each
statement is checked against those turns before it is shown or stored
(insight_check.py), so none says what the transcript does not. The summary's
annotations (sections and pages, literature, conversation function, main
terms) are computed too; each answer is summed up by its own supported
sentence closest to the question, citation kept; the literature is the other
papers the answer cites and the works its cited passages cite.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np

from paperdesk.core.discussion.figures import asked_targets, covered_sections, pages_cited, share
from paperdesk.core.discussion.function import FunctionClassifier
from paperdesk.core.discussion.insight_check import UNSUPPORTED, first_true
from paperdesk.core.discussion.outline import Outline, mentions
from paperdesk.core.discussion.teacher import sentences
from paperdesk.core.discussion.types import REPEAT, Turn

OWN_PAGE = re.compile(r"\[pp?\. \d+(?:[-–]\d+)?\]")  # a citation of the discussed paper's page
# what the observer says when no statement about the transcript holds: instructions, claiming nothing
PLAIN_STUDENT = {"kind": "plain", "target": "", "text": "Ask about a claim of the paper no question has asked about."}
PLAIN_TEACHER = {"kind": "plain", "text": "Answer from the paper's passages, each claim with its [p. N]."}

Encoder = Callable[[Sequence[str]], np.ndarray]


class Observer:
    def __init__(self, outline: Outline, encode: Encoder) -> None:
        self.outline = outline
        self.encode = encode
        self.classifier = FunctionClassifier(encode)

    # -- every K turns --------------------------------------------------------------------

    def repeats(self, turns: Sequence[Turn], last: int) -> list[tuple[int, int, float]]:
        """(turn, earlier turn, similarity) for each of the last `last` questions that repeats an earlier one."""
        if len(turns) < 2:
            return []
        vectors = self.encode([t.question for t in turns])
        out = []
        for i in range(max(1, len(turns) - last), len(turns)):
            sims = vectors[:i] @ vectors[i]
            j = int(np.argmax(sims))
            if sims[j] >= REPEAT:
                out.append((turns[i].n, turns[j].n, float(sims[j])))
        return out

    def insights(self, turns: Sequence[Turn], every: int) -> dict[str, dict[str, Any]]:
        """One insight for the student and one for the teacher, from the conversation so far: each the first
        statement that holds of the stored turns (insight_check.py), never one that does not."""
        student = first_true(self._for_student(turns, every), turns, self.outline, self.encode, PLAIN_STUDENT)
        recent = list(turns[-every:])
        teacher = first_true(self._for_teacher(recent), turns, self.outline, self.encode, PLAIN_TEACHER)
        return {"student": dict(student), "teacher": dict(teacher)}

    def _for_student(self, turns: Sequence[Turn], every: int) -> list[dict[str, Any]]:
        """What the observer could tell the student, most useful first."""
        covered = covered_sections(turns)
        uncovered = [s for s in self.outline.sections if s.heading not in covered]
        asked = asked_targets(turns)
        unasked = [t.text for t in self.outline.terms
                   if t.text not in asked and not any(mentions(x.question, t.text) for x in turns)]
        target = uncovered[0].heading if uncovered else (unasked[0] if unasked else "")
        where = ""
        if uncovered:
            a, b = uncovered[0].pages
            where = f' (p. {a})' if a == b else f" (pp. {a}-{b})"
        out: list[dict[str, Any]] = []
        for n, m, sim in self.repeats(turns, every)[:1]:
            text = f"Turn {n} repeated the question of turn {m} (similarity {sim:.2f})"
            text += (f'; ask about "{_title(self.outline, target)}"{where} instead.' if target
                     else "; ask something new.")
            out.append({"kind": "repetition", "target": target, "turn": n, "earlier": m, "similarity": round(sim, 2),
                        "text": text})
        if uncovered:
            out.append({"kind": "uncovered_section", "target": target,
                        "text": f'No turn has covered "{_title(self.outline, target)}"{where} yet; ask about it next.'})
        if unasked:
            out.append({"kind": "uncovered_term", "target": unasked[0],
                        "text": f'Ask what "{unasked[0]}" means in this paper.'})
        out.append({"kind": "covered", "target": "",
                    "text": "Every section and key term has come up; ask for critique."})
        return out

    def _for_teacher(self, recent: Sequence[Turn]) -> list[dict[str, Any]]:
        """What the observer could tell the teacher about the recent answers, figures from the stored turns."""
        numbers = [t.n for t in recent]
        cited = share(recent)
        pages = sorted({p for t in recent for p in pages_cited(t)})
        out: list[dict[str, Any]] = []
        if cited < UNSUPPORTED:
            out.append({"kind": "unsupported", "share": round(cited, 3), "turns": numbers,
                        "text": f"Only {cited:.0%} of the last {_answers(len(recent))} sentences cite a passage "
                                "that supports them; support each claim with a passage and its [p. N]."})
        per_turn = [pages_cited(t) for t in recent]
        if len(recent) >= 2 and len(per_turn[0]) == 1 and all(p == per_turn[0] for p in per_turn):
            (page,) = per_turn[0]
            out.append({"kind": "narrow", "pages": [page], "turns": numbers,
                        "text": f"The last {len(recent)} answers all cite page {page}; draw on "
                                "other parts of the paper."})
        out.append({"kind": "ok", "share": round(cited, 3), "pages": pages, "turns": numbers,
                    "text": f"{cited:.0%} of the last {_answers(len(recent))} sentences cite a passage that "
                            f"supports them, on pages {_pages(pages)}; keep citing."})
        return out

    # -- after turn N ---------------------------------------------------------------------

    def summary(self, turns: Sequence[Turn]) -> list[dict[str, Any]]:
        """One annotated entry per turn."""
        out = []
        seen: set[str] = set()
        for t in turns:
            section = t.topic.get("section") or (t.sections[0] if t.sections else "")
            new = bool(section) and section not in seen
            seen.update(t.sections)
            seen.add(section)
            out.append({
                "turn": t.n,
                "question": t.question,
                "answer": self.answer_sentence(t),
                "paper_context": {"sections": t.sections or ([section] if section else []), "pages": t.pages},
                "literature": literature(t),
                "function": self.classifier.classify(t.question, t.topic.get("kind", ""), new),
                "terms": self.terms(t),
            })
        return out

    def answer_sentence(self, turn: Turn) -> str:
        """The teacher's own answer for the turn, in one sentence: of the sentences the support check kept,
        those citing the discussed paper's page, the closest to the question. A "not found" answer is
        given whole (never a piece of the passage it quotes); a turn stored before the check, by its
        cited sentences."""
        if turn.not_found:
            return turn.answer.strip()
        if turn.supported is not None:
            kept = [s for s in turn.supported if s.strip()]
            candidates = [s for s in kept if OWN_PAGE.search(s)] or kept
        else:
            parts = sentences(turn.answer)
            candidates = [s for s in parts if "[" in s] or parts
        if len(candidates) <= 1:
            return candidates[0].strip() if candidates else turn.answer.strip()
        vectors = self.encode([turn.question, *candidates])
        return candidates[int(np.argmax(vectors[1:] @ vectors[0]))]

    def terms(self, turn: Turn, limit: int = 5) -> list[str]:
        text = f"{turn.question} {turn.answer}"
        found = [t.text for t in self.outline.terms if mentions(text, t.text)]
        if turn.topic.get("kind") in ("term", "follow-up") and turn.topic.get("target") not in found:
            found.insert(0, turn.topic["target"])
        return found[:limit]


def literature(turn: Turn) -> list[str]:
    """The other papers a turn's answer cites, then the works its cited passages cite (literature.py)."""
    return list(dict.fromkeys([*turn.literature, *turn.works]))


def _title(outline: Outline, target: str) -> str:
    section = outline.section_of(target)
    return section.title if section else target


def _answers(n: int) -> str:
    return "answer's" if n == 1 else f"{n} answers'"


def _pages(pages: Sequence[int]) -> str:
    return ", ".join(str(p) for p in pages) if pages else "none"


def render_markdown(title: str, paper_id: str, summary: Sequence[dict[str, Any]]) -> str:
    """The annotated summary as a markdown draft (what `draft-discussion` shows and `save` keeps)."""
    lines = [f"# Discussion of {title} ({paper_id})", ""]
    for e in summary:
        ctx = e["paper_context"]
        where = "; ".join(ctx["sections"]) or "(no section)"
        pages = (f", {'p.' if len(ctx['pages']) == 1 else 'pp.'} {', '.join(str(p) for p in ctx['pages'])}"
                 if ctx["pages"] else "")
        lines += [
            f"## Turn {e['turn']}: {e['function']}",
            f"**Q:** {e['question']}",
            "",
            f"**A:** {e['answer']}",
            "",
            f"- Paper context: {where}{pages}",
            f"- Literature: {'; '.join(e['literature']) or 'none'}",
            f"- Main terms: {', '.join(e['terms']) or 'none'}",
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"
