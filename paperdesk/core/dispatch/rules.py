"""The rule layer: decisions that need no model and no embedding.

Command grammar ("summarize 2" typed as a message, or after `ask`),
next/previous/back in the reader, page numbers, "do it again", and the cue
words that make an intent certain ("add a note that ...", "look for papers on
..."). Each rule returns a Decision or None ("not mine").
"""

from __future__ import annotations

import re

from paperdesk.core.dispatch import intents, resolve, slots
from paperdesk.core.dispatch.catalog import NONE, PAGE, QUERY, REF, REF_PAGE, TEXT, TOPIC, CommandCatalog
from paperdesk.core.dispatch.types import Decision, DispatchContext

_TAIL = r"(?:\s+please)?[.!]*$"
NEXT_RE = re.compile(r"^(?:(?:go|move|turn|flip|skip)\s+(?:to\s+)?(?:the\s+)?)?(?:next(?:\s+(?:page|one))?|turn (?:the|a|one) page|forward"
                     r"(?:\s+(?:a|one)\s+page)?|page\s+down|keep reading|continue reading|following page)" + _TAIL, re.I)
PREV_RE = re.compile(r"^(?:(?:go|move|turn|flip)\s+)?(?:back(?:\s+(?:a|one)\s+page)?|previous(?:\s+page)?|prev|"
                     r"page\s+up|one page back|page back)" + _TAIL, re.I)
_NAV_VERB = re.compile(r"^(?:(?:please|now|ok)\s+)?(?:go|jump|skip|turn|flip|take me|bring me|navigate|move|open|show"
                       r"(?:\s+me)?|read|display|view|let me (?:see|read)|(?:have a |take a )?look at)\b", re.I)
_QUESTION = re.compile(r"^(?:what|which|who|whom|whose|when|where|why|how|is|are|does|do|did|can|could|should|"
                       r"was|were|will|has|have|explain|describe|tell me|define)\b|\?\s*$", re.I)
_OTHER_VERBS = re.compile(r"\b(?:summari[sz]e|summary|note|notes|find|search|improve|rewrite|save|abandon)\b", re.I)
_FIND_CUE = re.compile(r"\b(?:arxiv|new|recent|latest|fresh|more|other|additional)\b", re.I)
_FIND_START = re.compile(r"^(?:search|look|hunt|find|fetch|get|grab|dig|discover|browse|are there|is there)\b", re.I)
_LIBRARY = re.compile(r"\b(?:my library|my collection|my papers|in the library|saved papers|i have)\b", re.I)
_NOTE_START = re.compile(r"^(?:add|make|write|put|take|leave|jot|note|notes|remember|record)\b", re.I)
_IMPROVE_START = re.compile(r"^(?:make (?:it|the \w+|this)|shorten|lengthen|rewrite|rephrase|reword|expand|simplify|"
                            r"condense|tighten|trim|add more|give more|more detail|less|focus (?:more )?on|mention|"
                            r"include|remove the|drop the|cut|use (?:bullet|a table|simpler|plain)|be more|"
                            r"put more|emphasi[sz]e|explain (?:the|it) (?:better|more)|add an? (?!notes?\b)|"
                            r"add (?:the|some|how|what|which|why|when|where|who|its|their|details?|info))\b", re.I)
# In draft-plan a statement of what matters is feedback on the plan: "I mostly care about the PubMed dataset".
_PLAN_FEEDBACK = re.compile(r"^(?:i(?:'m| am)?\s+(?:\w+ly\s+)?(?:care|interested|want|need|prefer|only want)\b|"
                            r"(?:what )?i (?:\w+ly )?care about\b|(?:mostly|mainly|only|just|rather) (?:about|on|the)\b|"
                            r"(?:leave out|skip|without|don'?t|do not|instead)\b)", re.I)


