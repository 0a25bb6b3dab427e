"""PDF ingest on the real fixture papers and on broken PDFs made on the fly."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pymupdf
import pytest

from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import CancelledError, PdfError
from paperdesk.core.ingest import frontmatter
from paperdesk.core.ingest.chunking import Para, chunk_paragraphs, is_text_heading
from paperdesk.core.ingest.pdf import ParsedPdf, chunk_pages, parse_pdf
from paperdesk.core.ingest.tables import is_table_section

PAPERS = Path(__file__).resolve().parents[1] / "fixtures" / "papers"

TITLES = {
    "papermage.pdf": "PaperMage: A Unified Toolkit for Processing, Representing, and Manipulating "
    "Visually-Rich Scientific Documents",
    "2302.07302v1.pdf": "CiteSee: Augmenting Citations in Scientific Papers with Persistent and "
    "Personalized Historical Context",
    "2304.02623v1.pdf": "Beyond Summarization: Designing AI Support for Real-World Expository Writing Tasks",
    "2206.10883v3.pdf": "Multi-LexSum: Real-World Summaries of Civil Rights Lawsuits at Multiple Granularities",
}
PAGES = {"papermage.pdf": 13, "2302.07302v1.pdf": 15, "2304.02623v1.pdf": 4, "2206.10883v3.pdf": 37}

_cache: dict[str, ParsedPdf] = {}


def parsed(name: str) -> ParsedPdf:
    """Parse each fixture once per test session (default chunk sizes)."""
    if name not in _cache:
        _cache[name] = parse_pdf(PAPERS / name)
    return _cache[name]


def sections(doc: ParsedPdf) -> list[str]:
    out: list[str] = []
    for c in doc.chunks:
        if not out or out[-1] != c.section:
            out.append(c.section)
    return out


# --- the real papers ---------------------------------------------------------


@pytest.mark.parametrize("name", sorted(TITLES))
def test_title_pages_and_hash(name: str) -> None:
    doc = parsed(name)
    assert doc.title == TITLES[name]
    assert len(doc.pages) == PAGES[name]
    assert all(p.strip() for p in doc.pages)
    assert doc.sha256 == hashlib.sha256((PAPERS / name).read_bytes()).hexdigest()


def test_authors_from_first_page() -> None:
    assert parsed("2302.07302v1.pdf").authors == [
        "Joseph Chee Chang", "Amy X. Zhang", "Jonathan Bragg", "Andrew Head", "Kyle Lo", "Doug Downey",
        "Daniel S. Weld",
    ]
    assert parsed("2206.10883v3.pdf").authors == [
        "Zejiang Shen", "Kyle Lo", "Lauren Yu", "Nathan Dahlberg", "Margo Schlanger", "Doug Downey",
    ]
    beyond = parsed("2304.02623v1.pdf").authors
    assert beyond[:3] == ["Zejiang Shen", "Tal August", "Pao Siangliulue"] and beyond[-1] == "David Sontag"
    assert len(beyond) == 9
    mage = parsed("papermage.pdf").authors
    assert len(mage) == 17 and mage[0] == "Kyle Lo" and "Russell Authur" in mage and mage[-1] == "Luca Soldaini"


def test_published_dates_of_the_real_papers() -> None:
    # arXiv's margin stamp dates a v1 to the day and a later version to its id's month; PaperMage has no
    # stamp and no venue line on page 1, so the PDF's creation date dates it.
    assert {name: parsed(name).published for name in TITLES} == {
        "2206.10883v3.pdf": "2022-06", "2302.07302v1.pdf": "2023-02-14", "2304.02623v1.pdf": "2023-04-05",
        "papermage.pdf": "2023-11-09",
    }


@pytest.mark.parametrize("name", sorted(TITLES))
def test_chunks_are_sane(name: str) -> None:
    doc = parsed(name)
    assert len(doc.chunks) >= PAGES[name]
    for c in doc.chunks:
        words = c.text.split()
        assert words, c
        assert len(words) <= 1.5 * 300
        assert 1 <= c.page_start <= c.page_end <= PAGES[name]
        assert c.section != "" or c is doc.chunks[0]
    # The text's chunks run in reading order; a table's chunks follow them, so a passage's neighbours stay prose.
    text = [c for c in doc.chunks if not is_table_section(c.section)]
    assert doc.chunks[:len(text)] == text
    starts = [c.page_start for c in text]
    assert starts == sorted(starts)


@pytest.mark.parametrize("name", sorted(TITLES))
def test_consecutive_chunks_of_a_section_overlap(name: str) -> None:
    doc = parsed(name)
    # A long table's parts each open with its caption instead of repeating rows.
    pairs = [(a, b) for a, b in zip(doc.chunks, doc.chunks[1:]) if a.section == b.section
             and not is_table_section(a.section)]
    assert pairs
    for a, b in pairs:
        assert a.text.split()[-50:] == b.text.split()[:50]


def test_chunk_size_and_overlap_follow_arguments() -> None:
    doc = parse_pdf(PAPERS / "2304.02623v1.pdf", chunk_words=120, overlap_words=20)
    lengths = [len(c.text.split()) for c in doc.chunks]
    assert max(lengths) <= 150
    assert sum(80 <= n <= 150 for n in lengths) >= len(lengths) * 0.7
    same = [(a, b) for a, b in zip(doc.chunks, doc.chunks[1:]) if a.section == b.section]
    assert same and all(a.text.split()[-20:] == b.text.split()[:20] for a, b in same)
    with pytest.raises(PdfError, match="overlap_words"):
        parse_pdf(PAPERS / "2304.02623v1.pdf", chunk_words=100, overlap_words=100)


def test_sections_found() -> None:
    cite = sections(parsed("2302.07302v1.pdf"))
    for heading in ("Abstract", "1 Introduction", "2 Related Work", "2.1 Scientific Paper Reading Interfaces",
                    "4.3 [D1] Discover Relevant Citations", "4.5 [D3] Paper Cards with Personalized Context",
                    "8 Conclusion", "References"):
        assert heading in cite
    assert cite.index("1 Introduction") < cite.index("2 Related Work") < cite.index("References")

    lex = sections(parsed("2206.10883v3.pdf"))
    for heading in ("Abstract", "1 Introduction", "2.1 Natural language processing for legal documents",
                    "5 Human evaluation", "6 Conclusion", "References", "B.1 Reading source documents"):
        assert heading in lex

    mage = sections(parsed("papermage.pdf"))
    for heading in ("1 Introduction", "4 Vignette: Building an Attributed QA System for Scientific Papers",
                    "5 Conclusion", "Ethical Considerations", "References", "A.1 Comparison and Compatibility with XML"):
        assert heading in mage
    # Bold words inside figures and tables are not sections.
    assert "P R F1 P R F1" not in mage and "Introduction" not in mage

    assert sections(parsed("2304.02623v1.pdf")) == [
        "Abstract", "1 Introduction", "2 Characterizing Expository Writing",
        "3 Designing AI Supports for Expository Writing", "Acknowledgments", "References",
    ]


def test_chunks_do_not_cross_sections() -> None:
    doc = parsed("2302.07302v1.pdf")
    for heading, label in (("1 INTRODUCTION", "1 Introduction"), ("2 RELATED WORK", "2 Related Work"),
                           ("8 CONCLUSION", "8 Conclusion")):
        holders = [c for c in doc.chunks if heading in c.text]
        assert len(holders) == 1 and holders[0].text.startswith(heading) and holders[0].section == label
    refs = [c for c in doc.chunks if c.section == "References"]
    assert refs[0].text.startswith("REFERENCES") and refs[-1] is doc.chunks[-1]
    # A tiny section before the references stays on its own rather than hide among them.
    thanks = doc.chunks[doc.chunks.index(refs[0]) - 1]
    assert thanks.section == "Acknowledgments" and thanks.text.startswith("ACKNOWLEDGMENTS")
    assert refs[0].page_start == 14 and refs[-1].page_end == 15


def test_pages_of_chunks_are_real() -> None:
    doc = parsed("2206.10883v3.pdf")
    intro = [c for c in doc.chunks if c.section == "1 Introduction"]
    assert intro[0].page_start == 1 and intro[-1].page_end == 2
    for c in doc.chunks:
        words = c.text.split()
        if is_table_section(c.section):  # rows rendered "name: value;": each figure is on the table's page
            page = doc.pages[c.page_start - 1]
            assert all(n in page for n in re.findall(r"\d[\d.,]*\d", c.text)), c.section
            continue
        assert words[0] in doc.pages[c.page_start - 1].split()
        assert words[-1] in doc.pages[c.page_end - 1].split()


def test_hyphenation_and_ligatures() -> None:
    mage, cite, lex = parsed("papermage.pdf"), parsed("2302.07302v1.pdf"), parsed("2206.10883v3.pdf")
    # Syllable breaks at line ends are joined...
    assert "computer vision (CV)" in mage.pages[0]  # "vi-\nsion"
    assert "provide personalized visual augmentations" in cite.pages[0]  # "per-\nsonalized"
    assert "design of CiteSee was driven" in cite.pages[2]  # "Cite-\nSee", spelled CiteSee elsewhere
    # ...while real hyphens survive, mid-line and at line ends.
    assert "state-of-the-art summarization models" in lex.pages[0]  # "state-of-the-art sum-\nmarization"
    assert "open-source Python toolkit" in mage.pages[0]  # "open-\nsource"
    assert "multi-task methods" in lex.pages[1]
    all_text = "".join(p for d in (mage, cite, lex) for p in d.pages)
    assert "\ufb01" not in all_text and "\ufb02" not in all_text
    assert "benefit both the legal" in lex.pages[1]  # "beneﬁt" in the PDF
    assert not re.search(r"[a-z]- [a-z]", lex.pages[0])


def test_running_headers_footers_and_page_numbers_removed() -> None:
    cite = parsed("2302.07302v1.pdf")
    for page in cite.pages:
        assert "CHI ’23, April 23–28, 2023, Hamburg, Germany" not in page  # ACM header / first-page footer
        assert "Chang et al." not in page
        assert "Scientific Papers with Personalized Context" not in page  # the short running title
    assert not any("CHI ’23, April" in c.text or "Chang et al." in c.text for c in cite.chunks)
    assert not any("Shen, et al." in p for p in parsed("2304.02623v1.pdf").pages)
    lex = parsed("2206.10883v3.pdf")
    for no, page in enumerate(lex.pages[:22], start=1):
        assert not re.search(rf"(^|\n){no}$", page), f"page number left on page {no}"
    assert "arXiv:2206.10883v3" not in lex.pages[0]  # the sideways arXiv stamp
    assert "Preprint. Under review." in lex.pages[0]  # first-page-only footers are content


def test_progress_reports_every_page() -> None:
    seen: list[tuple[int, int]] = []
    parse_pdf(PAPERS / "2304.02623v1.pdf", progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_cancel_between_pages() -> None:
    token = CancelToken()
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if done == 2:
            token.cancel()

    with pytest.raises(CancelledError):
        parse_pdf(PAPERS / "papermage.pdf", progress=progress, cancel=token)
    assert seen == [1, 2]
    already = CancelToken()
    already.cancel()
    with pytest.raises(CancelledError):
        parse_pdf(PAPERS / "papermage.pdf", cancel=already)


def test_chunk_pages_rebuilds_from_stored_text() -> None:
    doc = parsed("2302.07302v1.pdf")
    chunks = chunk_pages(doc.pages, chunk_words=150, overlap_words=30)
    labels = {c.section for c in chunks}
    assert {"1 Introduction", "2 Related Work", "References"} <= labels
    assert all(len(c.text.split()) <= 225 for c in chunks)
    assert len(chunks) > len(doc.chunks)


# --- chunking rules on synthetic paragraphs -------------------------------------


def _words(prefix: str, n: int) -> str:
    return " ".join(f"{prefix}{i}." if i % 10 == 9 else f"{prefix}{i}" for i in range(n))


def test_chunk_paragraphs_sections_overlap_and_tiny_merge() -> None:
    paras = [
        Para(1, "1 Introduction", heading=True),
        Para(1, _words("a", 250)),
        Para(2, _words("b", 250)),
        Para(2, "2 Method", heading=True),
        Para(2, "We describe it."),  # a tiny section: folded into the next one
        Para(3, "2.1 Data", heading=True),
        Para(3, _words("c", 120)),
        Para(4, "REFERENCES", heading=True),
        Para(4, _words("r", 90)),
    ]
    chunks = chunk_paragraphs(paras, chunk_words=200, overlap_words=40)
    labels = [c.section for c in chunks]
    assert labels[0] == "1 Introduction" and labels.count("2 Method") == 0
    assert labels[-2:] == ["2.1 Data", "References"]
    intro = [c for c in chunks if c.section == "1 Introduction"]
    assert len(intro) == 3 and intro[0].page_start == 1 and intro[-1].page_end == 2
    for a, b in zip(intro, intro[1:]):
        assert a.text.split()[-40:] == b.text.split()[:40]
        assert a.text.split()[-1].endswith(".")  # cut at a sentence end
    data = chunks[-2]
    assert data.text.startswith("2 Method We describe it. 2.1 Data") and (data.page_start, data.page_end) == (2, 3)
    assert not any(set(c.text.split()) & {"a0", "c0"} == {"a0", "c0"} for c in chunks)


def test_text_heading_rules() -> None:
    for text in ("1 Introduction", "3.2 Method", "2 RELATED WORK", "A.1 Accessing Multi-LexSum", "Abstract",
                 "References", "Acknowledgments", "Appendix B: Prompts", "4.3 [D1] Discover Relevant Citations"):
        assert is_text_heading(text), text
    for text in ("3 (perfect; no edits needed).", "2. Summaries for a case, which come in three lengths:",
                 "12 >>> doc.add(sentences)", "2019. BioBERT: a pre-trained biomedical language",
                 "Appendix E of the paper.", "the results in Section 4 show"):
        assert not is_text_heading(text), text


def test_metadata_title_sanity() -> None:
    page = "Deep Nets for Cats and Dogs  Jane Doe  Abstract ..."
    assert frontmatter.sensible_title("Deep  Nets for Cats and Dogs", page) == "Deep Nets for Cats and Dogs"
    assert frontmatter.sensible_title("Microsoft Word - draft7.docx", page) == ""
    assert frontmatter.sensible_title("main.pdf", page) == ""
    assert frontmatter.sensible_title("paper_v3", page) == ""
    assert frontmatter.sensible_title("Instructions for ACL Proceedings", page) == ""  # template left-over
    assert frontmatter.sensible_authors("Jane Doe, John Q. Smith and Ann Lee") == ["Jane Doe", "John Q. Smith", "Ann Lee"]
    assert frontmatter.sensible_authors("Administrator") == []


# --- broken PDFs -------------------------------------------------------------------


def _zero_page_pdf() -> bytes:
    """A well-formed PDF whose page tree is empty (PyMuPDF refuses to save one)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _make(kind: str, path: Path) -> Path:
    if kind == "text":
        path.write_text("These are my notes, not a PDF.\n")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        data = (PAPERS / "papermage.pdf").read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif kind == "encrypted":
        doc = pymupdf.open()
        doc.new_page().insert_text((72, 72), "secret findings")
        doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="user", owner_pw="owner")
    elif kind == "zero":
        path.write_bytes(_zero_page_pdf())
    elif kind == "scanned":
        doc = pymupdf.open()
        for _ in range(2):
            page = doc.new_page()
            pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 120, 160), 0)
            pix.clear_with(230)
            page.insert_image(page.rect, pixmap=pix)
        doc.save(path)
    return path


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("missing", "file not found"),
        ("text", "not a PDF file"),
        ("empty", "is empty"),
        ("truncated", "corrupt or truncated"),
        ("encrypted", "password-protected"),
        ("zero", "has no pages"),
        ("scanned", "has no text layer (scanned?); run OCR first, e.g. ocrmypdf"),
    ],
)
def test_bad_pdfs_raise_one_clear_line(kind: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / f"{kind}.pdf"
    if kind != "missing":
        _make(kind, path)
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(PdfError) as info:
        parse_pdf(path)
    text = str(info.value)
    assert message in text and "\n" not in text and path.name in text
    assert sorted(tmp_path.rglob("*")) == before  # nothing written


def test_directory_is_not_a_pdf(tmp_path: Path) -> None:
    with pytest.raises(PdfError, match="is a directory"):
        parse_pdf(tmp_path)


def test_tiny_real_pdf_is_fine(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.set_metadata({"title": "Hello Paper Title"})
    page = doc.new_page()
    page.insert_text((72, 72), "Hello Paper Title", fontsize=20)
    page.insert_text((72, 120), "Some body text about transformers and reading.", fontsize=10)
    path = tmp_path / "tiny.pdf"
    doc.save(path)
    parsed_doc = parse_pdf(path)
    assert parsed_doc.title == "Hello Paper Title"
    assert len(parsed_doc.pages) == 1 and "transformers" in parsed_doc.pages[0]
    assert len(parsed_doc.chunks) == 1 and parsed_doc.chunks[0].page_start == 1


def _synthetic_paper(path: Path, pages: int = 5) -> None:
    """A small generated paper: running header and page numbers, bold headings, hyphenated lines."""
    doc = pymupdf.open()
    filler = "We study how readers move through long documents and what helps them keep their place."
    for no in range(1, pages + 1):
        page = doc.new_page()
        page.insert_text((72, 40), "Journal of Synthetic Tests, Vol. 3", fontsize=8)
        page.insert_text((300, 800), str(no), fontsize=8)
        y = 90
        if no == 1:
            page.insert_text((72, y), "Reading Long Documents Well", fontsize=18, fontname="hebo")
            page.insert_text((72, y + 24), "Ada Lovelace, Alan Turing", fontsize=11)
            page.insert_text((72, y + 38), "Analytical Engine Institute", fontsize=9)
            y += 70
        heading = {1: "Abstract", 2: "1 Introduction", 4: "2 Method"}.get(no)
        if heading:
            page.insert_text((72, y), heading, fontsize=12, fontname="hebo")
            y += 20
        lines = [filler[:60], filler[60:]] * 8
        lines[2] = "this line ends with a representa-"
        lines[3] = "tion of the whole state-of-the-art pipeline."
        for line in lines:
            page.insert_text((72, y), line, fontsize=10)
            y += 13
    doc.set_metadata({"title": "Microsoft Word - final_v2.docx"})
    doc.save(path)


def test_synthetic_paper(tmp_path: Path) -> None:
    path = tmp_path / "synthetic.pdf"
    _synthetic_paper(path)
    doc = parse_pdf(path, chunk_words=100, overlap_words=20)
    assert doc.title == "Reading Long Documents Well"  # metadata title is junk
    assert doc.authors == ["Ada Lovelace", "Alan Turing"]
    assert not any("Journal of Synthetic Tests" in p for p in doc.pages)
    assert all(not re.search(r"(^|\n)\d+$", p) for p in doc.pages)
    assert "representation of the whole state-of-the-art pipeline." in doc.pages[1]
    assert sections(doc) == ["Abstract", "1 Introduction", "2 Method"]
    method = [c for c in doc.chunks if c.section == "2 Method"]
    assert method[0].page_start == 4 and method[-1].page_end == 5
