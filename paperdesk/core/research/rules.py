"""The rule-based planner: question patterns -> a valid plan, always.

Patterns, tried in order: new work on arXiv; compare across papers; survey;
"which X and how Y" (two sub-questions); which datasets / methods / metrics;
anything else (what / how) is one search and one cited answer. The model
planner falls back to this, and `revise` uses it to extend a plan.
"""

from __future__ import annotations

import re

from paperdesk.core.research.plan import ITEM, Plan, Step, validate
from paperdesk.core.research.tools import kind_of

STOP = set("what which how why when where who does do did is are was were can could should would the a an of in "
           "on for to and or with by from about across between each every this that these those their its it be "
           "been any all there papers paper my library i me please tell explain describe give list show find "
           "compare comparison versus vs survey overview new recent latest work arxiv known".split())
ARXIV = re.compile(r"\barxiv\b|\bnew (work|papers?)\b|\brecent (work|papers?|advances)\b|\blatest\b|\bsince 20\d\d\b",
                   re.I)
COMPARE = re.compile(r"\bcompare\b|\bcomparison\b|\bvs\.?\b|\bversus\b|\bdiffer|\bacross (the |my )?papers\b|"
                     r"\beach paper\b|\bin each of\b", re.I)
SURVEY = re.compile(r"\bsurvey\b|\boverview\b|\bstate of the art\b|\bwhat is known\b|\bliterature\b|"
                    r"\bmain (approaches|ideas|themes)\b|\blandscape\b", re.I)
WHICH_AND = re.compile(r"^\s*((?:which|what)\b.+?)\s*,?\s+and\s+((?:how|why|what|which|where|when)\b.+)$", re.I)
LIST = re.compile(r"\b(which|what)\b.*\b(datasets?|corpora|benchmarks?|metrics?|measures?|methods?|models?|"
                  r"baselines?|approaches)\b", re.I)


def topic(text: str, limit: int = 8) -> str:
    """The question's content words: what a search should look for."""
    words = [w for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9\-@.]*[A-Za-z0-9]|[A-Za-z0-9]", text)
             if w.lower() not in STOP]
    return " ".join(words[:limit]) or text.strip()


def _question(text: str) -> str:
    text = text.strip().rstrip("?.! ")
    if not text:
        return text
    asks = text.split()[0].lower() in {"what", "which", "how", "why", "when", "where", "who", "is", "are", "does",
                                       "do", "can"}
    return text[0].upper() + text[1:] + ("?" if asks else "")


def _join(main: str, context: str, extra: int = 3) -> str:
    """`main` plus up to `extra` words of `context` it lacks (the second half of a question needs its topic)."""
    have = {w.lower() for w in main.split()}
    return " ".join(main.split() + [w for w in context.split() if w.lower() not in have][:extra])


class _Builder:
    def __init__(self, query: str) -> None:
        self.plan = Plan(query.strip(), [], made_by="rules")

    def add(self, tool: str, params: dict, key: str, description: str, iterate_over: str | None = None) -> str:
        step_id = len(self.plan.steps) + 1
        key = f"{key}_{step_id}"
        self.plan.steps.append(Step(step_id, description, tool, params, key, iterate_over=iterate_over))
        return key


def rule_plan(question: str, offline: bool = False, **limits: object) -> Plan:
    """A valid plan for any question (PlanError only for an empty one)."""
    q = " ".join(question.split())
    b = _Builder(q)
    subject = topic(q)
    if ARXIV.search(q):
        found = b.add("library_search", {"query": subject}, "passages", f"Search the library for {subject}")
        if offline:
            b.plan.notes.append("offline: the arXiv search step was left out")
        else:
            b.add("arxiv_search", {"query": subject, "max": 5}, "arxiv", f"Look for new work on arXiv about {subject}")
        b.add("answer", {"question": _question(q), "inputs": [found]}, "answer", "Answer from the library's passages")
    elif COMPARE.search(q):
        found = b.add("library_search", {"query": subject}, "passages", f"Find the papers that discuss {subject}")
        per = b.add("read_paper", {"paper": ITEM, "query": subject}, "per_paper",
                    f"Read what each paper says about {subject}", iterate_over=found)
        b.add("answer", {"question": _question(q), "inputs": [found, per]}, "answer", "Compare the papers, citing each")
    elif SURVEY.search(q):
        found = b.add("library_search", {"query": subject, "k": 8}, "passages", f"Gather passages on {subject}")
        b.add("extract_list", {"source": found, "kind": "method"}, "methods", "List the methods the passages name")
        b.add("answer", {"question": _question(q), "inputs": [found]}, "answer", "Summarise the approaches, cited")
    elif WHICH_AND.match(q):
        first, second = (_question(p) for p in WHICH_AND.match(q).groups())  # type: ignore[union-attr]
        a = b.add("library_search", {"query": topic(first)}, "passages", f"Search for: {first}")
        if LIST.search(first):
            b.add("extract_list", {"source": a, "kind": kind_of(first)}, "names", f"List the {kind_of(first)} names")
        c = b.add("library_search", {"query": _join(topic(second), topic(first))}, "passages", f"Search for: {second}")
        b.add("answer", {"question": first, "inputs": [a]}, "answer", "Answer the first part")
        b.add("answer", {"question": second, "inputs": [c]}, "answer", "Answer the second part")
    elif LIST.search(q):
        kind = kind_of(q)
        found = b.add("library_search", {"query": subject}, "passages", f"Search for {subject}")
        b.add("extract_list", {"source": found, "kind": kind}, "names", f"List the {kind} names in the passages")
        b.add("answer", {"question": _question(q), "inputs": [found]}, "answer", "Answer, citing the passages")
    else:
        found = b.add("library_search", {"query": subject}, "passages", f"Search the library for {subject}")
        b.add("answer", {"question": _question(q), "inputs": [found]}, "answer", "Answer, citing the passages")
    validate(b.plan, offline=offline, **limits)  # type: ignore[arg-type]
    return b.plan


def pattern_of(question: str) -> str:
    """Which rule a question falls under (for benchmarks and tests)."""
    q = " ".join(question.split())
    for name, rx in (("arxiv", ARXIV), ("compare", COMPARE), ("survey", SURVEY)):
        if rx.search(q):
            return name
    if WHICH_AND.match(q):
        return "which_and"
    return "list" if LIST.search(q) else "what_how"
