"""BibTeX in and out: entries for library papers, and a small parser for files from Zotero, JabRef, papis.

Export writes `@misc` entries (arXiv's own recommendation for preprints):
title, author, year, eprint + archivePrefix + primaryClass for arXiv papers,
doi and url where known, the local PDF as `file`, tags as `keywords`.
Citation keys are `<first author's surname><year><first title word>`,
made unique within a library by a/b/c suffixes; the library pins a key the
first time it is used, so a key never changes under a user's paper.

The parser reads `@type{key, name = {..} | ".." | 123 | macro # ..}` entries,
skips @comment / @preamble, expands @string macros, and raises BibtexError
with the line number for anything it cannot read.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

from paperdesk.core.errors import PaperdeskError

if TYPE_CHECKING:
    from paperdesk.core.db.store import Paper


class BibtexError(PaperdeskError):
    """A BibTeX file that cannot be read; the message names the line."""


@dataclass
class Entry:
    type: str  # lower case: article, misc, inproceedings ...
    key: str
    fields: dict[str, str] = field(default_factory=dict)  # names lower case, values unescaped
    line: int = 0  # where the entry starts in its file


# -- export ----------------------------------------------------------------------------------------

_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
VERBATIM = {"file", "url", "doi", "eprint"}  # biblatex reads these as they are: a path's _ must stay _
_STOP = {"a", "an", "the", "on", "of", "for", "in", "to", "and", "with", "towards", "toward", "from", "is", "are"}


def escape(text: str) -> str:
    """A value as BibTeX/LaTeX text: special characters escaped, whitespace collapsed."""
    return "".join(_SPECIAL.get(ch, ch) for ch in " ".join(text.split()))


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def base_key(paper: "Paper") -> str:
    """`surname` + `year` + `first title word` in lower-case ASCII, e.g. chang2023citesee."""
    surname = ""
    if paper.authors:
        first = paper.authors[0].strip()
        surname = first.split(",")[0] if "," in first else (first.split() or [""])[-1]
    words = [_ascii_word(w) for w in re.split(r"[\s\-:/]+", paper.title)]
    word = next((w for w in words if w and w not in _STOP), "")
    year = (paper.published or "")[:4] if (paper.published or "")[:4].isdigit() else ""
    return (_ascii_word(surname) + year + word) or "paper"


def assign_keys(papers: Iterable["Paper"], pinned: dict[str, str]) -> dict[str, str]:
    """paper id -> citation key: pinned keys stay; new ones get a/b/c suffixes so none repeats."""
    keys: dict[str, str] = {}
    taken = set(pinned.values())
    for paper in sorted(papers, key=lambda p: (p.added, p.id)):  # oldest first: its key is the plain one
        if paper.id in pinned:
            keys[paper.id] = pinned[paper.id]
            continue
        stem = base_key(paper)
        key, n = stem, 0
        while key in taken:
            key = stem + _suffix(n)
            n += 1
        taken.add(key)
        keys[paper.id] = key
    return keys


def _suffix(n: int) -> str:
    letters = ""
    n += 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(ord("a") + rem) + letters
    return letters


def entry_for(paper: "Paper", key: str, doi: str | None = None, tags: Iterable[str] = ()) -> str:
    """One @misc entry for a library paper."""
    rows: list[tuple[str, str]] = [("title", paper.title)]
    if paper.authors:
        rows.append(("author", " and ".join(paper.authors)))
    if paper.published and paper.published[:4].isdigit():
        rows.append(("year", paper.published[:4]))
        if len(paper.published) >= 7 and paper.published[5:7].isdigit():
            rows.append(("month", str(int(paper.published[5:7]))))
    if paper.arxiv_id:
        rows += [("eprint", paper.arxiv_id + (f"v{paper.version}" if paper.version else "")),
                 ("archiveprefix", "arXiv")]
        if paper.categories:
            rows.append(("primaryclass", paper.categories[0]))
    if doi:
        rows.append(("doi", doi))
    url = paper.source_url or (f"https://arxiv.org/abs/{paper.arxiv_id}" if paper.arxiv_id else "")
    if url:
        rows.append(("url", url))
    if paper.abstract:
        rows.append(("abstract", paper.abstract))
    tags = list(tags)
    if tags:
        rows.append(("keywords", ", ".join(tags)))
    if paper.pdf_path:
        rows.append(("file", paper.pdf_path))
    rows.append(("note", f"paperdesk id {paper.id}"))
    names = {"archiveprefix": "archivePrefix", "primaryclass": "primaryClass"}
    body = ",\n".join(f"  {names.get(name, name)} = {{{value if name in VERBATIM else escape(value)}}}"
                       for name, value in rows)
    return f"@misc{{{key},\n{body}\n}}\n"


def export(papers: Iterable["Paper"], keys: dict[str, str], dois: dict[str, str],
           tags: dict[str, list[str]]) -> str:
    """A whole .bib file for `papers`, in the order given."""
    return "\n".join(entry_for(p, keys[p.id], dois.get(p.id), tags.get(p.id, ())) for p in papers)


# -- import ---------------------------------------------------------------------------------------

_MONTHS = {m: str(i) for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_UNESCAPE = re.compile(r"\\(textbackslash|textasciitilde|textasciicircum)\{\}|\\([{}&%$#_])")


def unescape(text: str) -> str:
    """Undo `escape` (and drop the braces BibTeX uses to protect capitals)."""
    # escaped braces and backslashes become placeholders so the brace stripping below leaves them
    held = {"textbackslash": "\x01", "textasciitilde": "~", "textasciicircum": "^", "{": "\x02", "}": "\x03"}

    def one(m: re.Match[str]) -> str:
        return held.get(m.group(1) or m.group(2), m.group(2) or "")

    marked = _UNESCAPE.sub(one, text).replace("{", "").replace("}", "")
    return " ".join(marked.replace("\x01", "\\").replace("\x02", "{").replace("\x03", "}").split())


_SPACE = re.compile(r"\s*")
_BRACE_OR_ESCAPE = re.compile(r"\\.|[{}]", re.S)  # an escaped character is skipped whole, as \{ or \\


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0
        self._counted, self._lines = 0, 1  # newlines counted up to `_counted`: each entry counts only its own

    @property
    def line(self) -> int:
        if self.pos < self._counted:  # moved back (an error after a retreat): count from the start
            self._counted, self._lines = 0, 1
        self._lines += self.text.count("\n", self._counted, self.pos)
        self._counted = self.pos
        return self._lines

    def fail(self, what: str) -> BibtexError:
        return BibtexError(f"line {self.line}: {what}")

    def skip_space(self) -> None:
        self.pos = _SPACE.match(self.text, self.pos).end()

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str) -> None:
        self.skip_space()
        if self.peek() != ch:
            found = repr(self.peek()) if self.peek() else "the end of the file"
            raise self.fail(f"expected {ch!r}, found {found}")
        self.pos += 1

    def name(self, what: str) -> str:
        self.skip_space()
        m = re.compile(r"[^\s,={}()\"#%'~]+").match(self.text, self.pos)
        if not m:
            raise self.fail(f"expected {what}")
        self.pos = m.end()
        return m.group(0)

    def braced(self) -> str:
        start, depth = self.pos, 0
        for m in _BRACE_OR_ESCAPE.finditer(self.text, self.pos):  # jumps from one brace to the next
            ch = m.group(0)
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    self.pos = m.end()
                    return self.text[start + 1 : self.pos - 1]
        self.pos = start
        raise self.fail("a { is never closed")

    def quoted(self) -> str:
        start, depth = self.pos, 0
        self.pos += 1
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == "\\":
                self.pos += 2
                continue
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == '"' and depth == 0:
                self.pos += 1
                return self.text[start + 1 : self.pos - 1]
            self.pos += 1
        self.pos = start
        raise self.fail('a " is never closed')

    def value(self, macros: dict[str, str]) -> str:
        parts = []
        while True:
            self.skip_space()
            ch = self.peek()
            if ch == "{":
                parts.append(self.braced())
            elif ch == '"':
                parts.append(self.quoted())
            elif ch and (ch.isalnum() or ch in "_-.:"):
                word = self.name("a value")
                parts.append(word if word.isdigit() else macros.get(word.lower(), _MONTHS.get(word.lower(), word)))
            else:
                raise self.fail("expected a value ({...}, \"...\", a number or a @string name)")
            self.skip_space()
            if self.peek() != "#":
                return "".join(parts)
            self.pos += 1


def parse(text: str) -> list[Entry]:
    """Every entry of a .bib text, in order; BibtexError (with the line) when the text is malformed."""
    reader = _Reader(text)
    macros: dict[str, str] = {}
    entries: list[Entry] = []
    while True:
        at = text.find("@", reader.pos)
        if at < 0:
            return entries
        reader.pos = at + 1
        start_line = reader.line
        kind = reader.name("an entry type after @").lower()
        reader.skip_space()
        close = {"{": "}", "(": ")"}.get(reader.peek())
        if close is None:
            raise reader.fail(f"expected {{ after @{kind}")
        reader.pos += 1
        if kind == "comment":
            reader.pos -= 1
            if close == "}":
                reader.braced()
            continue
        if kind == "preamble":
            reader.value(macros)
            reader.expect(close)
            continue
        if kind == "string":
            name = reader.name("a @string name").lower()
            reader.expect("=")
            macros[name] = reader.value(macros)
            reader.expect(close)
            continue
        key = reader.name(f"a citation key in @{kind}")
        fields: dict[str, str] = {}
        while True:
            reader.skip_space()
            if not reader.peek():
                raise BibtexError(f"line {start_line}: the entry {key} is never closed (a missing {close}?)")
            if reader.peek() == close:
                reader.pos += 1
                break
            reader.expect(",")
            reader.skip_space()
            if reader.peek() == close:
                reader.pos += 1
                break
            name = reader.name(f"a field name in {key}").lower()
            reader.expect("=")
            raw = reader.value(macros)
            fields[name] = " ".join(raw.split()) if name in VERBATIM else unescape(raw)
        entries.append(Entry(kind, key, fields, start_line))


_ARXIV_NEW = r"\d{4}\.\d{4,5}(?:v\d+)?"
_ARXIV_OLD = r"[a-z\-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?"
_ARXIV_IN = re.compile(rf"(?:arxiv\.org/(?:abs|pdf)/|arxiv[:\s]*|10\.48550/arxiv\.)({_ARXIV_NEW}|{_ARXIV_OLD})", re.I)


def arxiv_id_of(entry: Entry) -> str | None:
    """The arXiv id an entry names: eprint (arXiv), an arxiv field, an arXiv URL or DOI, or `arXiv:` in a note."""
    f = entry.fields
    eprint = f.get("eprint", "").strip()
    prefix = (f.get("archiveprefix") or f.get("eprinttype") or "").strip().lower()
    if eprint and (prefix == "arxiv" or re.fullmatch(rf"{_ARXIV_NEW}|{_ARXIV_OLD}", eprint, re.I)):
        return re.sub(r"^arxiv:", "", eprint, flags=re.I)
    for name in ("arxiv", "arxivid"):
        if f.get(name, "").strip():
            return re.sub(r"^arxiv:", "", f[name].strip(), flags=re.I)
    for name in ("url", "doi", "journal", "note", "howpublished"):
        m = _ARXIV_IN.search(f.get(name, ""))
        if m:
            return m.group(1)
    return None


def pdf_paths_of(entry: Entry) -> list[str]:
    """Local PDF paths an entry names in `file` / `pdf` (Zotero's `desc:path:type;...` and JabRef's forms too)."""
    paths = []
    for name in ("file", "pdf", "local-url"):
        raw = entry.fields.get(name, "")
        for part in raw.split(";"):
            part = part.strip()
            if not part:
                continue
            if part.count(":") >= 2 and not re.match(r"^[A-Za-z]:\\", part):  # desc:path:mime
                part = part.split(":", 1)[1].rsplit(":", 1)[0]
            part = re.sub(r"^file://", "", part)
            if part.lower().endswith(".pdf"):
                paths.append(part)
    return paths