_REQUEST = re.compile(r"^(?:(?:please|ok|so|now)\s+)*(?:can|could|would|will) you(?: please)?\s+", re.I)
_WH = re.compile(r"\b(?:what|which|who|whom|whose|when|where|why|how)\b", re.I)
_LIBRARY_SEARCH = re.compile(r"^(?:search|look|check|query)\s+(?:in\s+|through\s+)?(?:my|the)\s+"
                             r"(?:library|collection|papers)\s+(?:for|about|on)\s+\S", re.I)
_OPEN_VERB = re.compile(r"^(?:(?:please|now|ok)\s+)?(?:open|read|view|let me (?:read|see)|pull up|show me the "
                        r"(?:text|pdf|full text|paper)(?: of)?|bring up the (?:paper|pdf|text)(?: of)?)\b", re.I)


def is_question(message: str) -> bool:
    """A question rather than a request; "could you summarise X" is a request, "can you tell me why" a question."""
    text = message.strip()
    stripped = _REQUEST.sub("", text, count=1)
    if stripped != text and not re.match(r"(?:tell|explain|describe|say)\b", stripped, re.I):
        return text.endswith("?") and bool(_WH.search(stripped))
    return bool(_QUESTION.search(text))


def strong_question(message: str) -> bool:
    """A wh-question ending in "?": almost always an information need, whatever verbs it contains."""
    text = message.strip()
    return text.endswith("?") and bool(_WH.search(text)) and is_question(text)


def grammar(message: str, catalog: CommandCatalog, ctx: DispatchContext) -> Decision | None:
    """A message that already is a well-formed command line runs as typed."""
    word, _, rest = message.strip().partition(" ")
    info = catalog.word(word)
    if info is None:
        return None
    rest = rest.strip()
    name = info.name
    ok = {
        NONE: not rest,
        PAGE: not rest or bool(re.fullmatch(r"(?:--page[ =])?\d+", rest)),
        REF: bool(re.fullmatch(r"\d{1,4}|\S+", rest)) and (rest.isdigit() or bool(resolve.paper_ids(rest))),
        REF_PAGE: bool(re.fullmatch(r"(\S+)(?:\s+\d{1,4})?", rest))
        and (rest.split()[0].isdigit() or bool(resolve.paper_ids(rest.split()[0]))),
        TOPIC: not rest or catalog.word(rest) is not None,
        TEXT: True,
        QUERY: bool(rest),
    }.get(info.arg, False)
    if not ok:
        if info.arg in (REF, REF_PAGE) and rest and not is_question(message):
            return _command_with_reference(name, message, ctx)
        return None
    if name == "find" and slots.find_query(message):
        return None  # "find me papers about X": natural language, let the find rule take the topic
    if name == "notes" and slots.note_text(message) != rest and re.match(r"(?:that|down)\b", rest, re.I):
        return None
    if name == "save" and rest:  # "save this answer" saves the draft; only a quoted or "as X" name names it
        title = save_name(rest)
        reason = f"saves the draft as {title!r}" if title else "saves the draft (no name given: quote it or say 'as')"
        return Decision("delegate", f"save {title}" if title else "save", None, 1.0 if title else 0.95, reason,
                        stage="rule")
    line = f"{name} {rest}".strip()
    action = "navigate" if name == "open" else ("answer" if name in ("sem-search", "research") else "delegate")
    route = {"sem-search": "simple", "research": "complex"}.get(name)
    return Decision(action, line, route, 1.0, "already a command line", stage="rule")


_QUOTED = re.compile(r"[\"\u201c\u2018'](?P<t>[^\"\u201d\u2019']+)[\"\u201d\u2019']")
_NAMED = re.compile(r"\b(?:as|named|called|titled|under the (?:name|title))\s+(?P<t>.+)$", re.I)


def save_name(rest: str) -> str | None:
    """The report name in save's words: quoted ("save \"reading tools\"") or introduced by as / named /
    called; free words ("save this answer", "save it please") name nothing."""
    m = _QUOTED.search(rest)
    if m and m.group("t").strip():
        return m.group("t").strip()
    m = _NAMED.search(rest)
    if m:
        title = m.group("t").strip(" .!?\"'\u201c\u201d")
        return title or None
    return None


