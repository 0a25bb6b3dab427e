"""`revise <feedback>`: plain-words feedback on a plan -> a proposed plan, decided by rules.

The local models are too small to rewrite a plan reliably, so the feedback is read in code.
Understood, tried in this order (each yields a NEW validated plan; the caller's plan is untouched):

- the direct edits as `step` takes them: `step add|drop|edit|move ...` (exactly like the command),
  and `add <tool> <text>`, `edit N field=value`, `move N M` without the word `step`;
- drop / remove / delete / skip: `step N`, `steps 2 and 3`, `the first|last step`, `the <tool> step`
  (answer, search, arxiv, list, read, summary), `the dataset list`, `without arxiv`. Steps that only
  read a dropped step's output go with it; an answer just loses it from its inputs (it then searches itself);
- list / name / extract the datasets|methods|metrics -> a search for them on the question's topic + extract_list;
- fewer / more passages, `N passages`, `top N` -> k of the search steps;
- focus on X -> every search looks for X plus its own topic words;
- also X, add X, include X, what about X, or a question -> one more sub-question shaped by the rule planner,
  its searches built from X plus the question's topic words;
- `that` / `it` / `as I said` take their words from the user's latest messages in the dialogue;
- several of these joined by `;`, `then` or `and <verb>` apply in order when each part is understood.

The patterns live in revise_words.py.

Anything else raises NotUnderstood, whose message says what revise understands; it never guesses a step.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from paperdesk.core.research import plan_edit
from paperdesk.core.research.plan import ITEM, TOOLS, Plan, PlanError, Step, _as_list, validate
from paperdesk.core.research.revise_words import (
    ALSO, ASKS, BACK_REF, COUNT, DIRECT, DROP, FEWER, FOCUS, KINDS, LIST, MORE, ORDINALS, PRONOUNS, THEN, TOOL_WORDS,
    clean, user_messages,
)
from paperdesk.core.research.rules import STOP, _join, rule_plan, topic

UNDERSTANDS = ("revise understands: drop step N | drop the answer|search|arxiv|list|read|summary step | "
               "list the datasets|methods|metrics | fewer|more|N passages | focus on <topic> | "
               "also <sub-question> | without arxiv | step add|drop|edit|move ...")


class NotUnderstood(PlanError):
    """The feedback matched no rule; the message says what revise understands. Nothing changed."""


class _Reviser:
    def __init__(self, plan: Plan, offline: bool, default_k: int, limits: dict[str, int], said: list[str]) -> None:
        self.plan = plan
        self.offline = offline
        self.default_k = default_k
        self.limits = limits
        self.said = said  # the user's messages in the dialogue, oldest first

    # each rule: the proposed plan, or None when the text is not its kind of feedback

    def rules(self) -> list[Callable[[str], Plan | None]]:
        return [self.direct, self.no_arxiv, self.drop, self.passages, self.list_names, self.focus, self.also]

    def apply(self, text: str) -> Plan:
        for rule in self.rules():
            new = rule(text)
            if new is not None:
                return new
        raise NotUnderstood(f"revise did not understand {text!r}; nothing changed. {UNDERSTANDS}")

    def subject(self, words: str) -> str:
        """The words a focus / also is about; "that" / "it" are the user's latest message in the dialogue."""
        words = words.strip(" ?.!")
        if words.lower() not in PRONOUNS:
            return words
        if not self.said:
            raise NotUnderstood(f"{words!r} points back to the dialogue and there is none yet; say it in words; "
                                f"nothing changed. {UNDERSTANDS}")
        latest = clean(self.said[-1])
        for rx in (FOCUS, ALSO):  # "what about the eye-tracking study?" -> "the eye-tracking study"
            m = rx.match(latest)
            if m:
                latest = next(g for g in m.groups() if g)
                break
        return latest.strip(" ?.!")

    def direct(self, text: str) -> Plan | None:
        """The `step` command's own edits, strict: refused (not cascaded) when another step reads the output."""
        m = DIRECT.match(text)
        words = m.group(2).split() if m else text.split()
        verb = m.group(1).lower() if m else (words.pop(0).lower() if words else "")
        limits = {**self.limits, "offline": self.offline}
        if verb == "drop" and m is not None:
            if len(words) != 1 or not words[0].isdigit():
                raise PlanError("write it as: step drop N")
            return plan_edit.drop_step(self.plan, int(words[0]), **limits)
        if verb == "add" and len(words) >= 2 and (m is not None or words[0] in TOOLS):
            return plan_edit.add_step(self.plan, words[0], " ".join(words[1:]), **limits)
        if verb == "edit" and len(words) >= 2 and words[0].isdigit() and "=" in words[1]:
            return plan_edit.edit_step(self.plan, int(words[0]), " ".join(words[1:]), **limits)
        if verb == "move":
            nums = [w for w in words if w.isdigit()]
            if len(nums) == 2 and all(w.isdigit() or w.lower() in ("step", "to") for w in words):
                return plan_edit.move_step(self.plan, int(nums[0]), int(nums[1]), **limits)
        if m is not None:
            raise PlanError(f"write it as: {STEP_USAGE}")
        return None

    def no_arxiv(self, text: str) -> Plan | None:
        if not re.fullmatch(r"(?:no|without|skip|drop|leave out|offline only|not on|don'?t search)\s*(?:the\s+)?"
                            r"(?:arxiv|online)(?:\s+(?:search|steps?|searches))?|offline only", text, re.I):
            return None
        ids = [s.id for s in self.plan.steps if s.tool == "arxiv_search"]
        if not ids:
            raise PlanError("the plan has no arxiv_search step; nothing to drop")
        return self._without(ids)

    def drop(self, text: str) -> Plan | None:
        m = DROP.match(text)
        if m is None:
            return None
        target = re.sub(r"^(?:the|a|an)\s+", "", m.group(1).strip(" .").lower())
        ids = self._targets(target)
        if ids is None:
            return None
        return self._without(ids)

    def _targets(self, target: str) -> list[int] | None:
        """Step ids a drop names, [] never (refused instead), None when the words name no step at all."""
        steps = self.plan.steps
        numbers = re.fullmatch(r"(?:steps?\s+)?(\d+(?:\s*(?:,|and|&|\+)?\s*\d+)*)", target)
        if numbers:
            ids = [int(n) for n in re.findall(r"\d+", numbers.group(1))]
            for i in ids:
                self.plan.step(i)  # PlanError naming the steps there are
            return ids
        ordinal = re.fullmatch(r"(first|second|third|fourth|fifth|sixth|seventh|eighth|last|final)\s+step", target)
        if ordinal:
            word = ordinal.group(1)
            index = len(steps) if word in ("last", "final") else ORDINALS[word]
            if index > len(steps):
                raise PlanError(f"the plan has only {len(steps)} steps; there is no {word} step")
            return [steps[index - 1].id]
        kind = next((k for k, rx in KINDS if re.search(rf"\b(?:{rx})\b", target)), None)
        rest = re.sub(r"\s*\bsteps?$", "", target)
        for words, tool, every in TOOL_WORDS:
            hit = re.fullmatch(rf"(?:(?:all|every|each)\s+(?:the\s+|of the\s+)?)?(?:\w+\s+)?(?:{words})", rest)
            if hit is None:
                continue
            found = [s for s in steps if s.tool == tool
                     and (tool != "extract_list" or kind is None or s.parameters.get("kind") == kind)]
            if not found:
                raise PlanError(f"the plan has no {tool} step{f' for {kind} names' if kind else ''}; nothing to drop")
            every = every or target.endswith("steps") or bool(re.match(r"(?:all|every|each)\b", target))
            if len(found) > 1 and not every:
                ids = ", ".join(str(s.id) for s in found)
                raise PlanError(f"the plan has {len(found)} {tool} steps ({ids}); say which, e.g. drop step "
                                f"{found[-1].id}, or drop all {tool} steps")
            return [s.id for s in found]
        return None

    def _without(self, ids: list[int]) -> Plan:
        """Drop the steps, the steps that cannot run without them, and their keys from answers' inputs."""
        new = self.plan.copy()
        gone = set(ids)
        while True:
            keys = {s.output_key for s in new.steps if s.id in gone}
            more = {s.id for s in new.steps if s.id not in gone and (
                s.iterate_over in keys
                or (s.tool == "extract_list" and all(k in keys for k in _as_list(s.parameters.get("source")))))}
            if not more:
                break
            gone |= more
        new.steps = [s for s in new.steps if s.id not in gone]
        for s in new.steps:
            s.depends_on = [d for d in s.depends_on if d not in gone]
            for name in ("inputs", "source"):
                if name in s.parameters and isinstance(s.parameters[name], list):
                    s.parameters[name] = [k for k in s.parameters[name] if k not in keys]
                    if not s.parameters[name]:
                        del s.parameters[name]  # an answer with no inputs searches for itself
        if not new.steps:
            raise PlanError("that would drop every step; a plan needs at least one (use abandon to discard it)")
        return new

    def passages(self, text: str) -> Plan | None:
        fewer, more, count = FEWER.match(text), MORE.match(text), COUNT.match(text)
        if not (fewer or more or count):
            return None
        new = self.plan.copy()
        searches = [s for s in new.steps if s.tool in ("library_search", "read_paper")]
        if not searches:
            raise PlanError("the plan has no library_search or read_paper step whose passages could change")
        cap = self.limits.get("max_iterations", 20)
        changed = False
        for s in searches:
            current = int(s.parameters.get("k") or (self.default_k if s.tool == "library_search" else 3))
            if count:
                k = int(next(g for g in count.groups() if g))
            elif fewer:
                k = max(1, (current + 1) // 2)
            else:
                k = min(cap, current * 2)
            if k != current:
                s.parameters["k"] = k
                changed = True
        if not changed:
            how = "the fewest (1)" if fewer else f"the most ({cap}, research.max_iterations)" if more else "that"
            raise PlanError(f"the searches already use {how} passages; nothing changed")
        return new

    def list_names(self, text: str) -> Plan | None:
        m = LIST.match(text)
        if m is None:
            return None  # a question ("which datasets are used?") is a sub-question: see `also`
        rest = m.group(1)
        kinds = [k for k, rx in KINDS if re.search(rf"\b(?:{rx})\b", rest, re.I)]  # "the datasets and metrics"
        if not kinds:
            return None
        have = {s.parameters.get("kind"): s.id for s in self.plan.steps if s.tool == "extract_list"}
        todo = [k for k in kinds if k not in have]
        if not todo:
            raise PlanError(f"step {have[kinds[0]]} already lists the {kinds[0]} names; nothing to add")
        new = self.plan.copy()
        step_id = new.next_id()
        passages = [s.output_key for s in new.steps if s.tool in ("library_search", "read_paper")]
        if len(new.steps) + 1 + len(todo) <= self.limits.get("max_steps", 8) or not passages:
            asked = " ".join(w for w in topic(rest).split() if w.lower() not in _FILLER) or f"{todo[0]}s"
            query = _join(asked, topic(new.query))
            source = _key(new, "passages", step_id)
            names = " and ".join(todo)
            new.steps.append(_step(step_id, f"Search for the {names} names: {query}", "library_search",
                                   {"query": query}, source))
            step_id += 1
        else:  # no room for a search of its own: read the latest passages
            source = passages[-1]
        for kind in todo:
            new.steps.append(_step(step_id, f"List the {kind} names in the passages", "extract_list",
                                   {"source": source, "kind": kind}, _key(new, "names", step_id)))
            step_id += 1
        return new

    def focus(self, text: str) -> Plan | None:
        m = FOCUS.match(text)
        if m is None:
            return None
        subject = topic(self.subject(next(g for g in m.groups() if g)))
        new = self.plan.copy()
        searches = [s for s in new.steps if s.tool in ("library_search", "read_paper", "arxiv_search")
                    and ITEM not in str(s.parameters.get("query", ""))]
        if not searches:
            raise PlanError("the plan has no search step to focus; add one: step add library_search <query>")
        for s in searches:
            old = str(s.parameters["query"])
            s.parameters["query"] = _join(subject, old)
            if old and old in s.description:
                s.description = s.description.replace(old, s.parameters["query"])
        if all(s.parameters == o.parameters for s, o in zip(new.steps, self.plan.steps)):
            raise PlanError(f"the searches already look for {subject!r}; nothing changed")
        return new

    def also(self, text: str) -> Plan | None:
        m = ALSO.match(text)
        if m is not None:
            sub = self.subject(next(g for g in m.groups() if g))
        elif text.endswith("?") or ASKS.match(text):
            sub = text
        else:
            return None
        listed = self.list_names(sub)  # "also list the methods used"
        if listed is not None:
            return listed
        if not _content(sub):
            raise NotUnderstood(f"revise: {text!r} names nothing to add; say what, e.g. also <sub-question>; "
                                f"nothing changed. {UNDERSTANDS}")
        return self._extend(sub)

    def _extend(self, sub: str) -> Plan:
        """One more sub-question: the rule planner's steps for it, renumbered after the plan's, its searches
        built from the sub-question's words plus the question's topic words (a bare "also X" lacks the topic)."""
        extra = rule_plan(sub, offline=self.offline)
        new = self.plan.copy()
        base = new.next_id() - 1
        renamed = {s.output_key: _key(new, s.output_key.rsplit("_", 1)[0], s.id + base) for s in extra.steps}
        context = topic(new.query)
        asks = bool(ASKS.match(sub)) or sub.endswith("?")
        for s in extra.steps:
            s.id += base
            s.output_key = renamed[s.output_key]
            for name in ("source", "inputs"):
                if name in s.parameters:
                    value = s.parameters[name]
                    s.parameters[name] = [renamed[v] for v in value] if isinstance(value, list) else renamed[value]
            if s.iterate_over:
                s.iterate_over = renamed[s.iterate_over]
            query = s.parameters.get("query")
            if isinstance(query, str) and ITEM not in query:
                s.parameters["query"] = _join(query, context)
                s.description = s.description.replace(query, s.parameters["query"])
            if s.tool == "answer" and not asks:
                s.parameters["question"] = f"What about {sub.strip(' ?.')}?"
        new.steps += extra.steps
        return new


_FILLER = {"used", "use", "uses", "using", "mentioned", "named", "given", "reported"}  # no help to a search
_VAGUE = STOP | {"that", "this", "it", "more", "something", "stuff", "things", "step", "steps", "plan", "also",
                 "better", "good", "please", "some", "too", "well", "passage", "passages", "results", "sources"}


def _content(text: str) -> bool:
    """Whether the words name something to search for ("also that", "list the steps" do not)."""
    return any(w.lower() not in _VAGUE for w in re.findall(r"[A-Za-z][A-Za-z0-9\-]*", text))


def _key(plan: Plan, base: str, step_id: int) -> str:
    taken = {s.output_key for s in plan.steps}
    key = f"{base}_{step_id}"
    while key in taken:
        key += "x"
    return key


def _step(step_id: int, description: str, tool: str, params: dict[str, Any], key: str) -> Step:
    return Step(step_id, description, tool, params, key)


STEP_USAGE = "step add <tool> <text> | step drop N | step edit N field=value | step move N M"


def _apply_all(reviser: _Reviser, text: str) -> Plan:
    """Several changes joined by "and <verb>" / "then" / ";" apply in order when every part is understood
    ("without arxiv; use fewer passages"); otherwise the feedback is read as one change
    ("focus on readers and use of citations")."""
    parts = [clean(p) for p in THEN.split(text) if clean(p)]
    specific: PlanError | None = None
    if len(parts) > 1:
        plan = reviser.plan
        try:
            for part in parts:
                plan = _Reviser(plan, reviser.offline, reviser.default_k, reviser.limits, reviser.said).apply(part)
            return plan
        except NotUnderstood:
            pass
        except PlanError as exc:  # a part was understood but cannot be done: that reason beats "not understood"
            specific = exc
    try:
        return reviser.apply(text)
    except NotUnderstood:
        if specific is not None:
            raise specific from None
        raise


def revise_plan(plan: Plan, feedback: str, dialogue: str = "", *, offline: bool = False, default_k: int = 5,
                max_steps: int = 8, max_iterations: int = 20) -> Plan:
    """The plan the feedback asks for (validated); PlanError / NotUnderstood say why not. `plan` is not changed.

    "as I said" / "do that" re-reads the user's latest message in `dialogue` that these rules understand.
    """
    limits = {"max_steps": max_steps, "max_iterations": max_iterations}
    said = user_messages(dialogue or "")
    reviser = _Reviser(plan, offline, default_k, limits, said)
    text = clean(feedback)
    if not text:
        raise NotUnderstood(f"revise needs feedback; nothing changed. {UNDERSTANDS}")
    if BACK_REF.match(text):
        if not said:
            raise NotUnderstood(f"{text!r} points back to the dialogue and there is none yet; say the change in "
                                f"words; nothing changed. {UNDERSTANDS}")
        for message in reversed(said):
            try:
                new = _Reviser(plan, offline, default_k, limits, []).apply(clean(message))
                break
            except NotUnderstood:
                continue
        else:
            raise NotUnderstood("none of your messages in the dialogue reads as a change to the plan; nothing changed. "
                                f"{UNDERSTANDS}")
    else:
        new = _apply_all(reviser, text)
    new.made_by = plan.made_by if plan.made_by.endswith("+revised") else plan.made_by + "+revised"
    validate(new, offline=offline, **limits)
    return new
