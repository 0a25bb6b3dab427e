"""Which command opens a PDF at a page, and how the text face marks a cited passage (no viewer is started)."""

from pathlib import Path

import pytest

from paperdesk.core.library.external import ViewerError, plan_viewer
from paperdesk.core.commands.views import PageView
from paperdesk.text_views import render

PDF = Path("/lib/papers/p.pdf")


def which_of(*present):
    return lambda name: f"/usr/bin/{name}" if name in present else None


def test_the_configured_viewer_wins_and_gets_the_page():
    plan = plan_viewer(PDF, 4, "okular --page {page}", which=which_of("okular"))
    assert plan.argv == ["okular", "--page", "4", str(PDF)] and plan.at_page
    with pytest.raises(ViewerError, match="'nope' \\(reader.pdf_viewer\\) is not installed"):
        plan_viewer(PDF, 4, "nope {file}", which=which_of())


def test_the_desktop_default_is_used_at_the_page_when_its_option_is_known():
    plan = plan_viewer(PDF, 7, platform="linux", which=which_of("evince", "xdg-open"),
                       default_app=lambda: "org.gnome.Evince.desktop")
    assert plan.argv == ["evince", "--page-index=7", str(PDF)] and plan.at_page
    plan = plan_viewer(PDF, 7, platform="linux", which=which_of("xdg-open"), default_app=lambda: "foxit.desktop")
    assert plan.argv == ["xdg-open", str(PDF)] and not plan.at_page
    plan = plan_viewer(PDF, 7, platform="linux", which=which_of("mupdf"), default_app=lambda: "")
    assert plan.argv == ["mupdf", str(PDF), "7"]
    assert plan_viewer(PDF, 2, platform="darwin", which=which_of("open")).argv == ["open", str(PDF)]
    with pytest.raises(ViewerError, match="no PDF viewer found: install xdg-utils"):
        plan_viewer(PDF, 1, platform="linux", which=which_of(), default_app=lambda: "")


def test_the_text_face_marks_the_cited_passage():
    view = PageView("p1", "A paper", 2, 9, "Intro.\nCiteSee aug-\nments citations by highlighting them.",
                    highlight="CiteSee augments citations by highlighting")
    text = render(view)
    assert ">>>CiteSee aug-\nments citations by highlighting<<<" in text
    assert "\033[7mCiteSee" in render(view, color=True)
    missing = render(PageView("p1", "A paper", 2, 9, "Other words.", highlight="not on this page at all"))
    assert "(the passage 'not on this page at all' was not found on this page)" in missing