def _command_with_reference(name: str, message: str, ctx: DispatchContext) -> Decision | None:
    """"summarize the second one", "open that one": a command word, then a paper in words."""
    rest = message.strip().partition(" ")[2]
    named = resolve.named_paper(rest, ctx)
    if named is None and (resolve.deictic(rest) or resolve.ordinal(rest, ctx) is not None):
        return intents.which_paper(ctx, name, rest)
    if named is None:
        return None
    intent = name if name in ("summarize", "summary", "open") else None
    if intent is None:
        return None
    return intents.build(intent, message, ctx, 0.95, f"{name} and a paper named in words", "rule")


_VAGUE = re.compile(r"^(?:(?:ok|okay|yes|yeah|no|hmm+|well|so|and|then|please|um+|uh+|now|what about|how about)"
                    r"[\s,.!?]*)*"
                    r"(?:that(?: one)?|this(?: one)?|it|that thing|the other (?:one|thing)|do it|go|sure)?[\s.!?]*$",
                    re.I)


def vague(message: str, ctx: DispatchContext) -> Decision | None:
    """"that one", "ok", "do it": nothing to act on; the question back names the paper in view, if any."""
    if not _VAGUE.match(message.strip()):
        return None
    pid = resolve.current_paper(ctx)
    if pid:
        title = ctx.paper_title(pid)
        what = f"{pid}" + (f" ({title.split(':')[0]})" if title else "")
        return intents.clarify(f"What should I do with {what}? For example: open it, summarize it, add a note, "
                               "or ask a question about it.", "points at a paper but says nothing to do", 0.5)
    return intents.clarify("What do you mean? Nothing is selected or open; for example: find papers on a topic, "
                           "or ask a question about your library.", "too vague, and nothing it could point at", 0.5)


_RESUME_RESEARCH = re.compile(r"^(?:(?:please|ok|okay|now|so|then)[,\s]+)*(?:resume|continue|go on with|carry on with|"
                              r"keep going with|keep on with|finish|pick up|get back to|restart)\s+(?:the\s+|my\s+|that\s+)?"
                              r"(?:research|run|research run|report|investigation)\b", re.I)
_GO_ON = re.compile(r"^(?:(?:please|ok|okay|now|so|then)[,\s]+)*(?:go on|continue|carry on|keep going|resume|proceed|"
                    r"go ahead|finish it|pick it up again)(?:\s+(?:please|now|then))?[.!]*$", re.I)
_STEER = re.compile(r"^(?:(?:please|ok|okay|now|so|then|but|and)[,\s]+)*(?:focus|concentrate|look (?:at|into)|"
                    r"also|only|skip|ignore|leave out|include|emphasi[sz]e|prefer|stick to|limit|"
                    r"make sure|don'?t|do not|more on|less on|mostly)\b", re.I)


def resume_research(message: str, ctx: DispatchContext) -> Decision | None:
    """After an interrupted research run: "go on", "resume the research" and steering ("focus on the
    evaluation") continue it with `research --resume`, the message joining the dialogue its prompts get."""
    if not ctx.resumable:
        return None
    text = message.strip()
    last = (ctx.interrupted or "").split(" ", 1)[0].lower()
    after_research = last in ("research", "build")
    if _RESUME_RESEARCH.match(text):
        how = "asks to go on with the unfinished research"
    elif after_research and (_GO_ON.match(text) or (_STEER.match(text) or _IMPROVE_START.match(text))
                             and not is_question(text) and resolve.page(text) is None):  # "look at page 3": a move
        how = "an instruction right after the research was interrupted"
    else:
        return None
    return Decision("delegate", "research --resume", None, 0.9,
                    f"{how}: research --resume finishes '{ctx.resumable[:60]}' with this in the dialogue")


