"""Section-aware chunking of page paragraphs into overlapping word windows."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from paperdesk.core.db.store import NewChunk

FRONT_MATTER = "Front matter"
REFERENCES = "References"

_NUMBERED = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[A-H](?:\.\d{1,2}){0,3}\.?|[IVX]{1,4}\.)\s+(?:\[\w+\]\s+)?[A-Z]")
_NUMBER_PREFIX = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[A-H](?:\.\d{1,2}){1,3}\.?|[IVX]{1,4}\.)\s+")
_KNOWN_SET = frozenset({
    "abstract", "introduction", "background", "related work", "related works", "prior work",
    "method", "methods", "methodology", "approach", "experiments", "experimental setup", "evaluation",
    "results", "discussion", "conclusion", "conclusions", "limitations", "future work", "references",
    "bibliography", "acknowledgments", "acknowledgements", "acknowledgment", "acknowledgement",
    "appendix", "appendices", "supplementary material", "keywords", "ccs concepts", "index terms",
    "ethics statement", "ethical considerations", "broader impact", "impact statement",
})
KNOWN_HEADINGS = _KNOWN_SET  # well-known section names, lower case
_APPENDIX = re.compile(r"^(?:appendix|APPENDIX|Appendix)(?:es)?(?:\s+[A-Z0-9][.:]?(?:\s|$).*)?$")
_CASE_WORD = re.compile(r"[^\W\d_]+")
_MID_SENTENCE = re.compile(r"[a-z]{2}\. [A-Z]")
_REFERENCE_NAMES = frozenset({"references", "bibliography", "reference", "literature cited", "works cited"})
_ABBREV = frozenset({"al.", "e.g.", "i.e.", "etc.", "fig.", "figs.", "eq.", "eqs.", "vs.", "cf.", "no.", "sec.", "et."})
_SENTENCE_END = re.compile(r"[.?!][)\]\"'”’]*$")


@dataclass(slots=True)
class Para:
    """A paragraph or heading of one page, in reading order."""

    page: int  # 1-based page number
    text: str
    heading: bool = False
    label: str | None = None  # section label this paragraph opens (headings, front matter)
    continues: bool = False  # goes on from the previous page's last paragraph


def heading_base(text: str) -> str:
    """A heading's name without its number, in lower case: "2.1. Methods" is "methods"."""
    return _NUMBER_PREFIX.sub("", text).strip(" .:").lower()


def is_text_heading(text: str) -> bool:
    """Whether a short line reads as a heading by text alone: numbered or a well-known name."""
    if len(text) > 120:
        return False
    base = heading_base(text)
    if base in _KNOWN_SET:
        return True
    if text.endswith((".", ",", ";", ":")) or _MID_SENTENCE.search(text):  # prose or a list item
        return False
    if _APPENDIX.match(text):
        return True
    return bool(_NUMBERED.match(text)) and len(text.split()) <= 14


def heading_label(text: str) -> str:
    """The section label for a heading: whitespace tidied, References/Bibliography unified."""
    text = " ".join(text.split()).rstrip(" .:")
    return REFERENCES if heading_base(text) in _REFERENCE_NAMES else text


def smart_case(heading: str, cased: dict[str, str]) -> str:
    """Turn an ALL-CAPS heading into title case, keeping spellings the body uses (CiteSee, CCS)."""
    if heading.upper() != heading:
        return heading
    small = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "vs", "via", "with"}
    out = []
    for i, w in enumerate(heading.split()):
        low = w.lower()
        if low in cased:
            out.append(cased[low])
        elif i and low in small:
            out.append(low)
        else:
            out.append(w[:1] + w[1:].lower())
    return " ".join(out)


def cased_words(paras: list[Para]) -> dict[str, str]:
    """Map lower-case word -> body spelling for words the body writes with inner capitals."""
    counts: Counter[str] = Counter()
    for p in paras:
        if not p.heading:
            # CiteSee, BERT, CCS; not shouted long words like COMPOSITION.
            counts.update(w for w in _CASE_WORD.findall(p.text)
                          if len(w) > 1 and w[1:] != w[1:].lower() and (len(w) <= 5 or w != w.upper()))
    out: dict[str, str] = {}
    for w, _ in counts.most_common():
        out.setdefault(w.lower(), w)
    return out


def label_headings(paras: list[Para]) -> None:
    """Label unlabelled headings: ALL CAPS smart-cased, References/Bibliography unified."""
    cased: dict[str, str] | None = None
    for p in paras:
        if p.heading and p.label is None:
            if cased is None and p.text.upper() == p.text:
                cased = cased_words(paras)  # only documents with ALL-CAPS headings need it
            p.label = heading_label(smart_case(p.text, cased or {}))


_FLOAT_CAPTION = re.compile(r"^(?:Figure|FIGURE|Fig\.|FIG\.|Table|TABLE|Tab\.)\s*(?:[0-9]{1,3}|[IVX]{1,5})[a-z]?(?:[.:|]|\s)")


def _is_caption(p: Para) -> bool:
    return not p.heading and p.label is None and bool(_FLOAT_CAPTION.match(p.text))


