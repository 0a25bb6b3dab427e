"""`paperdesk bench faults`: tries / clean / lost per class of fault, on a scratch library.

Classes: kill -9 during add, summarize and research (random points, seeded),
two writers at once (different papers, and the same PDF), a full disk (real
tmpfs when run as root, plus ENOSPC injected at each write stage), a full
disk under the shell and the Notes pane's writer (faults_shell.py) and under
the TUI's Notes pane itself (faults_tui.py), a
trickling and an oversized download, export to a symlink or a device, hostile
model-server streams, bad input on every verb, a truncated or zero-byte
catalogue rebuilt by `doctor --rebuild`, removes in a copied library
(faults_library.py), free text that would discard work in each face
(faults_dispatch.py), and PDFs with far more text than a paper, a model install
killed outright and the same PDF under other names (faults_limits.py), and Ctrl-C during
`paperdesk add DIR` followed by the same command (`batch`: each paper exactly once). "clean"
means the library opened afterwards with integrity ok, chunks = keyword docs =
vectors by id and no stray files (and, for bad input, one line and exit 1/2);
"lost" counts papers whose add had returned and that were gone afterwards.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from paperdesk.core.config import Settings, load_settings
from paperdesk.bench.faults_kill import Tally, Zygote, concurrent_trials, kill_trials
from paperdesk.bench import faults_io as fio
from paperdesk.bench import faults_misc as misc

PAPERS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "papers"


def sources() -> list[Path]:
    """Small real PDFs to add: the test fixtures when present, else the shared data."""
    for folder in (PAPERS, Path("/work/shared/data/papers")):
        found = sorted(p for p in folder.glob("*.pdf") if p.stat().st_size < 2_500_000)
        if found:
            return found[:3]
    raise SystemExit("bench faults: no PDFs found in tests/fixtures/papers")


def run_all(root: Path, embedder, kills: int, seed: int, classes: set[str] | None = None) -> list[Tally]:
    """Every fault class on scratch libraries under `root`; `kills` kill -9s in all (split add/summarize/research)."""
    rng = random.Random(seed)
    pdfs = sources()
    tallies: list[Tally] = []

    def want(name: str) -> bool:
        return classes is None or name in classes

    def home_settings(name: str) -> Settings:
        home = root / name
        home.mkdir(parents=True, exist_ok=True)
        return load_settings(environ={"PAPERDESK_HOME": str(home)}, path=root / "no-config.toml")

    if want("kill") or want("writers"):
        settings = home_settings("kills")
        zygote = Zygote(settings.home, pdfs)
        try:
            if want("kill"):
                n_model = max(1, kills // 8)
                for op, n, delay in (("add", kills - 2 * n_model, 2.5), ("summarize", n_model, 3.0),
                                     ("research", n_model, 3.0)):
                    tally = Tally(f"kill -9 during {op}")
                    kill_trials(zygote, settings, embedder, op, n, rng, delay, tally)
                    tallies.append(tally)
            if want("writers"):
                tally = Tally("two writers, two papers")
                concurrent_trials(zygote, settings, embedder, 2, rng, tally)
                tallies.append(tally)
                tally = Tally("two writers, same PDF")
                concurrent_trials(zygote, settings, embedder, 1, rng, tally, same_paper=True)
                tallies.append(tally)
        finally:
            zygote.close()
    if want("disk"):
        tally = Tally("disk full (injected ENOSPC)")
        misc.injected_disk_full_trials(home_settings("injected"), embedder, pdfs[0], tally)
        tallies.append(tally)
        if misc.can_mount_tmpfs():
            tally = Tally("disk full (real tmpfs)")
            misc.tmpfs_disk_full_trials(root, home_settings("tmpfs-base"), embedder, pdfs, tally)
            tallies.append(tally)
    if want("shell"):
        from paperdesk.bench.faults_shell import shell_full_disk_trials

        tally = Tally("full disk in the shell")
        shell_full_disk_trials(root / "shell", embedder, pdfs[0], tally)
        tallies.append(tally)
        from paperdesk.bench.faults_tui import tui_full_disk_trials

        tally = Tally("full disk in the TUI notes")
        tui_full_disk_trials(root / "tui", embedder, pdfs[0], tally)
        tallies.append(tally)
    if want("http"):
        slow, big = Tally("trickling download"), Tally("oversized download")
        misc.http_trials(root / "downloads", slow, big)
        tallies += [slow, big]
    if want("rebuild"):
        from paperdesk.bench import faults_library

        cut, empty = Tally("doctor rebuild, truncated db"), Tally("doctor rebuild, zero-byte db")
        faults_library.rebuild_trials(root, embedder, pdfs, rng, cut, empty)
        tallies += [cut, empty]
    if want("copied"):
        from paperdesk.bench import faults_library

        tally = Tally("copied library remove")
        faults_library.copied_library_trials(root, embedder, pdfs, tally)
        tallies.append(tally)
    if want("export"):
        tally = Tally("export to a symlink / device")
        settings = home_settings("export")
        from paperdesk.core.library.library import Library

        library = Library(settings, embedder=embedder)
        try:
            library.add_pdf(pdfs[0])
        finally:
            library.close()
        fio.export_target_trials(settings.home, root / "export-targets", tally)
        tallies.append(tally)
    if want("sse"):
        tally = Tally("hostile SSE shapes")
        fio.hostile_sse_trials(tally)
        tallies.append(tally)
    if want("dispatch"):  # free text that would discard work, in each face: asked first, nothing lost on no
        from paperdesk.bench import faults_dispatch

        tallies += faults_dispatch.run_all(home_settings, embedder, pdfs[0])
    if want("limits"):
        from paperdesk.bench import faults_limits

        tally = Tally("PDF with far more text than a paper")
        faults_limits.text_limit_trials(home_settings("limits"), embedder, root / "limits-pdfs", tally)
        tallies.append(tally)
        tally = Tally("kill -9 during models install")
        faults_limits.killed_install_trials(root / "install", tally)
        tallies.append(tally)
        tally = Tally("the same PDF under other names")
        faults_limits.same_pdf_trials(home_settings("same-pdf"), embedder, pdfs, root / "same-pdf-copies", tally)
        tallies.append(tally)
    if want("batch"):  # Ctrl-C at a random moment of `paperdesk add DIR`, then the same command again
        from paperdesk.bench.import_speed import generate, interrupt_trial, real_pdfs

        tally = Tally("Ctrl-C during add DIR, then again")
        for n in range(2):
            made = generate(real_pdfs(), 30, root / f"batch-{n}" / "pdfs", seed=seed + n)
            result = interrupt_trial(made, root / f"batch-{n}" / "home", rng)
            problems = [] if result["exactly_once"] else [f"{result['papers_after_rerun']} papers of "
                                                         f"{result['expected']}: {result['problems']}"]
            tally.record(problems, max(0, result["expected"] - result["papers_after_rerun"]))
        tallies.append(tally)
    if want("input"):
        tally = Tally("bad input on every verb")
        settings = home_settings("input")
        misc.bad_input_trials(settings.home, None, root, tally)
        tallies.append(tally)
    return tallies


def report(tallies: list[Tally]) -> str:
    lines = [f"{'class':<30} {'tries':>5} {'clean':>5} {'lost':>5}"]
    for t in tallies:
        lines.append(f"{t.name:<30} {t.tries:>5} {t.clean:>5} {t.lost:>5}")
        lines += [f"    ! {p}" for p in t.problems[:5]]
    total = Tally("all", sum(t.tries for t in tallies), sum(t.clean for t in tallies), sum(t.lost for t in tallies))
    lines.append(f"{total.name:<30} {total.tries:>5} {total.clean:>5} {total.lost:>5}")
    return "\n".join(lines)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from paperdesk.core.search.embedder import Embedder

    embedder = Embedder()
    with tempfile.TemporaryDirectory(prefix="paperdesk-faults-") as tmp:
        tallies = run_all(Path(tmp), embedder, args.kills, args.seed, set(args.only) if args.only else None)
    if args.json:
        data: list[dict[str, Any]] = [
            {"class": t.name, "tries": t.tries, "clean": t.clean, "lost": t.lost, "problems": t.problems}
            for t in tallies
        ]
        print(json.dumps({"seed": args.seed, "classes": data}, indent=2))
    else:
        print(f"bench faults (seed {args.seed}, {args.kills} kills)")
        print(report(tallies))
    return 0
