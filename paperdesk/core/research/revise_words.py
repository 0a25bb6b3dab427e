"""The words `revise` reads: how feedback is cleaned, split, and recognised (patterns per kind of change).

Kept apart from revise.py, which turns a recognised change into a plan; see its docstring for the list.
"""

from __future__ import annotations

import re

LEAD = re.compile(r"^(?:please|pls|could you|can you|would you|i(?:'d| would) like (?:you |it |the plan )?to|"
                  r"i want (?:you |it |the plan )?to|let'?s|let us|maybe|just|and|but|ok(?:ay)?|so|then|instead)"
                  r"[\s,]+", re.I)
INTERJECTION = re.compile(r"^(?:no|nope|hmm+|well|actually),\s*", re.I)  # "no, focus on ..." ("no arxiv" stays)
THEN = re.compile(r"\s*(?:;|,?\s+and then\s+|,?\s+then\s+|,\s*and\s+|\s+and\s+(?=(?:drop|remove|delete|skip|"
                  r"list|name|focus|also|add|use|fewer|more|only)\b))\s*", re.I)  # "drop step 2 and focus on X"
TAIL = re.compile(r"[\s,]+(?:please|pls|too|as well|instead|thanks?|thank you)$", re.I)
PRONOUNS = {"that", "this", "it", "those", "these", "them", "that one", "this one", "the above", "what i said",
            "what i asked", "what i mentioned", "what we discussed", "what i asked for", "what i meant"}
BACK_REF = re.compile(r"^(?:(?:do|follow|apply|use)\s+)?(?:(?:as|what|like)\s+(?:i|we)(?:'ve| have)?\s+"
                      r"(?:said|asked|discussed|wrote|mentioned|suggested|meant)(?:\s+(?:above|before|earlier))?|"
                      r"as discussed|that|it|this|(?:see|per)\s+(?:the\s+)?(?:dialogue|above))$", re.I)


def clean(text: str) -> str:
    """The feedback without politeness and filler around it: "ok, so please drop step 2, thanks" -> "drop step 2"."""
    text = " ".join(text.split()).strip(" .!;")
    for _ in range(4):  # "ok, so please drop step 2, thanks"
        stripped = TAIL.sub("", LEAD.sub("", INTERJECTION.sub("", text))).strip(" .!;")
        if stripped == text:
            break
        text = stripped
    return text


def user_messages(dialogue: str) -> list[str]:
    """The user's own messages in a dialogue block ("- User: ..." lines), oldest first; plain lines otherwise."""
    lines = [line.strip() for line in dialogue.splitlines() if line.strip()]
    said = [m.group(1) for line in lines if (m := re.match(r"^- User[^:]*:\s*(.+)$", line))]
    if said or any(line.startswith("User dialogue") for line in lines):
        return said
    return lines


# -- the kinds of feedback (revise.py tries them in this order) -------------------------------------

DIRECT = re.compile(r"^step\s+(add|drop|edit|move)\b\s*(.*)$", re.I)
DROP = re.compile(r"^(?:drop|remove|delete|skip|cut|omit|lose|get rid of|leave out|take out|"
                  r"don'?t (?:do|run|use|search)|no|without)\b\s*(.*)$", re.I)
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8}
TOOL_WORDS = [  # (pattern, tool, every matching step?) for "the <tool> step"
    (r"arxiv", "arxiv_search", True),
    (r"answers", "answer", True), (r"answer(?:ing)?", "answer", False),
    (r"(?:list|extract(?:ion)?|name)s", "extract_list", True), (r"list|extract(?:ion)?|names?", "extract_list", False),
    (r"read(?:ing)?s|per[- ]paper reads", "read_paper", True), (r"read(?:ing)?|per[- ]paper", "read_paper", False),
    (r"summar(?:y|ies)", "paper_summary", False),
    (r"(?:library )?searche?s", "library_search", True), (r"(?:library )?search(?:ing)?", "library_search", False),
]
KINDS = [("dataset", r"datasets?|data ?sets?|corpus|corpora|benchmarks?|collections?"),
         ("method", r"methods?|models?|approach(?:es)?|baselines?|algorithms?|techniques?|systems?"),
         ("metric", r"metrics?|measures?|scores?|evaluation measures?")]
LIST = re.compile(r"^(?:also\s+|and\s+)*(?:list|name|extract|enumerate|collect|gather|pull out|find|show|"
                  r"give(?: me)?|add(?: a)? list of)\b\s*(.*)$", re.I)
PASSAGES = r"passages?|results?|hits?|chunks?|sources?|documents?"
AMOUNT = (rf"^(?:(?:use|retrieve|get|search|read|take|with|want|need|give me)\s+)?(?:(?:a bit|a little|far|much|"
          rf"a lot|many|even)\s+)?(?:{{}})\s+(?:(?:search|library)\s+)?(?:{PASSAGES})"
          rf"(?:\s+(?:per|each|a|in each)\s+search)?$")
FEWER = re.compile(AMOUNT.format("fewer|less|smaller|reduce the|a smaller number of|not so many"), re.I)
MORE = re.compile(AMOUNT.format("more|larger|bigger|increase the|a larger number of|extra"), re.I)
COUNT = re.compile(rf"^(?:use |only |just |retrieve |search |get |read |take )*(?:top )?(\d+) (?:{PASSAGES})"
                   rf"(?: (?:per|each|a) search)?$|^top (\d+)$|^k ?= ?(\d+)$", re.I)
FOCUS = re.compile(r"^(?:focus|concentrate|narrow(?: it| the searches?)?(?: down)?|restrict(?: it)?|"
                   r"limit(?: it)?|only look|look only)\s+(?:on|to|at)\s+(.+)$|^only (?:about|on) (.+)$", re.I)
ALSO = re.compile(r"^(?:also|additionally|plus|as well)\s+(.+)$|"
                  r"^(?:add|include|cover|mention|consider)\s+(?:a (?:step|question|search) (?:about|on|for)\s+|"
                  r"something (?:about|on)\s+)?(.+)$|"
                  r"^(?:what|how) about\s+(.+)$|^(?:search|look)(?: the library)? for\s+(.+)$", re.I)
ASKS = re.compile(r"^(?:what|which|how|why|when|where|who|is|are|does|do|did|can|compare|list|name|describe|"
                  r"explain|summari[sz]e|find|show)\b", re.I)
