"""Keyword search: a tantivy index over chunks, scored with BM25.

Fields: title, section and text, each with tantivy's English stemmer. User
queries are reduced to plain lower-case words before parsing, so punctuation,
field prefixes or stray AND/OR in a question can never break the parser.

Two tunables, chosen by cross-validation (`bench retrieval`, `cv`): a boost
on the title field, and pseudo-relevance feedback (the query plus, at a
lower weight, tantivy's more-like-this query of the top few hits).
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import tantivy

from paperdesk.core.errors import LibraryBusyError
from paperdesk.core.text.metric_names import spelled_out

_WORD = re.compile(r"\w+", re.UNICODE)
SEARCH_FIELDS = ["title", "section", "text"]
WRITER_HEAP = 64_000_000
SCHEMA_TAG = "paperdesk-keyword-1"
# Expansion terms must carry meaning; these would be picked for frequency alone.
PRF_STOP_WORDS = sorted(set("""a about above after again all also am an and any are as at be been before being below
between both but by can could did do does doing down during each few for from further had has have having he her here
hers him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our
out over own same she should so some such than that the their them then there these they this those through to too
under until up very was we were what when where which while who whom why will with would you your we our however
thus using used use based study studies results result show shows shown found may also et al""".split()))


@dataclass(frozen=True)
class KeywordDoc:
    chunk_id: int
    paper_id: str
    title: str
    section: str
    text: str


def query_terms(query: str) -> list[str]:
    """The words of a query, lower-cased (so AND/OR/NOT stay words)."""
    return [w.lower() for w in _WORD.findall(query)]


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("chunk_id", stored=True, indexed=True, fast=True)
    builder.add_text_field("paper_id", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("title", stored=False, tokenizer_name="en_stem")
    builder.add_text_field("section", stored=True, tokenizer_name="en_stem")
    builder.add_text_field("text", stored=True, tokenizer_name="en_stem")
    return builder.build()


class KeywordIndex:
    """BM25 search over chunks; one directory, rebuilt if its schema is stale."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        tag = directory / "SCHEMA"
        if directory.exists() and (not tag.exists() or tag.read_text().strip() != SCHEMA_TAG):
            shutil.rmtree(directory)  # derived data: the store can rebuild it
        directory.mkdir(parents=True, exist_ok=True)
        self.schema = _schema()
        try:
            self.index = tantivy.Index(self.schema, path=str(directory), reuse=True)
        except ValueError:  # corrupt files: derived data, so start empty and let the Library rebuild it
            shutil.rmtree(directory)
            directory.mkdir(parents=True)
            self.index = tantivy.Index(self.schema, path=str(directory), reuse=True)
        tag.write_text(SCHEMA_TAG)
        self.fresh = self.index.searcher().num_docs == 0
        self.title_boost = 1.0
        self.prf_docs = 0  # 0: no pseudo-relevance feedback
        self.prf_weight = 0.0
        self.prf_terms = 20

    def configure(self, title_boost: float = 1.0, prf_docs: int = 0, prf_weight: float = 0.0,
                  prf_terms: int = 20) -> None:
        """Set the title boost and pseudo-relevance feedback (top `prf_docs` hits, weight `prf_weight`)."""
        self.title_boost, self.prf_docs, self.prf_weight, self.prf_terms = title_boost, prf_docs, prf_weight, prf_terms

    def reset(self) -> None:
        """Start over with an empty index (derived data: the caller refills it from the store)."""
        self.index = None  # type: ignore[assignment]  # drop tantivy's handles before deleting its files
        shutil.rmtree(self.directory, ignore_errors=True)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(self.schema, path=str(self.directory), reuse=False)
        (self.directory / "SCHEMA").write_text(SCHEMA_TAG)

    def _writer(self) -> tantivy.IndexWriter:
        try:
            return self.index.writer(heap_size=WRITER_HEAP, num_threads=1)
        except ValueError as exc:
            raise LibraryBusyError(
                f"the search index is locked by another paperdesk process ({exc}); close it and retry"
            ) from None

    def replace_papers(
        self, docs_by_paper: dict[str, Sequence[KeywordDoc]], remove: Iterable[str] = (), clear: bool = False
    ) -> None:
        """Delete every doc of the given papers (or all docs), add the new docs, commit once."""
        writer = self._writer()
        try:
            if clear:
                writer.delete_all_documents()
            for paper_id in list(docs_by_paper) + list(remove):
                writer.delete_documents_by_term("paper_id", paper_id)
            for docs in docs_by_paper.values():
                for doc in docs:
                    entry = tantivy.Document()
                    entry.add_unsigned("chunk_id", doc.chunk_id)
                    entry.add_text("paper_id", doc.paper_id)
                    entry.add_text("title", doc.title)
                    entry.add_text("section", doc.section)
                    names = spelled_out(doc.text)  # a table's metrics spelled out (ROUGE-1 for R-1f1)
                    if names:
                        entry.add_text("section", names)
                    entry.add_text("text", doc.text)
                    writer.add_document(entry)
            writer.commit()
            writer.wait_merging_threads()
        except BaseException:
            writer.rollback()
            raise
        self.index.reload()

    def num_docs(self) -> int:
        return self.index.searcher().num_docs

    def chunk_ids(self) -> list[int]:
        """Every chunk id in the index (sorted), to check it against the store by id, not by count."""
        searcher = self.index.searcher()
        if searcher.num_docs == 0:
            return []
        hits = searcher.search(tantivy.Query.all_query(), limit=searcher.num_docs, count=False).hits
        return sorted(int(c) for c in searcher.fast_field_values("chunk_id", [address for _s, address in hits]))

    def build_query(self, query: str, papers: Sequence[str] | None = None) -> tantivy.Query | None:
        terms = query_terms(query)
        if not terms:
            return None
        boosts = {"title": self.title_boost} if self.title_boost != 1.0 else {}
        parsed = self.index.parse_query(" ".join(terms), SEARCH_FIELDS, field_boosts=boosts)
        return self._only(parsed, papers)

    def _only(self, query: tantivy.Query, papers: Sequence[str] | None) -> tantivy.Query:
        if not papers:
            return query
        only = tantivy.Query.term_set_query(self.schema, "paper_id", list(papers))
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, query), (tantivy.Occur.Must, only)])

    def _expanded(self, parsed: tantivy.Query, top: Sequence[tantivy.DocAddress],
                  papers: Sequence[str] | None) -> tantivy.Query:
        """The query OR (weighted) the more-like-this queries of the top hits."""
        share = self.prf_weight / len(top)
        clauses = [(tantivy.Occur.Should, parsed)]
        for address in top:
            mlt = tantivy.Query.more_like_this_query(
                address, min_doc_frequency=2, max_doc_frequency=None, min_term_frequency=1,
                max_query_terms=self.prf_terms, min_word_length=3, max_word_length=None, boost_factor=1.0,
                stop_words=PRF_STOP_WORDS)
            clauses.append((tantivy.Occur.Should, tantivy.Query.boost_query(mlt, share)))
        return self._only(tantivy.Query.boolean_query(clauses), papers)

    def search(self, query: str, k: int, papers: Sequence[str] | None = None) -> list[tuple[int, float]]:
        """Top-k (chunk id, BM25 score), best first."""
        parsed = self.build_query(query, papers)
        if parsed is None or k <= 0:
            return []
        searcher = self.index.searcher()
        hits = searcher.search(parsed, limit=k, count=False).hits
        if self.prf_docs and self.prf_weight > 0 and hits:
            unfiltered = self.build_query(query) if papers else parsed
            expanded = self._expanded(unfiltered, [a for _s, a in hits[: self.prf_docs]], papers)
            hits = searcher.search(expanded, limit=k, count=False).hits
        # Fast-field lookups avoid decompressing stored documents for every candidate.
        ids = searcher.fast_field_values("chunk_id", [address for _score, address in hits])
        return [(int(cid), float(score)) for cid, (score, _address) in zip(ids, hits)]

    def snippets(self, query: str, chunk_ids: Sequence[int], max_chars: int = 240) -> dict[int, str]:
        """Highlighted snippets (matches wrapped in ** **) for the given chunks."""
        parsed = self.build_query(query)
        if parsed is None or not chunk_ids:
            return {}
        searcher = self.index.searcher()
        generator = tantivy.SnippetGenerator.create(searcher, parsed, self.schema, "text")
        generator.set_max_num_chars(max_chars)
        wanted = tantivy.Query.term_set_query(self.schema, "chunk_id", list(chunk_ids))
        out: dict[int, str] = {}
        for _score, address in searcher.search(wanted, limit=len(chunk_ids)).hits:
            doc = searcher.doc(address)
            out[int(doc["chunk_id"][0])] = render_snippet(generator.snippet_from_doc(doc))
        return out


def render_snippet(snippet: tantivy.Snippet) -> str:
    """Snippet text with each highlighted range wrapped in ** (markdown bold).

    tantivy's ranges are UTF-8 byte offsets: sliced as characters, every curly quote or accent before a
    match moved the bold off it ("**rea**ding for **exp**o**sitory wri**t**ing")."""
    text = snippet.fragment().encode("utf-8")
    pieces, last = [], 0
    for span in snippet.highlighted():
        pieces.append(text[last : span.start])
        pieces.append(b"**" + text[span.start : span.end] + b"**")
        last = span.end
    pieces.append(text[last:])
    return " ".join(b"".join(pieces).decode("utf-8", errors="replace").split())
