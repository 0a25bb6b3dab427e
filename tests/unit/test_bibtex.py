"""BibTeX export and parsing: keys, escaping, arXiv ids, PDF paths, malformed files, round trips (no library)."""

import pytest

from paperdesk.core.library import bibtex
from paperdesk.core.commands.list_options import parse_list_options
from paperdesk.core.errors import InvalidArgumentError
from paperdesk.core.text.passages import find_matches, locate_passage
from paperdesk.core.db.store import Paper


def _paper(pid="2302.07302v1", title="CiteSee: Augmenting Citations in Scientific Papers", added=1.0, **kw):
    base = dict(id=pid, title=title, authors=["Joseph Chee Chang", "Amy X. Zhang"], published="2023-02-14T00:00:00",
                arxiv_id="2302.07302", version=1, categories=["cs.HC"], added=added,
                abstract="Citations 100% & more_than {braces}", pdf_path="/lib/papers/2302.07302v1.pdf")
    base.update(kw)
    return Paper(**base)


def test_keys_are_surname_year_word_and_unique_with_suffixes():
    a = _paper()
    b = _paper("local-aaa", "The Citesee effect", added=2.0)
    c = _paper("local-bbb", "CiteSee again", added=3.0, authors=["Chang, Joseph"])
    assert bibtex.base_key(a) == "chang2023citesee"  # "The" is skipped, so b collides too
    keys = bibtex.assign_keys([c, b, a], pinned={})
    assert keys == {"2302.07302v1": "chang2023citesee", "local-aaa": "chang2023citeseea",
                    "local-bbb": "chang2023citeseeb"}
    # a pinned key stays even when the paper's metadata would give another one now
    keys = bibtex.assign_keys([a, b], pinned={"local-aaa": "mykey"})
    assert keys == {"2302.07302v1": "chang2023citesee", "local-aaa": "mykey"}
    assert bibtex.base_key(_paper(authors=[], title="Ünïcode Title", published=None)) == "unicode"


def test_export_escapes_and_round_trips_every_field():
    paper = _paper(title="Costs of 5% & $x_i$ {models}")
    text = bibtex.export([paper], {paper.id: "k1"}, {paper.id: "10.1145/3544548.3580847"},
                         {paper.id: ["to-read", "hci"]})
    assert r"5\% \& \$x\_i\$ \{models\}" in text
    assert "eprint = {2302.07302v1}" in text and "archivePrefix = {arXiv}" in text and "primaryClass = {cs.HC}" in text
    [entry] = bibtex.parse(text)
    assert entry.type == "misc" and entry.key == "k1"
    f = entry.fields
    assert f["title"] == paper.title
    assert f["author"].split(" and ") == paper.authors
    assert f["year"] == "2023" and f["month"] == "2"
    assert f["doi"] == "10.1145/3544548.3580847"
    assert f["abstract"] == paper.abstract
    assert f["keywords"] == "to-read, hci"
    assert f["file"] == paper.pdf_path
    assert bibtex.arxiv_id_of(entry) == "2302.07302v1"
    assert bibtex.pdf_paths_of(entry) == [paper.pdf_path]


def test_parser_reads_zotero_and_jabref_forms():
    text = """
% a comment line
@string{ chi = "Proceedings of CHI" }
@comment{ ignored @misc{inside, title={no}} }
@preamble{ "\\newcommand{\\noop}[1]{}" }
@inproceedings{zotero2023,
  title = {{CiteSee}: Augmenting {Citations}},
  booktitle = chi # " 2023",
  year = 2023, month = feb,
  url = {https://arxiv.org/abs/2302.07302v1},
  file = {Full Text PDF:papers/citesee.pdf:application/pdf},
}
@article(jab, author = "A. Author and B. Bauthor", title = "Quoted {"}braces{"}",
  journal = {arXiv preprint arXiv:2206.10883}, file = {:/abs/path/x.pdf:PDF})
@book{nothing, title = {No ids here}}
"""
    entries = bibtex.parse(text)
    assert [e.key for e in entries] == ["zotero2023", "jab", "nothing"]
    z, j, n = entries
    assert z.fields["title"] == "CiteSee: Augmenting Citations"
    assert z.fields["booktitle"] == "Proceedings of CHI 2023"
    assert z.fields["month"] == "2" and z.fields["year"] == "2023"
    assert bibtex.arxiv_id_of(z) == "2302.07302v1"
    assert bibtex.pdf_paths_of(z) == ["papers/citesee.pdf"]
    assert bibtex.arxiv_id_of(j) == "2206.10883"
    assert bibtex.pdf_paths_of(j) == ["/abs/path/x.pdf"]
    assert bibtex.arxiv_id_of(n) is None and bibtex.pdf_paths_of(n) == []


@pytest.mark.parametrize("text, where", [
    ("@misc{k, title = {closed}\n", "line 1: the entry k is never closed"),
    ("@misc{k,\n title = {ok},\n author = \"open\n", "line 3"),
    ("@misc{k,\n\n title {no equals}}", "line 3"),
    ("@misc k, title={x}}", "expected { after @misc"),
    ("@misc{k, title = }", "expected a value"),
])
def test_malformed_files_say_where(text, where):
    with pytest.raises(bibtex.BibtexError, match=where):
        bibtex.parse(text)


def test_list_options_filter_and_sort():
    old = _paper("a", "Alpha transformers", added=1.0, published="2019-01-01", authors=["Ann Lee"])
    new = _paper("b", "Beta transformers", added=2.0, published="2023-05-01", authors=["Bo Chen"])
    none = _paper("c", "Gamma nets", added=3.0, published=None, authors=["Cy Chen"])
    papers = [old, new, none]
    tags = {"b": ["to-read"], "c": ["to-read"]}

    def ids(text):
        return [p.id for p in parse_list_options(text)[1].apply(papers, tags)]

    assert ids("") == ["a", "b", "c"]
    assert ids("transformers") == ["a", "b"]
    assert ids("--author chen") == ["b", "c"]
    assert ids("--tag To-Read --sort title --reverse") == ["c", "b"]
    assert ids("--year 2020-2024") == ["b"]
    assert ids("--sort year") == ["b", "a", "c"]  # newest first, no year last
    assert ids("--sort title") == ["a", "b", "c"]
    page, options = parse_list_options("nets --page 2")
    assert page == 2 and options.describe() == "nets"
    with pytest.raises(InvalidArgumentError, match="--year takes a year"):
        parse_list_options("--year last")


def test_passages_are_located_by_words_across_line_breaks_and_hyphens():
    page = "Intro.\nCiteSee aug-\nments citations by\nhighlighting the papers a reader has seen before. End."
    quote = "CiteSee augments citations by highlighting the papers a reader has seen before"
    start, end = locate_passage(page, quote)
    assert page[start:end].startswith("CiteSee") and page[start:end].endswith("before")
    assert locate_passage(page, "completely unrelated words here") is None
    matches = find_matches(["the cat\nand the", "The end"], "the")
    assert [(m.page, m.start) for m in matches] == [(1, 0), (1, 12), (2, 0)]
    assert [(m.page, m.start) for m in find_matches(["and the\ncat"], "the cat")] == [(1, 4)]
