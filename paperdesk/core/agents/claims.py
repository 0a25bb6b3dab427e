"""What a generated sentence claims, checked against the text it cites: numbers, names, DOIs, content words.

A small model writes sentences that sound right and are close in meaning to
a page, yet say what the page does not ("The paper is part of the book
chapter ...", "This is similar to 20 years ago ..."). Embedding similarity
cannot see that, so a sentence is supported only when, besides being close,
every number, name, DOI and address it states is in the passage, and so is
each item of a list it gives ("images, tables, and figures") and each count
("two experiments" must count experiments there), and most of its content
words are too. `debris` cleans half-written citation markers
("[p [p. 1].]", "[p.", "[pp. ]") the model leaves behind.
"""

from __future__ import annotations

import re

from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.quality import _UNITS, unsupported_numbers

COVER_MIN = 0.6  # share of a sentence's content words the passage must contain
# A sentence shown to a reader as the paper's (a summary sentence, a discussion answer) is held to more:
# at 0.6 "The researchers performed two experiments" passed on two of its three content words, and vague
# paraphrases ("a new way of improving X") on two words of three.
SENTENCE_COVER = 0.7
# ... and most of all its words, the generic ones included, must be on the pages it cites: a sentence that
# frames the paper's topic in words its pages never use ("presents a detailed method for quantifying X")
# holds the topic's words and states nothing the pages say.
SENTENCE_WORDS = 0.6
STEM = 5  # words are compared by their first letters, once a suffix is off: "write" matches "writing"
_SUFFIX = re.compile(r"(?:ations?|ings?|ions?|ers?|ed|es|ly|s|e)$")

_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\]\),;]+", re.I)
_URL = re.compile(r"\bhttps?://[^\s\]\),;]+|\bwww\.[^\s\]\),;]+", re.I)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*")
# Words a summary uses about any paper: they say nothing the page has to state.
_GENERIC = frozenset(
    "paper papers author authors study studies work works propose proposes proposed present presents presented "
    "introduce introduces introduced describe describes described discuss discusses discussed show shows shown "
    "showed find finds found finding findings result results method methods approach approaches also using used "
    "use uses based section sections provide provides provided focus focuses focused address addresses addressed "
    "aim aims main overall further however therefore thus while well new novel various several different "
    "research researchers article this that these those their there which what when where with from into about "
    "have has had been being were was will would could should might must more most such some other each both "
    "they them then than only also very many much include includes including specific specifically key "
    "important problem limitation limitations way ways help helps allow allows make makes made".split())
# Capitalised words that are not names when they open a clause.
_NOT_NAMES = frozenset(
    "the a an this that these those it its in on of for to and or but we our they their however finally first "
    "second third then also while although both each as by with from at is are was were be overall moreover "
    "furthermore additionally specifically instead unlike like table figure fig section appendix equation "
    "problem method results limitations i".split())
# a list of three or more short items: "images, tables, and figures", "BLEU, ROUGE or METEOR"
_ITEM = r"[A-Za-z][\w'-]*(?: [A-Za-z][\w'-]*){0,2}"
_LIST = re.compile(rf"{_ITEM}(?:, {_ITEM}){{1,}},? (?:and|or) {_ITEM}")
_HALF_OPEN = re.compile(r"\[\s*pp?\.?\s*(?:\d+\s*(?:[-–]\s*\d*)?)?\s*$")  # "[p. 3" cut off at the end


def debris(text: str) -> str:
    """`text` without malformed or half-written page markers; well-formed "[p. N]" stay."""
    keep: list[str] = []

    def hold(match: re.Match[str]) -> str:
        keep.append(match.group(0))
        return f"\x00{len(keep) - 1}\x00"

    held = CITATION.sub(hold, text)
    # "[p [p. 1].]" -> the outer "[p" and ".]" are debris once the inner marker is held
    held = re.sub(r"\[\s*pp?\.?\s*(?=\x00)", "", held)
    held = re.sub(r"(\x00\d+\x00)([.!?]?)\s*\]", r"\1\2", held)
    held = re.sub(r"\[\s*pp?\.?\s*(?:\d+\s*[-–]?\s*)?\]?(?=[\s.,;:!?]|$)", "", held)  # "[p.]", "[pp. ]", "[p. 3"
    held = re.sub(r"\[\s*\]", "", held)
    held = _HALF_OPEN.sub("", held)
    out = re.sub(r"\x00(\d+)\x00", lambda m: keep[int(m.group(1))], held)
    out = re.sub(r"[ \t]+([.,;:!?])", r"\1", out)
    return re.sub(r"[ \t]{2,}", " ", out).strip()


def _stem(word: str) -> str:
    low = word.lower()
    return (_SUFFIX.sub("", low) if len(low) > 4 else low)[:STEM]


def content_words(sentence: str, every: bool = False) -> list[str]:
    """Lower-case words of 4+ letters that say something about this paper (generic summary words left out,
    unless `every`)."""
    bare = CITATION.sub(" ", sentence)
    return [w.lower() for w in _TOKEN.findall(bare)
            if len(w) >= 4 and (every or w.lower() not in _GENERIC) and w.lower() not in _UNITS]


def coverage(sentence: str, passage: str, every: bool = False) -> float:
    """Share of the sentence's content words (all its words of 4+ letters with `every`), by stem, that occur
    in the passage; 1.0 with none."""
    mine = content_words(sentence, every)
    if not mine:
        return 1.0
    theirs = {_stem(w) for w in _TOKEN.findall(passage)}
    return sum(1 for w in mine if _stem(w) in theirs) / len(mine)


