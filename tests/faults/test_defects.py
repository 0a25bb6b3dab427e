"""One test per defect of the fault audit: each failed on the code before the fix.

Two Library objects on one home stand in for two processes: each has its own
writer-lock file descriptor, its own in-memory vectors and its own tantivy
handle, exactly what two paperdesk processes have.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from pathlib import Path

import pytest

from conftest import PAPERS
from paperdesk.core.errors import LibraryBusyError, PdfError, StoreError
from paperdesk.core.library.library import Library

pytestmark = pytest.mark.slow


def _copy(tmp_path: Path, name: str, tag: str) -> Path:
    out = tmp_path / f"{tag}.pdf"
    out.write_bytes((PAPERS / name).read_bytes() + f"\n%{tag}\n".encode())
    return out


def _vector_papers(lib: Library, query: str) -> set[str]:
    return {h.paper_id for h in lib.search(query, k=50, mode="vector")}


# 1. Concurrent writers silently dropped a paper from the vector index.
def test_defect1_second_writer_keeps_the_first_writers_vectors(settings, embedder, tmp_path):
    tui = Library(settings, embedder=embedder)  # opened first, like a TUI left open
    cli = Library(settings, embedder=embedder)
    first = cli.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    second = tui.add_pdf(PAPERS / "papermage.pdf").paper  # the TUI's add must not drop the CLI's paper
    assert first.id in _vector_papers(tui, "expository writing")  # and the open TUI sees it
    cli.close(), tui.close()
    again = Library(settings, embedder=embedder)
    assert again.integrity_problems() == []
    assert {first.id, second.id} <= _vector_papers(again, "expository writing citations")
    again.close()


def test_defect1_open_repairs_a_vector_cache_that_lost_a_paper(settings, embedder):
    lib = Library(settings, embedder=embedder)
    lib.add_pdf(PAPERS / "2304.02623v1.pdf")
    # What the race left: a cache stamped with the store's generation but missing chunks.
    lib.vectors.set_all(lib.vectors.ids[:5], lib.vectors.matrix[:5])
    lib.vectors.save_cache(lib.store.vector_generation())
    lib.close()
    again = Library(settings, embedder=embedder)
    assert again.integrity_problems() == []
    again.close()


# 2. A full disk made every later command die trying to finish the failed add.
@pytest.mark.parametrize("stage", ["vectors"])  # every stage: test_fault_suite.py
def test_defect2_disk_full_add_rolls_back_and_the_library_still_opens(settings, embedder, tmp_path, monkeypatch,
                                                                      stage):
    from paperdesk.cli import main
    from paperdesk.core.search.vectors import VectorIndex

    lib = Library(settings, embedder=embedder)
    kept = lib.add_pdf(PAPERS / "2304.02623v1.pdf").paper

    def enospc(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(*(("shutil.copyfileobj", enospc) if stage == "copy" else (VectorIndex, "save_cache", enospc)))
        with pytest.raises(StoreError, match=r"^the disk is full: about \d+ MB needed in .* to add papermage.pdf"):
            lib.add_pdf(PAPERS / "papermage.pdf")
    lib.close()
    for verb in (["list"], ["show", kept.id], ["search", "citations", "--mode", "keyword"]):
        assert main(verb) == 0
    again = Library(settings, embedder=embedder)
    assert [p.id for p in again.store.list_papers()] == [kept.id]  # not quietly finished on open
    assert again.integrity_problems() == []
    again.close()


# 3. A failed add was not undone: "locked" said exit 1, yet the next command finished adding it.
def test_defect3_add_waits_for_another_writer_with_a_message(settings, embedder):
    holder = Library(settings, embedder=embedder)
    messages: list[str] = []
    waiting, holding = threading.Event(), threading.Event()
    writer = Library(settings, embedder=embedder, on_wait=lambda m: (messages.append(m), waiting.set()))

    def other_process_writes() -> None:
        with holder.lock.hold():
            holding.set()
            waiting.wait(120)  # release only once the add has said it waits
            time.sleep(0.3)

    thread = threading.Thread(target=other_process_writes)
    thread.start()
    holding.wait(10)
    result = writer.add_pdf(PAPERS / "2304.02623v1.pdf")
    thread.join()
    assert result.created and len(messages) == 1 and "writing the library; waiting" in messages[0]
    assert writer.integrity_problems() == []
    holder.close(), writer.close()


def test_defect3_add_that_gives_up_leaves_nothing(settings, embedder):
    holder = Library(settings, embedder=embedder)
    writer = Library(settings.with_overrides(library__lock_wait_seconds=0.3), embedder=embedder)
    with holder.lock.hold():
        with pytest.raises(LibraryBusyError, match="nothing was changed"):
            writer.add_pdf(PAPERS / "2304.02623v1.pdf")
    writer.close(), holder.close()
    again = Library(settings, embedder=embedder)
    assert again.store.count_papers() == 0 and list(again.papers_dir.iterdir()) == []
    assert again.integrity_problems() == []
    again.close()


def test_defect3_a_pending_add_is_rolled_back_not_finished(settings, embedder):
    lib = Library(settings, embedder=embedder)
    paper = lib.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    with lib.store.transaction() as conn:  # a process killed after the store commit, before the indexes
        conn.execute("UPDATE papers SET index_state = 'pending' WHERE id = ?", (paper.id,))
    lib.close()
    again = Library(settings, embedder=embedder)
    assert again.store.count_papers() == 0 and again.integrity_problems() == []
    again.close()


# 4. Killed downloads left hidden partial files; no size cap; no total deadline.
def test_defect4_stale_partial_downloads_are_cleaned_at_start(settings, embedder):
    from paperdesk.core.library.repair import PARTIAL_AGE

    lib = Library(settings, embedder=embedder)
    stale = lib.papers_dir / ".2302.07302v1.download.tmp.0123456789ab.part"
    fresh = lib.papers_dir / ".2302.07303v1.download.tmp.ba9876543210.part"
    stale.write_bytes(b"%PDF" + b"0" * 1000)
    fresh.write_bytes(b"%PDF")  # a live download in another process
    old = time.time() - PARTIAL_AGE - 60
    os.utime(stale, (old, old))
    lib.close()
    Library(settings, embedder=embedder).close()
    assert not stale.exists() and fresh.exists()


def test_defect4_trickle_hits_the_deadline_and_huge_hits_the_cap(tmp_path):
    from paperdesk.bench.faults_kill import Tally
    from paperdesk.bench.faults_misc import http_trials

    slow, big = Tally("slow"), Tally("big")
    http_trials(tmp_path / "dl", slow, big)
    assert (slow.tries, slow.clean, big.tries, big.clean) == (1, 1, 2, 2), slow.problems + big.problems


# 5. The shell crashed on a line that is not valid UTF-8.
def test_defect5_shell_reads_invalid_utf8_and_says_which_bytes(tmp_home: Path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "paperdesk", "--offline", "shell", "--keep-going"],
                          input=b"find \xff\xfe x\nhelp\n", capture_output=True, timeout=120, cwd=tmp_home)
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err and "not valid UTF-8 (\\xff \\xfe)" in err
    assert b"> help" in proc.stdout  # the shell went on to the next line


# 6. The same PDF added twice at once: IntegrityError in the second process.
def test_defect6_same_pdf_twice_at_once_is_already_present(settings, embedder):
    first = Library(settings, embedder=embedder)
    second = Library(settings, embedder=embedder)
    done = []

    def other_process_adds_meanwhile(p):
        if p.stage == "embed" and not done:  # the second add has parsed; the first commits now
            done.append(first.add_pdf(PAPERS / "2304.02623v1.pdf"))

    result = second.add_pdf(PAPERS / "2304.02623v1.pdf", progress=other_process_adds_meanwhile)
    assert done[0].created and not result.created and result.paper.id == done[0].paper.id
    assert second.integrity_problems() == []
    first.close(), second.close()


# 7. Secrets echoed in errors.
def test_defect7_credentials_in_remote_url_are_never_shown():
    from paperdesk.core.errors import NetworkError
    from paperdesk.core.llm.backend import GenerationRequest
    from paperdesk.core.llm.remote import RemoteBackend

    backend = RemoteBackend("http://user:sk-SECRET123@127.0.0.1:9/v1")
    with pytest.raises(NetworkError) as info:
        list(backend.stream(GenerationRequest(prompt="hi", max_tokens=1)))
    assert "sk-SECRET123" not in str(info.value) and "***@127.0.0.1:9" in str(info.value)
    assert "sk-SECRET123" not in repr(backend)


def test_defect7_a_wrongly_typed_or_non_ascii_api_key_is_not_echoed(tmp_path):
    from paperdesk.core.config import load_settings
    from paperdesk.core.errors import ConfigError

    config = tmp_path / "config.toml"
    config.write_text('[llm]\napi_key = ["sk-SECRET123"]\n')
    with pytest.raises(ConfigError) as info:
        load_settings(environ={}, path=config)
    assert "sk-SECRET123" not in str(info.value) and "llm.api_key" in str(info.value)
    with pytest.raises(ConfigError) as info:
        load_settings(environ={"PAPERDESK_LLM_API_KEY": "sk-ключ"}, path=tmp_path / "none.toml")
    assert "ключ" not in str(info.value)


# 8. Unvalidated input reached a traceback.
def test_defect8_huge_numbers_and_bad_settings_are_one_line_errors(tmp_home, tmp_path):
    from paperdesk.bench.faults_kill import Tally
    from paperdesk.bench.faults_misc import bad_input_trials

    tally = Tally("input")
    bad_input_trials(tmp_home, None, tmp_path, tally)
    assert tally.tries >= 18 and tally.clean == tally.tries, tally.problems


def test_defect8_show_page_overflow_on_a_real_paper(library, capsys):
    from paperdesk.cli import main

    paper = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    for page in ("99999999999999999999", "-99999999999999999999", "0"):
        assert main(["show", paper.id, "--page", page]) == 1
        assert capsys.readouterr().err.count("\n") == 1


def test_defect8_braces_in_api_url_and_a_bad_feed_date(arxiv, tmp_path):
    from paperdesk.bench.hostile_http import HostileServer
    from paperdesk.core.sources.arxiv import ArxivClient

    client = ArxivClient(arxiv.api_url + "?x={x}&", delay_seconds=0, num_retries=0)
    client.find("citation")  # no KeyError from str.format; the server ignores the extra parameter
    server = HostileServer().start()
    try:
        good = ArxivClient(arxiv.api_url, delay_seconds=0, num_retries=0).find("citation", max_results=2)
        import requests

        feed = requests.get(arxiv.api_url, params={"search_query": "all:citation", "max_results": "2"}).content
        server.canned_body = feed.replace(b"<published>", b"<published>not-a-date", 1)
        server.canned_type = "application/atom+xml"
        papers = ArxivClient(server.url("/canned"), delay_seconds=0, num_retries=0).find("citation", max_results=2)
        assert [p.short_id for p in papers] == [p.short_id for p in good][1:]  # the bad entry alone is skipped
    finally:
        server.stop()


def test_defect8_remote_stream_that_is_not_an_openai_stream():
    from paperdesk.bench.hostile_http import HostileServer
    from paperdesk.core.errors import NetworkError
    from paperdesk.core.llm.backend import GenerationRequest
    from paperdesk.core.llm.remote import RemoteBackend

    server = HostileServer().start()
    try:
        for body in (b"data: hello\n\n", b'data: {"id": 1}\n\n', b'data: {"choices": []}\n\n'):
            server.canned_body, server.canned_type = body, "text/event-stream"
            with pytest.raises(NetworkError, match="not an OpenAI completion"):
                list(RemoteBackend(server.url("/canned")).stream(GenerationRequest(prompt="hi", max_tokens=1)))
    finally:
        server.stop()


def test_defect8_corrupted_pdf_reports_damaged_pages_and_fullwidth_ids_are_rejected(tmp_path, capsys, library):
    import random

    from paperdesk.core.ids import looks_like_arxiv
    from paperdesk.core.ingest.pdf import parse_pdf

    data = bytearray((PAPERS / "2304.02623v1.pdf").read_bytes())
    rng = random.Random(0)
    start = len(data) // 3
    data[start:start + 50_000] = bytes(rng.randrange(256) for _ in range(50_000))
    bad = tmp_path / "damaged.pdf"
    bad.write_bytes(bytes(data))
    assert parse_pdf(bad).bad_pages == [2]
    assert parse_pdf(PAPERS / "2304.02623v1.pdf").bad_pages == []
    assert not looks_like_arxiv("２３０２.０７３０２") and looks_like_arxiv("2302.07302")


def test_defect8_data_dir_that_is_a_file(tmp_path, settings):
    a_file = tmp_path / "f"
    a_file.write_text("x")
    with pytest.raises(StoreError, match="cannot use .* as the data directory"):
        Library(settings.with_overrides(home=str(a_file)))


# Lesser.
def test_lesser_429_wait_is_counted_down(arxiv):
    from paperdesk.core.sources.arxiv import ArxivClient

    client = ArxivClient(arxiv.api_url, delay_seconds=0, num_retries=1)
    client.backoff_base, client.max_retry_wait = 0.01, 3.0
    seen: list[float] = []
    client.on_wait = lambda left, why: seen.append(left)
    arxiv.fail_api(1, status=429, retry_after=2.5)
    client.find("citation")
    assert len(seen) >= 3 and seen[0] > 1.5 and seen[-1] == 0.0 and seen == sorted(seen, reverse=True)


def test_lesser_arxiv_library_warnings_go_to_the_log_not_stderr(capfd, caplog, arxiv):
    import logging

    from paperdesk.bench.hostile_http import HostileServer
    from paperdesk.core.sources.arxiv import ArxivClient

    import requests

    feed = requests.get(arxiv.api_url, params={"search_query": "all:citation", "max_results": "2"}).content
    server = HostileServer().start()
    server.canned_body = feed.replace(b"<id>http://arxiv.org/abs/", b"<idx>", 1).replace(b"</id>\n    <updated>", b"</idx>\n    <updated>", 1)
    server.canned_type = "application/atom+xml"
    try:
        with caplog.at_level(logging.INFO, logger="paperdesk.arxiv"):
            ArxivClient(server.url("/canned"), delay_seconds=0, num_retries=0).find("citation", max_results=2)
    finally:
        server.stop()
    assert "Skipping entry" not in capfd.readouterr().err
    assert any(r.name == "paperdesk.arxiv" and "Skipping entry" in r.getMessage() for r in caplog.records)
    assert not any(r.name.startswith("arxiv") for r in caplog.records)  # not left to propagate to stderr


def test_lesser_non_http_pdf_link_and_download_errors_name_the_paper(library, tmp_path):
    from paperdesk.bench.hostile_http import HostileServer
    from paperdesk.core.errors import NotFoundError
    from paperdesk.core.sources.arxiv import ArxivClient, ArxivPaper

    client = ArxivClient("http://127.0.0.1:9/api", delay_seconds=0, num_retries=0)
    with pytest.raises(NotFoundError) as info:
        client.download_pdf(ArxivPaper("2302.07302", 1, "t", pdf_url="ftp://arxiv.org/pdf/2302.07302v1"),
                            tmp_path / "x")
    assert "api_url" not in str(info.value) and "2302.07302v1" in str(info.value)
    server = HostileServer().start()
    server.canned_body, server.canned_type = b"%PDF-1.5\nnot really a pdf\n", "application/pdf"
    try:
        meta = ArxivPaper("2302.07302", 1, "t", pdf_url=server.url("/pdf/canned"))
        with pytest.raises(PdfError) as info:
            library.add_arxiv("2302.07302v1", client, meta=meta)
    finally:
        server.stop()
    assert "the PDF of 2302.07302v1" in str(info.value) and ".tmp" not in str(info.value)
    assert library.integrity_problems() == []


def test_lesser_add_empty_string_is_a_usage_error(tmp_home, capsys):
    from paperdesk.cli import main

    assert main(["add", ""]) == 2
    assert "give an arXiv id" in capsys.readouterr().err


def test_defect3_adding_again_after_a_dead_add_really_adds_it(settings, embedder):
    lib = Library(settings, embedder=embedder)
    paper = lib.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    with lib.store.transaction() as conn:  # another process died mid-add; this one stays open
        conn.execute("UPDATE papers SET index_state = 'pending' WHERE id = ?", (paper.id,))
    result = lib.add_pdf(PAPERS / "2304.02623v1.pdf")
    assert result.created and result.paper.index_state == "indexed"
    assert lib.integrity_problems() == []
    lib.close()
