"""The library on real papers: add, search, filter, remove, reopen, and repair."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import PAPERS
from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import CancelledError, InvalidArgumentError, InvalidIdError, PdfError, UnknownPaperError
from paperdesk.core.library.library import Library
from paperdesk.core.sources.arxiv import ArxivClient

pytestmark = pytest.mark.slow


def _consistent(lib: Library) -> None:
    """Catalogue, keyword index and vector matrix hold exactly the same chunks."""
    assert lib.store.pending_papers() == []
    assert lib.store.tombstones() == []
    chunk_ids = sorted(c.id for c, _ in lib.store.indexed_chunks())
    assert lib.keyword.num_docs() == len(chunk_ids)
    assert sorted(lib.vectors.ids.tolist()) == chunk_ids


def test_add_local_pdf_search_and_show(library: Library, citesee_pdf: Path):
    seen = []
    result = library.add_pdf(citesee_pdf, progress=seen.append)
    assert result.created
    paper = result.paper
    # the PDF's arXiv stamp names the paper: filed under that id, the rest read from the PDF
    assert (paper.id, paper.arxiv_id, paper.abstract) == ("2302.07302v1", "2302.07302", "")
    assert paper.page_count == 15
    assert paper.title.startswith("CiteSee")
    assert {p.stage for p in seen} >= {"parse", "embed", "index"}
    assert Path(paper.pdf_path).parent == library.papers_dir
    _consistent(library)

    hits = library.search("do current reading tools keep track of citations a reader has seen", k=5)
    assert hits and hits[0].paper_id == paper.id
    top = hits[0]
    assert 1 <= top.page_start <= top.page_end <= 15
    assert top.keyword_score is not None and top.vector_score is not None
    assert top.snippet and top.section
    text = library.page_text(paper.id, top.page_start)[1]
    assert text.strip()
    assert library.add_pdf(citesee_pdf).created is False  # same bytes: same paper


def test_the_same_pdf_under_other_names_is_the_paper_already_there(library: Library, citesee_pdf: Path,
                                                                    tmp_path: Path):
    first = library.add_pdf(citesee_pdf).paper
    renamed = tmp_path / "my copy of citesee.pdf"
    shutil.copyfile(citesee_pdf, renamed)
    as_arxiv = tmp_path / "2302.07302v1.pdf"  # a name that reads as an arXiv id would otherwise make another id
    shutil.copyfile(citesee_pdf, as_arxiv)
    from paperdesk.core.sources.arxiv_feed import ArxivPaper
    meta = ArxivPaper(arxiv_id="2302.07302", version=1, title="CiteSee")
    for again in (library.add_pdf(renamed), library.add_pdf(as_arxiv, meta=meta)):
        assert again.created is False and again.paper.id == first.id
    assert library.store.count_papers() == 1 and len(list(library.papers_dir.iterdir())) == 1
    # A library made before PDFs were hashed: its papers are hashed on the next add, and still recognised.
    with library.store.transaction() as conn:
        conn.execute("DELETE FROM pdf_hashes")
    assert library.add_pdf(renamed).created is False
    _consistent(library)


def test_modes_and_paper_filter(library: Library, citesee_pdf: Path):
    citesee = library.add_pdf(citesee_pdf).paper
    legal = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    for mode in ("keyword", "vector", "hybrid"):
        hits = library.search("expository writing support", k=3, mode=mode)
        assert hits[0].paper_id == legal.id, mode
    only = library.search("expository writing support", k=5, papers=[citesee.id])
    assert only and {h.paper_id for h in only} == {citesee.id}
    keyword_only = library.search("expository writing", k=3, mode="keyword")
    assert all(h.vector_score is None for h in keyword_only)


def test_remove_drops_everything(library: Library, citesee_pdf: Path):
    paper = library.add_pdf(citesee_pdf).paper
    library.remove(paper.id)
    assert library.store.count_papers() == 0
    assert library.search("citations", k=5) == []
    assert not Path(paper.pdf_path).exists()
    _consistent(library)
    with pytest.raises(UnknownPaperError):
        library.get(paper.id)


def test_lookup_errors(library: Library):
    with pytest.raises(UnknownPaperError, match="paperdesk list"):
        library.get("2302.07302")
    with pytest.raises(InvalidIdError):
        library.get("../../etc/passwd")
    with pytest.raises(InvalidArgumentError, match="empty query"):
        library.search("   ")
    with pytest.raises(InvalidArgumentError, match="k must be between 1 and"):
        library.search("citations", k=0)
    with pytest.raises(InvalidArgumentError, match="pages start at 1"):
        library.list(page=0)


def test_bad_pdf_adds_nothing(library: Library, tmp_path: Path):
    fake = tmp_path / "notes.pdf"
    fake.write_text("just some text, not a PDF")
    with pytest.raises(PdfError):
        library.add_pdf(fake)
    assert library.store.count_papers() == 0 and list(library.papers_dir.iterdir()) == []


def test_cancel_mid_ingest_leaves_nothing(library: Library, citesee_pdf: Path):
    token = CancelToken()

    def cancel_on_embed(p):
        if p.stage == "embed":
            token.cancel()

    with pytest.raises(CancelledError):
        library.add_pdf(citesee_pdf, progress=cancel_on_embed, cancel=token)
    assert library.store.count_papers() == 0 and list(library.papers_dir.iterdir()) == []


def test_reopen_repairs_lost_indexes(settings, embedder, citesee_pdf: Path):
    lib = Library(settings, embedder=embedder)
    paper = lib.add_pdf(citesee_pdf).paper
    lib.close()
    shutil.rmtree(settings.home / "index")  # derived data: must come back from the catalogue
    again = Library(settings, embedder=embedder)
    _consistent(again)
    assert again.search("citations", k=1)[0].paper_id == paper.id


def test_reopen_rolls_back_pending_and_applies_removals(settings, embedder, citesee_pdf: Path):
    lib = Library(settings, embedder=embedder)
    a = lib.add_pdf(citesee_pdf).paper
    b = lib.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    # Simulate a crash between the catalogue commit and the index update, both ways.
    lib.store.remove_paper(a.id)
    with lib.store.transaction() as conn:
        conn.execute("UPDATE papers SET index_state = 'pending' WHERE id = ?", (b.id,))
    lib.close()
    again = Library(settings, embedder=embedder)
    _consistent(again)
    # A half-done add is undone, never finished by whoever opens next: b is gone with its PDF.
    assert again.store.count_papers() == 0 and again.search("citations reading writing", k=20) == []
    assert list(again.papers_dir.iterdir()) == [] and again.integrity_problems() == []


def test_add_from_loopback_arxiv(library: Library, arxiv):
    client = ArxivClient(arxiv.api_url, delay_seconds=0, num_retries=1)
    stages = []
    result = library.add_arxiv("arXiv:2302.07302", client, progress=lambda p: stages.append(p.stage))
    paper = result.paper
    assert paper.id == "2302.07302v1" and paper.arxiv_id == "2302.07302" and paper.abstract
    assert stages[0] == "download" and "embed" in stages
    assert library.get("2302.07302").id == paper.id
    assert library.get("https://arxiv.org/abs/2302.07302v1").id == paper.id
    before = len(arxiv.requests)
    assert library.add_arxiv("2302.07302v1", client).created is False
    assert len(arxiv.requests) == before  # already here: no network
    assert [p.name for p in library.papers_dir.iterdir()] == ["2302.07302v1.pdf"]
    _consistent(library)


def test_vector_matrix_is_normalised(library: Library, citesee_pdf: Path):
    library.add_pdf(citesee_pdf)
    norms = np.linalg.norm(library.vectors.matrix, axis=1)
    assert np.allclose(norms, 1.0, atol=1e-3)
