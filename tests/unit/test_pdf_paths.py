"""Stored PDF paths are relative to the library home, and only files inside its papers/ may be deleted."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from paperdesk.core.db.pdf_paths import full_pdf_path, owned_pdf, stored_pdf_path
from paperdesk.core.library.private import make_private_home


def test_paths_inside_the_home_are_stored_relative(tmp_path: Path):
    home = tmp_path / "lib"
    assert stored_pdf_path(str(home / "papers" / "a.pdf"), home) == "papers/a.pdf"
    assert stored_pdf_path("/elsewhere/a.pdf", home) == "/elsewhere/a.pdf"
    assert full_pdf_path("papers/a.pdf", home) == str(home / "papers" / "a.pdf")
    assert full_pdf_path("/elsewhere/a.pdf", home) == "/elsewhere/a.pdf"


def test_only_files_in_this_librarys_papers_folder_are_owned(tmp_path: Path):
    home = tmp_path / "lib"
    (home / "papers").mkdir(parents=True)
    (home / "papers" / "a.pdf").write_bytes(b"%PDF")
    outside = tmp_path / "mine.pdf"
    outside.write_bytes(b"%PDF")
    (home / "papers" / "link.pdf").symlink_to(outside)
    assert owned_pdf(home, "papers/a.pdf") == home / "papers" / "a.pdf"
    assert owned_pdf(home, str(outside)) is None
    assert owned_pdf(home, "papers/../../mine.pdf") is None
    assert owned_pdf(home, "papers/link.pdf") is None  # a link out of the library: not ours to remove
    assert owned_pdf(home, str(tmp_path / "other" / "papers" / "a.pdf")) is None  # another library's file


def test_a_new_home_is_0700_and_an_old_one_is_tightened_but_not_through_links(tmp_path: Path):
    old = os.umask(0o022)
    try:
        home = tmp_path / "new"
        make_private_home(home)
        assert stat.S_IMODE(home.stat().st_mode) == 0o700
        shared = tmp_path / "shared.sqlite"
        shared.write_bytes(b"")
        os.chmod(shared, 0o644)
        (home / "library.sqlite").symlink_to(shared)
        (home / "paperdesk.log").write_text("typed commands")
        os.chmod(home, 0o755)
        make_private_home(home)
        assert stat.S_IMODE(home.stat().st_mode) == 0o700
        assert stat.S_IMODE((home / "paperdesk.log").stat().st_mode) == 0o600
        assert stat.S_IMODE(shared.stat().st_mode) == 0o644  # the link's target is left alone
    finally:
        os.umask(old)
