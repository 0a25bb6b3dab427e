"""The student's question in the writer model's words, checked by code before anyone sees it.

The model gets the passage the question targets (the section's passage, a key
term's sentence, the abstract) and the teacher's last answer, and asks what a
curious reader of this paper would ask next. Code keeps its question only
when it is a real question (one sentence ending in "?", short), about this
paper (it shares content words with the passage, the title or the last
answer), not an echo of the prompt (scaffolding, the worked example, a long
run of the passage copied), and not a repeat of a question already asked
(three or more of its content words, most of them, are an earlier question's). Otherwise the
student's template question is asked, and the reason is recorded.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from paperdesk.core.agents import quality
from paperdesk.core.agents.attribution import drop_copied
from paperdesk.core.agents.claims import _stem, content_words
from paperdesk.core.agents.evidence import is_boilerplate
from paperdesk.core.db.store import Store
from paperdesk.core.discussion.outline import candidate_terms, clean_heading, mentions, words_of
from paperdesk.core.prompts import template

MIN_WORDS = 4
MAX_WORDS = 25  # a question a reader would type, not a paragraph
PASSAGE_WORDS = 70  # words of the targeted passage in the prompt
ANSWER_WORDS = 40  # words of the last answer in the prompt
COPIED_RUN = 8  # this many words in a row from the passage: the model is reading it back, not asking
REPEAT_OVERLAP = 0.6  # share of content words two questions share (of the smaller set) for the second to repeat
_LEAD = re.compile(r"^\s*(?:[-*•]\s*|\d{1,2}[.)]\s*|(?:next\s+)?question\s*\d*\s*:\s*|q\s*:\s*)+", re.I)
_SCAFFOLD = re.compile(r"\b(?:passages?|last answer|the question|curious reader|reply with)\b", re.I)
# the reader never sees the prompt's passage: "the passage" in a question is the paper it comes from
_PASSAGE = re.compile(r"\b(?:this|the) passage(?:'s)?\b", re.I)
_CITE = re.compile(r"\[[^\]]{0,40}\]")


@dataclass
class Target:
    """What the question is about: a passage of the paper and its page."""

    passage: str
    page: int
    focus: str = ""  # the term or heading the question should name (a key term the passage uses)


def stems(text: str) -> set[str]:
    return {_stem(w) for w in content_words(text)}


def overlap(a: str, b: str) -> float:
    """Share of the smaller question's content words (by stem) the other one has too, once they share three;
    with fewer shared, the share of both questions' words (so "writing" and "the purpose of writing" differ)."""
    x, y = stems(a), stems(b)
    if not x or not y:
        return 1.0 if a.strip().lower() == b.strip().lower() else 0.0
    shared = len(x & y)
    if x != y and shared < 3:  # two shared words are a topic, not a repeated question: compare the word sets
        return shared / len(x | y)
    return shared / min(len(x), len(y))


def repeats(question: str, asked: Sequence[str]) -> str | None:
    """The earlier question `question` repeats by word overlap, or None."""
    low = question.strip().lower()
    for earlier in asked:
        if low == earlier.strip().lower() or overlap(question, earlier) >= REPEAT_OVERLAP:
            return earlier
    return None


def worked_example() -> str:
    """The prompt's worked example (the text a copied question would come from), without its instructions."""
    text = template("discuss_student")
    return text[text.index("Paper:"): text.index("Paper: {title}")]


def messages(prompt: str) -> list[dict[str, str]]:
    """The rendered prompt as chat turns: the instruction as the system message, the worked example as one
    user/assistant exchange, then this paper's block (a chat model given it all in one message answers the
    example's question)."""
    instruction, rest = prompt.split("\n\n", 1)
    example, block = rest.split("\n\n", 1)
    shown, reply = example.rsplit("\nQuestion:", 1)
    return [{"role": "system", "content": instruction.strip()},
            {"role": "user", "content": shown.strip()},
            {"role": "assistant", "content": reply.strip()},
            {"role": "user", "content": block.strip().removesuffix("Question:").strip()}]


