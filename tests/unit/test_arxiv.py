"""ArxivClient against the fake arXiv: real HTTP on 127.0.0.1, no mocks of the client."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from arxiv_catalogue import BY_ID, CATALOGUE
from paperdesk.core.config import load_settings
from paperdesk.core.cancel import CancelToken
from paperdesk.core.errors import (
    ArxivUnreachableError,
    CancelledError,
    InvalidIdError,
    NetworkError,
    NotFoundError,
    PaperdeskError,
)
from paperdesk.core.ids import path_inside
from paperdesk.core.sources.arxiv import ArxivClient, ArxivPaper

CITESEE = BY_ID["2302.07302"]


@pytest.fixture
def client(arxiv) -> ArxivClient:
    """No spacing and tiny backoff so the suite stays fast."""
    c = ArxivClient(arxiv.api_url, delay_seconds=0, num_retries=3, timeout=5)
    c.backoff_base, c.max_retry_wait = 0.01, 0.5
    return c


def gaps(requests) -> list[float]:
    return [b.time - a.time for a, b in zip(requests, requests[1:])]


def files_in(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


# -- find / fetch ---------------------------------------------------------

def test_find_returns_matching_papers_with_metadata(client, arxiv):
    papers = client.find("citation reading")
    assert papers[0].short_id == "2302.07302v1"
    top = papers[0]
    assert (top.arxiv_id, top.version) == ("2302.07302", 1)
    assert top.title == CITESEE.title  # arXiv wraps the title over two lines; we collapse it
    assert top.authors == list(CITESEE.authors)
    assert top.abstract == CITESEE.abstract
    assert top.published.startswith("2023-02-14T") and top.year == 2023
    assert top.categories == ["cs.HC"]
    assert top.pdf_url == f"{arxiv.base_url}/pdf/2302.07302v1"
    assert top.abs_url == "http://arxiv.org/abs/2302.07302v1"
    assert "search_query=all%3Acitation+AND+all%3Areading" in arxiv.api_requests()[0].path


def test_find_ranks_and_limits(client, arxiv):
    papers = client.find("summarization", max_results=2)
    assert [p.arxiv_id for p in papers] == ["2206.10883", "2304.02623"]
    assert "max_results=2" in arxiv.api_requests()[0].path
    assert client.find("ti:papermage")[0].arxiv_id == "2308.14889"
    assert client.find("quantum chromodynamics") == []


def test_empty_query_is_refused_before_any_request(client, arxiv):
    with pytest.raises(PaperdeskError, match="empty query"):
        client.find("   ")
    assert arxiv.requests == []


@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda e: e.short_id)
def test_fetch_round_trips_every_catalogue_paper(client, entry):
    paper = client.fetch(entry.arxiv_id)
    assert (paper.arxiv_id, paper.version, paper.title) == (entry.arxiv_id, entry.version, entry.title)
    assert paper.authors == list(entry.authors) and paper.abstract == entry.abstract


@pytest.mark.parametrize(
    "id_text",
    ["2302.07302", "2302.07302v1", "arXiv:2302.07302", " 2302.07302 ",
     "https://arxiv.org/abs/2302.07302v1", "http://export.arxiv.org/pdf/2302.07302.pdf"],
)
def test_fetch_accepts_every_id_form(client, arxiv, id_text):
    assert client.fetch(id_text).short_id == "2302.07302v1"
    assert "id_list=2302.07302" in arxiv.api_requests()[0].path


@pytest.mark.parametrize(
    "id_text",
    ["../../etc/passwd", "2302.07302/../../x", "", "not-an-id", "2302.07302v1; rm -rf /",
     "https://evil.example/abs/2302.07302", "2302.07302v0"],
)
def test_invalid_ids_never_reach_the_server(client, arxiv, id_text):
    with pytest.raises(InvalidIdError):
        client.fetch(id_text)
    assert arxiv.requests == []


@pytest.mark.parametrize("id_text", ["2399.99999", "2302.07302v9", "hep-th/9901001"])
def test_unknown_id_is_not_found(client, id_text):
    with pytest.raises(NotFoundError, match="no paper"):
        client.fetch(id_text)


# -- retries, spacing, failures -------------------------------------------

def test_503_twice_then_success_backs_off(client, arxiv):
    client.backoff_base = 0.05
    arxiv.fail_api(2, status=503)
    assert client.fetch("2304.02623").arxiv_id == "2304.02623"
    log = arxiv.api_requests()
    assert len(log) == 3
    first, second = gaps(log)
    assert first >= 0.05 and second >= 0.1  # exponential: base, then twice the base


def test_retry_after_is_honoured(client, arxiv):
    arxiv.fail_api(1, status=503, retry_after=0.3)
    client.fetch("2304.02623")
    assert gaps(arxiv.api_requests())[0] >= 0.3


def test_429_forever_gives_network_error_with_capped_waits(client, arxiv):
    client.num_retries, client.max_retry_wait = 2, 0.1
    arxiv.fail_api(1000, status=429, retry_after=3)  # longer than the cap: must not be obeyed in full
    with pytest.raises(NetworkError, match="HTTP 429") as info:
        client.find("citation")
    assert "try again" in str(info.value)
    log = arxiv.api_requests()
    assert len(log) == 3 and all(0.1 <= g < 1.0 for g in gaps(log))


def test_requests_are_spaced_by_delay_seconds(arxiv):
    client = ArxivClient(arxiv.api_url, delay_seconds=0.2, num_retries=0, timeout=5)
    client.find("citation")
    client.find("summarization")
    assert gaps(arxiv.api_requests())[0] >= 0.2


def test_unreachable_port_says_offline():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = ArxivClient(f"http://127.0.0.1:{port}/api/query", delay_seconds=0, num_retries=3, timeout=2)
    with pytest.raises(ArxivUnreachableError, match="offline") as info:
        client.find("citation")
    assert "arxiv.api_url" in str(info.value)


def test_malformed_feed_is_a_network_error(client, arxiv):
    arxiv.send_malformed_feed()
    with pytest.raises(NetworkError, match="malformed"):
        client.find("citation")


def test_cancel_before_request_sends_nothing(client, arxiv):
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        client.find("citation", cancel=token)
    assert arxiv.requests == []


def test_from_settings_reads_arxiv_keys(tmp_home, monkeypatch, arxiv):
    monkeypatch.setenv("PAPERDESK_ARXIV_API_URL", arxiv.api_url)
    monkeypatch.setenv("PAPERDESK_ARXIV_DELAY_SECONDS", "0")
    client = ArxivClient.from_settings(load_settings())
    assert (client.api_url, client.delay_seconds, client.num_retries, client.timeout) == (arxiv.api_url, 0.0, 3, 30.0)
    assert client.fetch("2308.14889").title.startswith("PaperMage")


# -- download -------------------------------------------------------------

def test_download_streams_with_progress_and_matches_fixture(client, tmp_home):
    paper = client.fetch("2302.07302v1")
    papers_dir = tmp_home / "papers"
    dest = path_inside(papers_dir, paper.short_id + ".pdf")
    seen: list[tuple[int, int | None]] = []
    assert client.download_pdf(paper, dest, progress=lambda d, t: seen.append((d, t))) == dest
    size = CITESEE.pdf_path.stat().st_size
    assert dest.read_bytes() == CITESEE.pdf_path.read_bytes()
    done = [d for d, _ in seen]
    assert done == sorted(done) and seen[-1] == (size, size) and {t for _, t in seen} == {size}
    assert files_in(papers_dir) == ["2302.07302v1.pdf"]  # no temp file left behind


def test_cut_off_download_leaves_dest_untouched(client, arxiv, tmp_home):
    paper = client.fetch("2302.07302")
    dest = tmp_home / "papers" / "citesee.pdf"
    dest.parent.mkdir()
    dest.write_bytes(b"previous contents")
    arxiv.cut_pdf_after(200_000)
    with pytest.raises(NetworkError, match="interrupted"):
        client.download_pdf(paper, dest)
    assert dest.read_bytes() == b"previous contents"
    assert files_in(dest.parent) == ["citesee.pdf"]


def test_non_pdf_body_is_refused(client, arxiv, tmp_home):
    paper = client.fetch("2304.02623")
    arxiv.serve_non_pdf()
    dest = tmp_home / "papers" / "x.pdf"
    with pytest.raises(NotFoundError, match="not a PDF"):
        client.download_pdf(paper, dest)
    assert files_in(dest.parent) == []


def test_cancel_mid_download_removes_temp_file(client, tmp_home):
    paper = client.fetch("2206.10883")
    token = CancelToken()
    seen: list[int] = []

    def progress(done: int, total: int | None) -> None:
        seen.append(done)
        if done > 0:
            token.cancel()  # the user presses Esc after the first chunk

    dest = tmp_home / "papers" / "lexsum.pdf"
    with pytest.raises(CancelledError):
        client.download_pdf(paper, dest, progress=progress, cancel=token)
    assert 0 < max(seen) < BY_ID["2206.10883"].pdf_path.stat().st_size
    assert files_in(dest.parent) == []


def test_missing_pdf_link_falls_back_to_abs_url(client, arxiv, tmp_home):
    paper = ArxivPaper("2304.02623", 1, "Beyond Summarization", pdf_url=None, abs_url=f"{arxiv.base_url}/abs/2304.02623v1")
    dest = client.download_pdf(paper, tmp_home / "beyond.pdf")
    assert dest.read_bytes()[:4] == b"%PDF"
    assert arxiv.requests[-1].path == "/pdf/2304.02623v1"


def test_pdf_404_is_not_found(client, arxiv, tmp_home):
    paper = ArxivPaper("2399.99999", 1, "Nothing", pdf_url=f"{arxiv.base_url}/pdf/2399.99999v1")
    with pytest.raises(NotFoundError, match="HTTP 404"):
        client.download_pdf(paper, tmp_home / "nothing.pdf")
    assert files_in(tmp_home) == []


def test_hostile_id_stays_inside_the_data_dir(client, arxiv, tmp_home):
    # A feed could carry any id; the caller builds dest with path_inside, so the file cannot escape.
    paper = ArxivPaper("../../etc/passwd", None, "Hostile", pdf_url=f"{arxiv.base_url}/pdf/2302.07302v1")
    papers_dir = tmp_home / "papers"
    dest = client.download_pdf(paper, path_inside(papers_dir, paper.short_id + ".pdf"))
    assert dest.parent == papers_dir.resolve() and dest.name == "etc_passwd.pdf"
    assert files_in(tmp_home) == ["papers"] and not (tmp_home.parent / "etc").exists()
