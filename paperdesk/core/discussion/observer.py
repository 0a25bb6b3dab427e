"""The observer: an insight for each agent every K turns, and the final annotated summary.

Everything it says is computed from the turns: repeated questions by
embedding similarity, sections no turn has covered, answers whose sentences
lack citations, answers stuck on the same pages. The summary's annotations
(sections and pages, literature, conversation function, main terms) are
computed too; each answer is summed up by its own supported sentence
closest to the question, citation kept; the literature is the other papers
the answer cites and the works its cited passages cite.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np

from paperdesk.core.discussion.function import FunctionClassifier
from paperdesk.core.discussion.outline import Outline, mentions
from paperdesk.core.discussion.teacher import sentences
from paperdesk.core.discussion.types import REPEAT, Turn

OWN_PAGE = re.compile(r"\[pp?\. \d+(?:[-–]\d+)?\]")  # a citation of the discussed paper's page
UNSUPPORTED = 0.5  # below this share of cited sentences, answers are asked to cite

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
        """One insight for the student and one for the teacher, from the conversation so far."""
        return {"student": self._for_student(turns, every), "teacher": self._for_teacher(turns[-every:])}

    def _for_student(self, turns: Sequence[Turn], every: int) -> dict[str, Any]:
        covered = covered_sections(turns)
        uncovered = [s for s in self.outline.sections if s.heading not in covered]
        asked = {t.topic.get("target") for t in turns}
        target = (uncovered[0].heading if uncovered else
                  next((t.text for t in self.outline.terms if t.text not in asked), ""))
        where = ""
        if uncovered:
            a, b = uncovered[0].pages
            where = f' (p. {a})' if a == b else f" (pp. {a}-{b})"
        repeats = self.repeats(turns, every)
        if repeats:
            n, m, sim = repeats[0]
            text = f"Turn {n} repeated the question of turn {m} (similarity {sim:.2f})"
            text += f'; ask about "{_title(self.outline, target)}"{where} instead.' if target else "; ask something new."
            return {"kind": "repetition", "target": target, "text": text}
        if uncovered:
            return {"kind": "uncovered_section", "target": target,
                    "text": f'No turn has covered "{_title(self.outline, target)}"{where} yet; ask about it next.'}
        if target:
            return {"kind": "uncovered_term", "target": target, "text": f'Ask what "{target}" means in this paper.'}
        return {"kind": "ok", "target": "", "text": "Every section and key term has come up; ask for critique."}

    def _for_teacher(self, recent: Sequence[Turn]) -> dict[str, Any]:
        share = float(np.mean([t.cited_share for t in recent])) if recent else 0.0
        pages = sorted({p for t in recent for p in t.pages})
        if share < UNSUPPORTED:
            return {"kind": "unsupported", "share": round(share, 2),
                    "text": f"Only {share:.0%} of the last answers' sentences cite a page; support each claim "
                            "with a passage and its [p. N]."}
        if len(recent) >= 2 and len(pages) <= 1:
            return {"kind": "narrow", "pages": pages,
                    "text": f"The last {len(recent)} answers all cite page {pages[0] if pages else '?'}; draw on "
                            "other parts of the paper."}
        return {"kind": "ok", "share": round(share, 2), "pages": pages,
                "text": f"{share:.0%} of the last answers' sentences cite pages {_pages(pages)}; keep citing."}

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


def covered_sections(turns: Sequence[Turn]) -> set[str]:
    out: set[str] = set()
    for t in turns:
        out.update(t.sections)
        if t.topic.get("section"):
            out.add(t.topic["section"])
    return out


def _title(outline: Outline, target: str) -> str:
    section = outline.section_of(target)
    return section.title if section else target


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