def navigation(message: str, ctx: DispatchContext) -> Decision | None:
    """next / previous / back / "page 7" / "page 7 of the CiteSee paper": no retrieval, no model."""
    text = message.strip()
    if NEXT_RE.match(text):
        return intents.build("next", text, ctx, 0.95, "", "rule")
    if PREV_RE.match(text):
        return intents.build("previous", text, ctx, 0.95, "", "rule")
    page = resolve.page(text)
    if page is None or _OTHER_VERBS.search(text):
        return None
    if is_question(text) and not _NAV_VERB.match(text):
        return None
    words = len(re.findall(r"\w+", text))
    if not (_NAV_VERB.match(text) or re.match(r"^(?:the\s+)?(?:page|p\.?)\s*\d+\b", text, re.I)) and words > 6:
        return None
    named = resolve.named_paper(text, ctx, allow_deictic=True)
    if named is None:
        pid = ctx.reader[0] if ctx.reader else resolve.current_paper(ctx)
        if pid is None:
            return intents.which_paper(ctx, f"open at page {page}", text)
        named = resolve.Named(pid, pid, "deictic")
    where = "the paper open in the reader" if ctx.reader and named.paper_id == ctx.reader[0] else (
        f"result {named.ref}" if named.how == "ordinal" else named.paper_id)
    return Decision("navigate", f"open {named.ref} {page}", None, 0.95, f"page {page} of {where}", stage="rule")


def open_paper(message: str, ctx: DispatchContext) -> Decision | None:
    """"open / read / view <a paper the session can name>" is navigation, decided without the exemplars."""
    text = message.strip()
    if not _OPEN_VERB.match(text) or is_question(text) or _OTHER_VERBS.search(text):
        return None
    if resolve.named_paper(text, ctx, allow_deictic=False) is None:
        return None
    return intents.build("open", text, ctx, 0.92, "asks to read a paper", "rule")


def cue(message: str, ctx: DispatchContext) -> Decision | None:
    """Intents whose phrasing makes them certain; the rest goes to the exemplars."""
    text = slots.clean(message)
    if _LIBRARY_SEARCH.match(text):
        from paperdesk.core.dispatch import router

        return router.route_question(message, ctx, None, 0.9, "rule")
    if _NOTE_START.match(text) and slots.note_text(message):
        return intents.build("notes", message, ctx, 0.92, "asks to add to the paper's notes", "rule")
    if (_FIND_START.match(text) or _FIND_CUE.search(text)) and slots.find_query(message) \
            and not _LIBRARY.search(text) and not re.match(r"^(?:what|which|how|why)\b", text, re.I):
        return intents.build("find", message, ctx, 0.92, "asks for papers on a topic (arXiv)", "rule")
    if ctx.state == "draft-plan" and (_IMPROVE_START.match(text) or _PLAN_FEEDBACK.match(text)):
        return intents.build("improve", message, ctx, 0.9, "feedback on the plan under review", "rule")
    if ctx.draft_kind and _IMPROVE_START.match(text):
        return intents.build("improve", message, ctx, 0.9, f"an instruction about the {ctx.draft_kind} draft", "rule")
    keep = _KEEP_DRAFT.match(text)
    if ctx.draft_kind and keep:  # "keep this as \"X\"": save, named only by quotes or "as"
        title = save_name(keep.group("rest"))
        return Decision("delegate", f"save {title}" if title else "save", None, 0.9,
                        f"asks to keep the {ctx.draft_kind} draft" + (f" as {title!r}" if title else ""))
    return None


_KEEP_DRAFT = re.compile(r"^(?:keep|store|file|finali[sz]e)\s+(?P<rest>(?:this|it|that|the (?:answer|report|draft|"
                         r"summary))(?:\s+(?:as|named|called|titled|under)\b.*|\s*[\"\u201c'].*|[\s.!]*))$", re.I)