def captions_after_sentences(pages: Sequence[list[Para]]) -> int:
    """Move a figure's or table's caption that cuts a sentence in two to after the paragraph that ends it.

    A float set at the top of a page, or between two halves of a paragraph, puts its caption in reading
    order between the sentence's start (the previous paragraph, not ended) and its end; the caption then
    goes after the next paragraph of its own page, so the sentence reads whole and the caption's page stays
    its own. Works on each page's paragraphs in place; returns how many captions moved."""
    moved = 0
    last: Para | None = None  # the last paragraph before this page's, across pages
    for paras in pages:
        i = 0
        while i < len(paras):
            if not _is_caption(paras[i]) or last is None or last.heading or last.text[-1:] in ".?!:":
                if not _is_caption(paras[i]):
                    last = paras[i]
                i += 1
                continue
            j = i
            while j < len(paras) and _is_caption(paras[j]):
                j += 1
            if j == len(paras) or paras[j].heading or paras[j].label is not None:
                i = j
                continue
            nxt = paras.pop(j)
            nxt.continues = nxt.continues or (i == 0 and nxt.text[:1].islower())
            paras.insert(i, nxt)
            moved += 1
            last = nxt
            i = j + 1
    return moved


def _join_across(left: str, right: str) -> str:
    # Across pages there is no vocabulary at hand: keep compounds, join syllable breaks.
    stem = left[:-1]
    return left + right if "-" in stem else stem + right


def _sections(paras: Iterable[Para]) -> list[tuple[str, list[str], list[int]]]:
    sections: list[tuple[str, list[str], list[int]]] = []
    words: list[str] = []
    pages: list[int] = []
    for p in paras:
        if p.heading or p.label is not None:
            words, pages = [], []
            sections.append((p.label if p.label is not None else heading_label(p.text), words, pages))
        elif not sections:
            sections.append(("", words, pages))
        new = p.text.split()
        if not new:
            continue
        if p.continues and words and words[-1].endswith("-") and words[-1][-2:-1].isalpha() and new[0][:1].islower():
            words[-1] = _join_across(words[-1], new.pop(0))
        words.extend(new)
        pages.extend([p.page] * len(new))
    return [s for s in sections if s[1]]


def _merge_tiny(sections: list[tuple[str, list[str], list[int]]], min_words: int) -> list[tuple[str, list[str], list[int]]]:
    """Fold sections too small to stand alone into the next one (the last into the previous).

    References never absorb another section: a tiny Acknowledgments before them stays alone.
    """
    out: list[tuple[str, list[str], list[int]]] = []
    carry: tuple[str, list[str], list[int]] | None = None
    for label, words, pages in sections:
        if carry is not None:
            if label == REFERENCES:
                out.append(carry)
            else:
                words, pages = carry[1] + words, carry[2] + pages
            carry = None
        if len(words) < min_words and label != REFERENCES:
            carry = (label, words, pages)
        else:
            out.append((label, words, pages))
    if carry is not None:
        if out and out[-1][0] != REFERENCES:
            label, words, pages = out.pop()
            carry = (label, words + carry[1], pages + carry[2])
        out.append(carry)
    return out


def _is_sentence_end(word: str) -> bool:
    return bool(_SENTENCE_END.search(word)) and word.lower() not in _ABBREV and not (len(word) == 2 and word[0].isupper())


def _break_at(words: list[str], start: int, chunk_words: int) -> int:
    """End index near start+chunk_words, preferring a sentence end within ±20%."""
    target = start + chunk_words
    best, best_dist = target, chunk_words
    for i in range(start + int(chunk_words * 0.8), min(len(words), start + int(chunk_words * 1.2)) + 1):
        if _is_sentence_end(words[i - 1]) and abs(i - target) < best_dist:
            best, best_dist = i, abs(i - target)
    return best


def chunk_paragraphs(paras: Iterable[Para], chunk_words: int = 300, overlap_words: int = 50) -> list[NewChunk]:
    """Split paragraphs into chunks of about `chunk_words` words, never across sections.

    Consecutive chunks of one section share `overlap_words` words; a section
    smaller than a fifth of a chunk is folded into its neighbour. No chunk is
    longer than 1.25 * chunk_words words.
    """
    if chunk_words < 10 or not 0 <= overlap_words <= chunk_words // 2:
        raise ValueError("chunk_words must be >= 10 and 0 <= overlap_words <= chunk_words / 2")
    paras = list(paras)
    label_headings(paras)
    chunks: list[NewChunk] = []
    limit = int(chunk_words * 1.25)
    for label, words, pages in _merge_tiny(_sections(paras), max(20, chunk_words // 5)):
        n, start = len(words), 0
        while True:
            end = n if n - start <= limit else _break_at(words, start, chunk_words)
            chunks.append(NewChunk(pages[start], pages[end - 1], label, " ".join(words[start:end])))
            if end >= n:
                break
            start = end - overlap_words
    return chunks


def text_paragraphs(page_no: int, text: str) -> list[Para]:
    """Paragraphs of stored page text (blank-line separated); headings found by text alone."""
    out = []
    for block in text.split("\n\n"):
        block = " ".join(block.split())
        if block:
            out.append(Para(page_no, block, heading=len(block.split()) <= 14 and is_text_heading(block)))
    if out and not out[0].heading and out[0].text[:1].islower():
        out[0].continues = True
    return out


def chunk_pages(pages: Sequence[str | Sequence[Para]], chunk_words: int = 300, overlap_words: int = 50) -> list[NewChunk]:
    """Chunk a document given per page either as text (pages[0] is page 1) or as Para lists.

    Plain text is how pages are stored in the library, so chunks can be rebuilt
    with other sizes without the PDF; headings are then found by text alone.
    """
    paras: list[Para] = []
    for i, page in enumerate(pages, start=1):
        paras.extend(text_paragraphs(i, page) if isinstance(page, str) else page)
    return chunk_paragraphs(paras, chunk_words, overlap_words)
