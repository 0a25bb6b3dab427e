"""`export --out PATH` writes where the user pointed without breaking what is there.

Real files, symlinks, hard links, modes, a fifo, a device node; the CLI and the Desk on a real library.
Nothing under /dev is written: /dev/full is tried only once a device node of the same kind, made in a
scratch folder, has been refused.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from conftest import PAPERS
from paperdesk.core.errors import InvalidArgumentError
from paperdesk.core.library.export import write_export

NEW = "@misc{new2024,\n  title = {New}\n}\n"


def test_a_symlink_is_written_through_and_stays_a_symlink(tmp_path):
    real = tmp_path / "refs" / "real.bib"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "link.bib"
    link.symlink_to(real)
    assert write_export(link, NEW) == real
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == NEW and link.read_text() == NEW


def test_a_dangling_symlink_creates_the_file_it_points_to(tmp_path):
    link = tmp_path / "link.bib"
    link.symlink_to(tmp_path / "not-yet.bib")
    write_export(link, NEW)
    assert link.is_symlink() and (tmp_path / "not-yet.bib").read_text() == NEW


def test_an_existing_file_keeps_its_mode_and_a_new_one_gets_the_umask(tmp_path):
    private = tmp_path / "private.bib"
    private.write_text("old\n")
    private.chmod(0o600)
    write_export(private, NEW)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600 and private.read_text() == NEW
    odd = tmp_path / "odd.bib"
    odd.write_text("old\n")
    odd.chmod(0o640)
    write_export(odd, NEW)
    assert stat.S_IMODE(odd.stat().st_mode) == 0o640
    old = os.umask(0o027)
    try:
        write_export(tmp_path / "fresh.bib", NEW)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "fresh.bib").stat().st_mode) == 0o640


def test_hard_links_are_kept_and_a_shorter_text_leaves_no_tail(tmp_path):
    first, second = tmp_path / "a.bib", tmp_path / "b.bib"
    first.write_text("x" * 10_000)
    os.link(first, second)
    inode = first.stat().st_ino
    write_export(first, NEW)
    assert first.stat().st_ino == inode and second.stat().st_ino == inode and first.stat().st_nlink == 2
    assert second.read_text() == NEW


def test_no_temp_file_is_left_beside_the_target(tmp_path):
    write_export(tmp_path / "a.bib", NEW)
    write_export(tmp_path / "a.bib", NEW + NEW)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bib"]


def _device_node(tmp_path: Path) -> Path | None:
    """A character device like /dev/full (1, 7) in the scratch folder, where this user may make one."""
    node = tmp_path / "full"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except (PermissionError, OSError):
        return None
    return node


def test_non_regular_targets_are_refused_in_one_line_and_left_alone(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    targets = [fifo, tmp_path / "link-to-pipe"]
    targets[1].symlink_to(fifo)
    node = _device_node(tmp_path)
    if node is not None:
        targets.append(node)
    for target in targets:
        before = os.lstat(target)
        with pytest.raises(InvalidArgumentError) as info:
            write_export(target, NEW)
        message = str(info.value)
        assert "\n" not in message and "not a file" in message and "--out -" in message, message
        after = os.lstat(target)
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode), target
    assert "named pipe" in message or "character device" in message
    with pytest.raises(InvalidArgumentError, match="is a directory"):
        write_export(tmp_path, NEW)
    if node is None:
        pytest.skip("cannot make a device node here, so /dev/full itself is not tried")
    before = os.stat("/dev/full")
    with pytest.raises(InvalidArgumentError, match="character device"):
        write_export(Path("/dev/full"), NEW)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode) and os.stat("/dev/full").st_ino == before.st_ino


@pytest.fixture
def one_paper(library, tmp_path, monkeypatch):
    """A real library holding the 4-page position paper; the working directory is a scratch folder."""
    monkeypatch.chdir(tmp_path)
    return library.add_pdf(PAPERS / "2304.02623v1.pdf").paper


@pytest.mark.slow
def test_cli_out_dash_is_stdout_for_every_export_form(one_paper, library, tmp_path, capsys):
    from paperdesk.cli import main

    library.store.add_revision(one_paper.id, "A summary that cites a page [p. 1].")
    forms = (["bibtex", "--all"], ["bibtex", one_paper.id], ["markdown", "summary", one_paper.id])
    for form in forms:
        assert main(["export", *form, "--out", "-"]) == 0, form
        captured = capsys.readouterr()
        assert captured.out.startswith("@misc{" if form[0] == "bibtex" else "# Summary: "), captured.out[:80]
        assert captured.err.startswith("exported ") and "to stdout" in captured.err
    assert not (tmp_path / "-").exists()
    assert main(["export", "bibtex", "--all", "--out", "-", "--json"]) == 2
    assert "--json and --out -" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_refuses_a_fifo_and_writes_through_a_symlink(one_paper, tmp_path, capsys):
    from paperdesk.cli import main

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert main(["export", "bibtex", "--all", "--out", str(fifo)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "named pipe" in err and "Traceback" not in err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    real = tmp_path / "real.bib"
    real.write_text("old")
    real.chmod(0o600)
    (tmp_path / "link.bib").symlink_to(real)
    assert main(["export", "bibtex", "--all", "--out", "link.bib"]) == 0
    assert (tmp_path / "link.bib").is_symlink() and real.read_text().startswith("@misc{")
    assert stat.S_IMODE(real.stat().st_mode) == 0o600


@pytest.mark.slow
def test_desk_out_dash_shows_the_export_instead_of_writing_a_file(one_paper, library, settings, embedder, tmp_path):
    from paperdesk.core.desk.desk import Desk

    desk = Desk(settings, embedder=embedder)
    try:
        out = desk.run("export bibtex --all --out -")
        assert out.ok and "shown below" in out.message, out.message
        assert out.view is not None and out.view.lines[0].startswith("@misc{")
        assert not (tmp_path / "-").exists()
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        refused = desk.run(f"export bibtex --all --out {fifo}")
        assert refused.status == "error" and "named pipe" in refused.message
    finally:
        desk.close()


@pytest.mark.slow
def test_bench_export_target_trials_run_clean(one_paper, settings, tmp_path):
    from paperdesk.bench.faults_io import export_target_trials
    from paperdesk.bench.faults_kill import Tally

    tally = Tally("export")
    export_target_trials(settings.home, tmp_path / "targets", tally)
    assert tally.tries >= 6 and tally.clean == tally.tries, tally.problems