def check(text: str, target: Target, title: str, answer: str, asked: Sequence[str],
          examples: str) -> tuple[str | None, str]:
    """(the question, "") when the model's text is a usable question; (None, why) otherwise."""
    text = _LEAD.sub("", " ".join(text.split())).strip(" \"'“”")
    text = _PASSAGE.sub(lambda m: "the paper's" if m.group(0).endswith("'s") else "the paper", text)
    if "?" not in text:
        return None, "not a question"
    text = text[: text.index("?") + 1].strip()
    words = text.split()
    if len(words) < MIN_WORDS:
        return None, "too short"
    if len(words) > MAX_WORDS:
        return None, "too long"
    if not re.match(r"^[A-Z]", text) or _CITE.search(text):
        return None, "not a clean question"
    if not drop_copied(text, examples):
        return None, "copies the prompt's example"
    if _SCAFFOLD.search(text) or quality.leaks(text):
        return None, "echoes the prompt"
    if _copies_run(text, target.passage):
        return None, "reads the passage back"
    mine = stems(text)
    if not mine & (stems(target.passage) | stems(title) | stems(answer)):
        return None, "not about the paper's words"
    earlier = repeats(text, asked)
    if earlier is not None:
        return None, f"repeats an earlier question ({earlier[:60]})"
    return text, ""


def _copies_run(text: str, passage: str) -> bool:
    mine = [w.lower().strip(",.;:?") for w in text.split()]
    theirs = " ".join(w.lower().strip(",.;:?") for w in passage.split())
    return any(" ".join(mine[i:i + COPIED_RUN]) in theirs for i in range(len(mine) - COPIED_RUN + 1))


def plain_answer(answer: str) -> str:
    """The last answer as the prompt shows it: no citation marks, cut to ANSWER_WORDS."""
    text = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(_CITE.sub("", answer).split()[:ANSWER_WORDS]))
    return text or "(none yet: this is the first question)"


def passage_of(store: Store, paper_id: str, chunk_ids: Sequence[int], focus: str = "") -> Target | None:
    """The first non-boilerplate chunk of `chunk_ids` (the one mentioning `focus` when one does), cut short."""
    chunks = store.chunks_by_ids(list(chunk_ids))
    body = [chunks[i] for i in chunk_ids if i in chunks and not is_boilerplate(chunks[i].section, chunks[i].text)]
    if not body:
        return None
    low = focus.lower()
    chunk = next((c for c in body if low and low in c.text.lower()), body[0])
    text = " ".join(chunk.text.split())
    if low and low in text.lower():  # start near the focus so the passage is about it
        at = text.lower().index(low)
        start = text.rfind(". ", 0, at)
        text = text[start + 2 if start >= 0 else 0:]
    return Target(" ".join(text.split()[:PASSAGE_WORDS]), chunk.page_start)


def abstract_of(store: Store, paper_id: str) -> Target | None:
    """The abstract's passage (or the paper's first body passage): what an opening question is about."""
    chunks = store.chunks_of(paper_id)
    ordered = [c for c in chunks if c.section.lower().startswith("abstract")] + \
              [c for c in chunks if c.section and not c.section.lower().startswith("abstract")]
    return passage_of(store, paper_id, [c.id for c in ordered[:6]])


def target_for(store: Store, outline, topic) -> Target | None:  # type: ignore[no-untyped-def]
    """The passage a topic's question is about (the abstract, the section's passage, or the term's sentence),
    with what it should name: a key term the passage uses, the topic's term, else the passage's own leading
    phrase (claim_focus); a section heading is never what a question names."""
    section = None
    if topic.kind == "overview":
        found = abstract_of(store, outline.paper_id)
    else:
        term = next((t for t in outline.terms if t.text == topic.target), None)
        section = outline.section_of(topic.section or topic.target)
        if term is not None and term.definition:
            found = Target(" ".join(term.definition.split()[:PASSAGE_WORDS]), term.page, term.text)
        elif section is not None:
            found = passage_of(store, outline.paper_id, section.chunk_ids, "" if term is None else term.text)
        else:
            return None
    if found is not None and not found.focus:
        named = next((t.text for t in outline.terms if mentions(found.passage, t.text)), "")
        if topic.kind == "overview":
            fallback = outline.title.split(":", 1)[0]
        elif topic.kind in ("term", "follow-up"):
            fallback = topic.target
        else:
            fallback = claim_focus(found.passage, section.heading if section is not None else topic.target)
        found.focus = named or fallback or outline.title.split(":", 1)[0]
    return found


def claim_focus(passage: str, heading: str = "") -> str:
    """What a question about `passage` names when it holds no key term: its most repeated two-word phrase of
    content words (else word), the earliest of equals, never a word of its section heading."""
    skip = set(words_of(clean_heading(heading))) | set(words_of(heading))
    found = [t for t in candidate_terms(passage) if not set(t.split()) & skip]
    if not found:
        return ""
    counts = Counter(found)
    pool = [t for t in found if " " in t] or found
    return max(pool, key=lambda t: (counts[t], -found.index(t)))
