"""The student: a question queue seeded from the paper's structure, phrased by the writer model.

Code chooses what to ask (sections in reading order interleaved with key
terms, a follow-up on a key term the last answer raised, the section an
observer insight names); the model phrases the question from the passage the
topic targets and the teacher's last answer, as a curious reader would ask
it (phrasing.py checks it, and question_fit.py that it asks about the
passage's own claims: no section heading as its topic, no number or direction
the passage does not state, no term the paper does not use), and a template
question is used when its phrasing is not a usable question, does not fit its
passage or repeats one asked before. Earlier discussions (read from memory)
steer the queue: their topics, and topics whose question is close in meaning
to an earlier question (cosine >= the observer's REPEAT), go to the back.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Callable, Sequence

import numpy as np

from paperdesk.core.agents.summarizer import make_request
from paperdesk.core.cancel import CancelToken
from paperdesk.core.discussion.outline import Outline, mentions
from paperdesk.core.discussion.phrasing import Target, check, messages, plain_answer, worked_example
from paperdesk.core.discussion.question_fit import problems
from paperdesk.core.discussion.types import REPEAT
from paperdesk.core.llm.backend import Backend, GenerationRequest, generate
from paperdesk.core.prompts import render


@dataclass
class Topic:
    kind: str  # overview, section, method, critique, term, follow-up
    target: str  # section heading or term
    section: str = ""  # the section heading the topic belongs to ("" for terms)
    origin: str = "plan"  # plan, follow-up, insight

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


Encoder = Callable[[Sequence[str]], np.ndarray]
Targets = Callable[["Topic"], "Target | None"]  # the passage a topic's question is about
# (temperature, seed) of each try at phrasing a question: the first follows the prompt closely, the others
# (which must name the passage's term) sample more freely; then the template question is asked
ATTEMPTS = ((0.3, 7), (0.8, 107), (1.0, 211))
EARLIER_KEPT = 60  # earlier discussions' questions kept in the state for the phrasing check

TEMPLATES = {
    "overview": "What problem does the paper address, and what does it propose?",
    "section": 'What does the section "{title}" explain?',
    "method": 'How does the approach in "{title}" work?',
    "critique": 'What limitations does the paper discuss in "{title}"?',
    "term": 'What does "{target}" mean in this paper?',
    "follow-up": 'Can you say more about "{target}"?',
}
TOPIC_LINES = {
    "overview": "the paper as a whole",
    "section": 'the section "{title}"',
    "method": 'how the approach in "{title}" works',
    "critique": 'the limitations in "{title}"',
    "term": 'the term "{target}"',
    "follow-up": 'more detail about "{target}"',
}


def seed_topics(outline: Outline) -> list[Topic]:
    """Overview first, then sections in reading order interleaved with key terms (a term after each section)."""
    topics = [Topic("overview", outline.title)]
    terms = [Topic("term", t.text) for t in outline.terms]
    for n, section in enumerate(outline.sections):
        topics.append(Topic(section.kind, section.heading, section.heading))
        if n < len(terms):
            topics.append(terms[n])
    topics.extend(terms[len(outline.sections):])
    return topics


class Student:
    """Asks one question per turn; state is plain JSON so a resumed discussion asks the same way."""

    def __init__(self, outline: Outline, backend: Backend, question_tokens: int = 28,
                 state: dict[str, Any] | None = None, encode: Encoder | None = None,
                 targets: Targets | None = None, paper_words: set[str] | None = None) -> None:
        self.outline = outline
        self.paper_words = paper_words  # the paper's own words: a question naming another term is dropped
        self.headings = [(s.heading, s.title) for s in outline.sections]
        self.passage = ""  # the passage the last model-phrased question was checked against ("" for a template)
        self.targets = targets  # None: the model phrases from the topic line alone (no passage at hand)
        self.backend = backend
        self.question_tokens = question_tokens
        self.encode = encode  # sentence vectors for "close in meaning"; None: exact matches only
        state = state or {}
        self.queue = [Topic(**t) for t in state.get("queue", [])] or seed_topics(outline)
        self.asked = list(state.get("asked", []))  # targets already asked about
        self.last_origin = state.get("last_origin", "plan")
        self.questions = list(state.get("questions", []))  # lower-cased questions already asked
        self.known = list(state.get("known", []))  # targets earlier discussions already asked about
        self.earlier = list(state.get("earlier", []))  # earlier discussions' questions (for phrasing checks)
        self.last_answer = str(state.get("last_answer", ""))  # the teacher's last answer, without citations
        self.why = ""  # why the last question is a template ("" when the model phrased it)
        self._vectors: dict[str, np.ndarray] = {}

    def state(self) -> dict[str, Any]:
        return {"queue": [t.to_json() for t in self.queue], "asked": self.asked, "last_origin": self.last_origin,
                "questions": self.questions, "known": self.known, "earlier": self.earlier,
                "last_answer": self.last_answer}

    def skip_known(self, earlier: Sequence[str], targets: Sequence[str] = (),
                   related: Sequence[str] = ()) -> list[Topic]:
        """Move what earlier discussions asked to the back of the queue (the memory read); returns those topics.

        A topic is known when an earlier turn was about its target (`targets`, exact however the model phrased
        the question), or when its question is close in meaning (cosine >= REPEAT) to an earlier question about
        this paper; for key terms, also to one asked about a related paper (`related`).
        """
        self.earlier = list(dict.fromkeys(q.lower() for q in earlier))[-EARLIER_KEPT:]
        wanted = {t.lower() for t in targets}
        known = [t for t in self.queue if t.target.lower() in wanted]
        rest = [t for t in self.queue if t not in known]
        if rest and (earlier or related) and self.encode is not None:
            vectors = self._encode([*earlier, *related, *(self._template(t) for t in rest)])
            past, around, mine = np.split(vectors, [len(earlier), len(earlier) + len(related)])
            for topic, v in zip(rest, mine):
                close = float((past @ v).max()) if len(past) else 0.0
                if topic.kind == "term" and len(around):
                    close = max(close, float((around @ v).max()))
                if close >= REPEAT:
                    known.append(topic)
        elif rest:
            seen = {q.lower() for q in earlier}
            known += [t for t in rest if self._template(t).lower() in seen]
        self.known = list(dict.fromkeys([*self.known, *(t.target for t in known)]))
        if known and len(known) < len(self.queue):
            self.queue = [t for t in self.queue if t not in known] + [t for t in self.queue if t in known]
        return known

    def next_topic(self) -> Topic:
        while self.queue:
            topic = self.queue.pop(0)
            if topic.kind in ("term", "follow-up") and self.named(topic.target):
                continue  # an earlier question already asked about this term: asking again repeats it
            if topic.target not in self.asked or topic.kind == "follow-up":
                return topic
        # every seeded topic is used: go round the sections again as critique
        return Topic("critique", self.outline.sections[len(self.asked) % len(self.outline.sections)].heading) \
            if self.outline.sections else Topic("overview", self.outline.title)

    def ask(self, topic: Topic, on_token: Callable[[str], None] | None = None,
            cancel: CancelToken | None = None) -> tuple[str, bool]:
        """The question for `topic` and whether the model phrased it (False: the template question; `why` says why)."""
        fallback = self._template(topic)
        target = self._target(topic)
        prompt = render("discuss_student", title=self.outline.title, page=str(target.page), passage=target.passage,
                        answer=plain_answer(self.last_answer), focus=target.focus or self._values(topic)["title"])
        question, reasons = None, []
        focus = target.focus or self._values(topic)["title"]
        # a refused question gets two more, freer, tries that must name the passage's term
        retry = prompt.rstrip().removesuffix("Question:") + f'(The question names "{focus}".)\nQuestion:'
        for attempt, (temperature, seed) in enumerate(ATTEMPTS):
            prompt = retry if attempt else prompt
            options = {"max_tokens": self.question_tokens, "stop": ["\n", "Paper:", "Passage", "Last answer:"],
                       "temperature": temperature, "seed": seed + len(self.questions), "repeat_penalty": 1.15}
            request = (GenerationRequest(messages=messages(prompt), **options) if self.backend.chat_template
                       else make_request(self.backend, prompt.rstrip(), **options))
            result = generate(self.backend, request, cancel=cancel)
            if result.cancelled:
                reasons = ["cancelled"]
                break
            question, why = check(result.text, target, self.outline.title, self.last_answer,
                                  [*self.questions, *self.earlier], worked_example())
            if question is not None:  # about the passage's own claims: never a heading, a reversal, another's term
                why = problems(question, target.passage, self.headings, self.paper_words, worked_example())
                question = None if why else question
            if question is not None and self._repeats(question):
                question, why = None, "close in meaning to an earlier question"
            if question is not None:
                break
            reasons.append(f"{why}: {' '.join(result.text.split())[:100]!r}")  # what the model wrote, for the record
        self.why = "" if question is not None else "; ".join(reasons)
        self.passage = target.passage if question is not None else ""
        text = question or fallback
        self.questions.append(text.lower())
        if on_token is not None:
            on_token(text)
        return text, question is not None

    def _target(self, topic: Topic) -> Target:
        """The passage the question is about; the topic line when no passage is at hand."""
        found = self.targets(topic) if self.targets is not None else None
        if found is not None:
            return found
        values = self._values(topic)
        return Target(TOPIC_LINES[topic.kind].format(**values), 1)

    def named(self, term: str) -> bool:
        """Whether a question of this discussion already names `term`."""
        return any(mentions(question, term) for question in self.questions)

    def heard(self, topic: Topic, answer: str) -> None:
        """After the answer: mark the topic asked, queue one follow-up on a key term the answer raised."""
        self.asked.append(topic.target)
        self.last_origin = topic.origin
        self.last_answer = plain_answer(answer) if answer.strip() else ""
        if topic.origin == "follow-up":
            return  # never two follow-ups in a row: coverage of the paper comes first
        for term in self.outline.terms:
            if term.text not in self.asked and term.text not in self.known and term.text != topic.target \
                    and mentions(answer, term.text) and not self.named(term.text):
                self.queue = [t for t in self.queue if t.target != term.text]
                self.queue.insert(0, Topic("follow-up", term.text, topic.section, "follow-up"))
                return

    def take_insight(self, insight: dict[str, Any]) -> None:
        """An observer insight names a section or term: ask about it next."""
        target = insight.get("target")
        if not target:
            return
        section = self.outline.section_of(target)
        kind = section.kind if section else "term"
        self.queue = [t for t in self.queue if t.target != target]
        self.queue.insert(0, Topic(kind, target, target if section else "", "insight"))

    # -- phrasing -------------------------------------------------------------------------

    def _repeats(self, question: str) -> bool:
        """Asked already, in this discussion or an earlier one: the same words, most of the same content
        words, or close in meaning."""
        asked = [*self.questions, *self.earlier]
        if question.lower() in asked or any(same_words(question, earlier) for earlier in asked):
            return True
        if self.encode is None or not asked:
            return False
        vectors = self._encode([question.lower(), *asked])
        return float((vectors[1:] @ vectors[0]).max()) >= REPEAT

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, each text encoded once per student."""
        assert self.encode is not None
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            self._vectors.update(zip(missing, self.encode(missing)))
        return np.stack([self._vectors[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)

    def _values(self, topic: Topic) -> dict[str, str]:
        section = self.outline.section_of(topic.section or topic.target)
        return {"title": section.title if section else topic.target, "target": topic.target}

    def _template(self, topic: Topic) -> str:
        return TEMPLATES[topic.kind].format(**self._values(topic))

    def _clean(self, text: str, topic: Topic) -> str | None:
        """The model's question when phrasing.check accepts it for `topic` (None otherwise)."""
        target = self._target(topic)
        question, _ = check(text, target, self.outline.title, self.last_answer,
                            [*self.questions, *self.earlier], worked_example())
        if question is not None and problems(question, target.passage, self.headings, self.paper_words,
                                             worked_example()):
            return None
        return question


_QUESTION_WORDS = frozenset("what which when where does this that with from have about into their there these those "
                            "paper papers study authors section describe mean".split())
SAME_WORDS = 0.6  # share of the smaller question's content words that makes two questions one


def _content_words(question: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]+", question.lower()) if len(w) >= 4 and w not in _QUESTION_WORDS}


def same_words(question: str, earlier: str) -> bool:
    """Two questions whose content words are mostly the same (SAME_WORDS of the smaller set, two or more):
    the second asks the first again, however it is phrased."""
    mine, theirs = _content_words(question), _content_words(earlier)
    if min(len(mine), len(theirs)) < 2:
        return bool(mine) and mine == theirs
    return len(mine & theirs) / min(len(mine), len(theirs)) >= SAME_WORDS
