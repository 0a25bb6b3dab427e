"""The headless CLI: JSON shapes, exit codes, one-line errors, on real papers and a loopback arXiv."""

import json
import os
import subprocess
import sys

import pytest

from conftest import PAPERS
from paperdesk.cli import main

pytestmark = pytest.mark.slow


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fast_arxiv(arxiv, monkeypatch):
    monkeypatch.setenv("PAPERDESK_ARXIV_API_URL", arxiv.api_url)
    monkeypatch.setenv("PAPERDESK_ARXIV_DELAY_SECONDS", "0")
    return arxiv


def test_add_list_show_search_remove(tmp_home, capsys, embedder):
    code, out, err = run_cli(capsys, "add", str(PAPERS / "2302.07302v1.pdf"), "--json")
    assert code == 0, err
    added = json.loads(out)
    pid = added["paper"]["id"]
    assert added["created"] and added["chunks"] > 10

    code, out, _ = run_cli(capsys, "list", "--json")
    papers = json.loads(out)["papers"]
    assert [p["id"] for p in papers] == [pid]
    assert {"id", "title", "authors", "added"} <= set(papers[0])

    code, out, _ = run_cli(capsys, "search", "reading", "tools", "citations", "--k", "3", "--json")
    hits = json.loads(out)["hits"]
    assert len(hits) == 3
    assert set(hits[0]) == {"paper_id", "title", "chunk_id", "page_start", "page_end", "section", "snippet",
                            "score", "scores"}
    assert set(hits[0]["scores"]) == {"keyword", "vector"}
    assert hits[0]["paper_id"] == pid

    code, out, _ = run_cli(capsys, "search", "citations", "--mode", "keyword", "--paper", pid)
    assert code == 0 and "1." in out and "p." in out

    code, out, _ = run_cli(capsys, "show", pid, "--page", "2", "--json")
    page = json.loads(out)
    assert page["page"] == 2 and page["pages"] == 15 and page["text"]

    code, out, _ = run_cli(capsys, "show", pid)
    assert code == 0 and "CiteSee" in out and "pages: 15" in out

    code, out, _ = run_cli(capsys, "remove", pid)
    assert code == 0 and "removed" in out
    code, out, _ = run_cli(capsys, "list")
    assert "empty" in out


def test_find_and_add_from_loopback_arxiv(tmp_home, capsys, fast_arxiv, embedder):
    code, out, err = run_cli(capsys, "find", "citations", "scientific", "papers", "--json")
    assert code == 0, err
    results = json.loads(out)["results"]
    assert "2302.07302v1" in [r["id"] for r in results]
    code, out, _ = run_cli(capsys, "find", "citations")
    assert "2302.07302v1" in out
    code, out, err = run_cli(capsys, "add", "https://arxiv.org/abs/2304.02623")
    assert code == 0, err
    assert "added 2304.02623v1" in out
    code, out, _ = run_cli(capsys, "show", "arXiv:2304.02623", "--json")
    assert json.loads(out)["arxiv_id"] == "2304.02623"


@pytest.mark.parametrize(
    ("argv", "code", "needle"),
    [
        (["show", "2302.07302"], 1, "no paper 2302.07302 in the library"),
        (["show", "../../etc/passwd"], 1, "not a paper id"),
        (["add", "../../no/such/passwd"], 1, "not an arXiv id and no such file"),
        (["show", "2302.07302", "--page", "x"], 2, "invalid int value"),
        (["frobnicate"], 2, "invalid choice"),
        (["search"], 2, "required"),
        (["search", "  "], 1, "empty query"),
        (["list", "--page", "9"], 2, "does not exist"),
        (["add", "missing-file.pdf"], 1, "no such file"),
        (["find", "x", "--offline"], 2, "unrecognized"),
        (["--offline", "find", "citations"], 1, "offline"),
    ],
)
def test_user_errors_are_one_line(tmp_home, capsys, argv, code, needle):
    got, out, err = run_cli(capsys, *argv)
    assert got == code
    assert needle in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unreachable_arxiv_says_offline(tmp_home, capsys, monkeypatch):
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    monkeypatch.setenv("PAPERDESK_ARXIV_API_URL", f"http://127.0.0.1:{port}/api/query")
    code, _, err = run_cli(capsys, "add", "2302.07302")
    assert code == 1 and "arXiv unreachable (offline?)" in err
    assert not any((tmp_home / "papers").iterdir())


def test_subprocess_bad_config_and_corrupt_pdf(tmp_home, tmp_path):
    env = {**os.environ, "PAPERDESK_SEARCH_MODE": "fuzzy"}
    proc = subprocess.run([sys.executable, "-m", "paperdesk", "list"], env=env, capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "error: config key search.mode (PAPERDESK_SEARCH_MODE): expected one of hybrid, keyword, vector, got 'fuzzy'"
    )
    half = tmp_path / "half.pdf"
    half.write_bytes((PAPERS / "2304.02623v1.pdf").read_bytes()[:20000])
    proc = subprocess.run([sys.executable, "-m", "paperdesk", "add", str(half)], capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "paperdesk", "list", "--json"], capture_output=True, text=True)
    assert json.loads(proc.stdout)["papers"] == []