def names(sentence: str) -> list[str]:
    """Names a sentence states: capitalised words inside it, acronyms and words with digits ("S2ORC", "GPT-4")."""
    bare = CITATION.sub(" ", sentence)
    found: list[str] = []
    for i, match in enumerate(_TOKEN.finditer(bare)):
        word = match.group(0)
        before = bare[: match.start()].rstrip()
        opens = i == 0 or before.endswith((".", ":", "!", "?", "“", "\"", "(", "-", "•", "*"))
        acronym = sum(c.isupper() for c in word) >= 2 or (any(c.isdigit() for c in word) and word[:1].isupper())
        if acronym or (word[:1].isupper() and not opens and word.lower() not in _NOT_NAMES):
            found.append(word)
    return found


def _has_name(name: str, passage_words: set[str], passage_lower: str) -> bool:
    low = name.lower()
    return low in passage_words or low in passage_lower.replace("\n", " ") and len(low) >= 4


def unsupported_claims(sentence: str, passage: str, around: str = "") -> list[str]:
    """What `sentence` states that `passage` does not: numbers, names, DOIs and addresses ([] when none).

    Numbers may also come from `around` (the passage's page: a chunk can split a figure from its words)."""
    missing: list[str] = []
    passage_lower = " ".join(passage.split()).lower()
    squeezed = passage_lower.replace(" ", "")
    for ref in _DOI.findall(sentence) + _URL.findall(sentence):
        if ref.rstrip(".").lower().replace(" ", "") not in squeezed:
            missing.append(ref.rstrip("."))
    body = _URL.sub(" ", _DOI.sub(" ", sentence))
    missing += [f"{n:g}" for n in unsupported_numbers(body, f"{passage} {around}")]
    passage_words = {w.lower() for w in _TOKEN.findall(passage)}
    missing += [n for n in names(body) if not _has_name(n, passage_words, passage_lower)]
    stems = {_stem(w) for w in passage_words}
    missing += [item for item in list_items(body) if _stem(item) not in stems and item not in missing]
    missing += [c for c in counts(body) if not counted_on(f"{passage} {around}", c) and c not in missing]
    return missing


def counts(sentence: str) -> list[str]:
    """What the sentence counts: a number and the word it counts ("two experiments", "40 participants"),
    where that word is a content word. Numbers naming a table, figure, section or page are not counts."""
    found: list[str] = []
    tokens = _COUNT_TOKEN.findall(CITATION.sub(" ", sentence))
    for i, token in enumerate(tokens[:-1]):
        if _is_number(token) and not (i and tokens[i - 1].lower().rstrip(".") in _NAMES_A_NUMBER):
            noun = tokens[i + 1].lower()
            if len(noun) >= 4 and noun.isalpha() and noun not in _GENERIC and noun not in _UNITS \
                    and not _is_number(noun):
                found.append(f"{token.lower()} {noun}")
    return found


def counted_on(passage: str, count: str) -> bool:
    """Whether the passage states `count` ("two experiments"): that number at most three words before the
    counted word, or just after it ("participants (n = 40)")."""
    number, noun = count.split(" ", 1)
    value = _value(number)
    tokens = _COUNT_TOKEN.findall(passage)
    for i, token in enumerate(tokens):
        if _is_number(token) and _value(token) == value:
            near = tokens[max(0, i - 2): i] + tokens[i + 1: i + 4]
            if any(_stem(w) == _stem(noun) for w in near):
                return True
    return False


_COUNT_TOKEN = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?%?|[A-Za-z][A-Za-z'-]*")
_NAMES_A_NUMBER = frozenset("table tables figure figures fig section sections page pages p pp chapter equation eq "
                            "appendix step steps version v turn round stage phase level rq".split())


def _is_number(token: str) -> bool:
    return token[:1].isdigit() or token.lower() in _UNITS


def _value(token: str) -> float:
    low = token.lower().rstrip("%")
    return float(_UNITS[low]) if low in _UNITS else float(low.replace(",", ""))


def list_items(sentence: str) -> list[str]:
    """The word that names each item of a list of three or more the sentence gives ("images, tables, and
    figures" -> images, tables, figures), where it is a content word: a list is a set of claims, and a
    model fills one with what such papers usually have. An item is named by its last word, the list's last
    item by its first (what follows it may be the sentence's verb: "notes, and reports are stored")."""
    heads: list[str] = []
    for match in _LIST.finditer(CITATION.sub(" ", sentence)):
        items = [i.split() for i in re.split(r",\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", match.group(0))]
        for n, words in enumerate(w for w in items if w):
            head = (words[0] if n == len(items) - 1 else words[-1]).lower().removesuffix("'s")
            if len(head) >= 4 and head not in _GENERIC and head not in _UNITS:
                heads.append(head)
    return heads


def supports(sentence: str, passage: str, around: str = "", cover_min: float = COVER_MIN,
             words_min: float = 0.0) -> tuple[bool, str]:
    """(passage supports the sentence, why not): its claims are in the passage and `cover_min` of its
    content words; with `words_min`, that share of all its words is on the passage and its pages.

    Only numbers may come from `around` (the rest of the page, whose reference list or footnotes would
    otherwise lend their words to any sentence)."""
    missing = unsupported_claims(sentence, passage, around)
    if missing:
        return False, "not on the page: " + ", ".join(dict.fromkeys(missing))
    share = coverage(sentence, passage)
    if share < cover_min:
        return False, f"{share:.0%} of its words on the page"
    if words_min:
        every = coverage(sentence, f"{passage} {around}", every=True)
        if every < words_min:
            return False, f"{every:.0%} of all its words on the pages"
    return True, ""
