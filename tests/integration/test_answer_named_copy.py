"""A library holding one text twice (a preprint and its journal version): an answer to a question that names
one copy, read from the other copy's passage, is cited to the named copy's own page instead of being
withdrawn as an answer about another paper (real library and embedder; FakeLLM: a scripted text, not a model).
"""

from pathlib import Path

import pymupdf
import pytest

from fake_llm import FakeLLM
from paperdesk.core.agents import answer as answers

pytestmark = pytest.mark.slow
SHARED = ("The sampling design has two fundamental problems: drift in the gauges and a bias towards "
          "sites with many visits.")


def _paper(path: Path, title: str, filler: str, pages: int) -> Path:
    """A paper of `pages` pages of `filler` lines with SHARED on its last page."""
    doc = pymupdf.open()
    for number in range(pages):
        page = doc.new_page(width=612, height=792)
        y = 80.0
        if number == 0:
            page.insert_text((72, y), title, fontsize=16, fontname="hebo")
            y += 40
        for _ in range(40):
            page.insert_text((72, y), filler, fontsize=9, fontname="tiro")
            y += 14
        if number == pages - 1:
            page.insert_text((72, y + 10), SHARED, fontsize=9, fontname="tiro")
    doc.set_metadata({"creationDate": "", "modDate": ""})
    doc.save(path)
    doc.close()
    return path


def test_an_answer_read_from_another_copy_cites_the_named_paper(library, tmp_path):
    named = library.add_pdf(_paper(tmp_path / "a.pdf", "Rivulet: Counting Streams in Upland Basins",
                                   "The survey walked every stream bank twice in spring and in late autumn.", 3)).paper
    other = library.add_pdf(_paper(tmp_path / "b.pdf", "Brooklet: Upland Stream Counts Revisited",
                                   "Gauges were read each morning and logged by hand into field notebooks.", 1)).paper
    first = library.store.chunks_of(named.id)[0]
    assert SHARED.split(":")[0] not in " ".join(first.text.split())  # the named paper's first passage lacks it
    copy = next(c for c in library.store.chunks_of(other.id) if "fundamental problems" in c.text)
    hits = [answers.Hit(named.id, named.title, first.id, first.page_start, first.page_end, first.section,
                        first.text[:80], 1.0, None, 0.5),
            answers.Hit(other.id, other.title, copy.id, copy.page_start, copy.page_end, copy.section,
                        copy.text[:80], 0.9, None, 0.5)]
    question = "What two fundamental problems does the Rivulet paper see in its sampling design?"
    fake = FakeLLM("Drift in the gauges and a bias towards sites with many visits [2].")
    result = answers.write(library, fake, question, hits)
    assert not result.not_found, result.text
    assert [c["paper_id"] for c in result.citations] == [named.id]
    holder = next(c for c in library.store.chunks_of(named.id) if "fundamental problems" in c.text)
    assert result.citations[0]["chunk_id"] == holder.id and result.citations[0]["page"] == holder.page_start
    # the same answer to a question naming no paper keeps the passage it was read from
    plain = answers.write(library, FakeLLM("Drift in the gauges and a bias towards sites with many visits [2]."),
                          "What two fundamental problems does the sampling design have?", hits)
    assert [c["paper_id"] for c in plain.citations] == [other.id]
