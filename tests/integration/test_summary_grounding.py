"""Summaries of all 4 fixture papers with the real default model: cited pages, no loops.

One short summary per paper (module-scoped, shared by every assert below) keeps this cheap.
"""

import json
import re

import numpy as np
import pytest

from conftest import PAPERS
from paperdesk.core.agents import extractive, quality
from paperdesk.core.agents.attribution import KEEP, shares_words
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.summarizer import SECTIONS, Summarizer, split_sections

pytestmark = pytest.mark.slow
FILES = sorted(PAPERS.glob("*.pdf"))


@pytest.fixture(scope="module")
def summaries(tmp_path_factory, embedder, local_backend):
    """{pdf name: (result, paper, chunks)}: one summary of each fixture paper, in one library."""
    from paperdesk.core.config import load_settings
    from paperdesk.core.library.library import Library

    home = tmp_path_factory.mktemp("grounding-home")
    settings = load_settings(environ={"PAPERDESK_HOME": str(home)}, path=home / "absent.toml")
    library = Library(settings, embedder=embedder)
    out = {}
    try:
        for pdf in FILES:
            paper = library.add_pdf(pdf).paper
            result = Summarizer(library.store, local_backend, section_tokens=40, map_tokens=30,
                                embedder=embedder, excerpts=4).summarize(paper.id)
            out[pdf.name] = (result, paper, library.store.chunks_of(paper.id))
            # Shown with -s: the grounding block per paper, as `summarize --json` reports it.
            print(f"\n{pdf.name} grounding: {json.dumps(result.grounding.to_json())}", flush=True)
    finally:
        library.close()
    return out


def cited_sentences(body):
    """(sentence without its citation, [pages]) for each cited sentence of a section body."""
    for sentence in quality.split_sentences(body):
        pages = [p for m in CITATION.finditer(sentence)
                 for p in range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1)]
        if pages:
            yield CITATION.sub("", sentence).strip(" -."), pages


@pytest.mark.parametrize("name", [f.name for f in FILES])
def test_each_section_with_a_claim_cites_and_the_summary_has_three(summaries, name):
    result, paper, _chunks = summaries[name]
    sections = split_sections(result.text)
    assert [h for _, h in SECTIONS] == list(sections)
    total = 0
    for heading, body in sections.items():
        claims = [s for s in quality.split_sentences(body) if not s.startswith(quality.EXTRACTIVE_MARK)]
        cites = len(CITATION.findall(body))
        assert not claims or cites >= 1, f"{name} {heading} has no citation: {body!r}"
        total += cites
        for match in CITATION.finditer(body):
            assert 1 <= int(match.group(1)) <= int(match.group(2) or match.group(1)) <= paper.page_count
    assert total >= 3, result.text


@pytest.mark.parametrize("name", [f.name for f in FILES])
def test_every_cited_page_supports_its_sentence(summaries, name, embedder):
    result, _paper, chunks = summaries[name]
    for heading, body in split_sections(result.text).items():
        for sentence, pages in cited_sentences(body):
            on_pages = [c for c in chunks if c.page_start <= max(pages) and min(pages) <= c.page_end]
            assert on_pages, f"{name}: no chunk on pages {pages}"
            if sentence.startswith("“"):  # a quote must be the paper's own words, on that page
                quote = " ".join(sentence.strip("“”").split())
                assert any(quote in " ".join(c.text.split()) for c in on_pages), (name, heading, quote)
                continue
            sims = embedder.encode([c.text for c in on_pages]) @ embedder.encode([sentence])[0]
            best = on_pages[int(np.argmax(sims))]
            assert float(np.max(sims)) >= KEEP, (name, heading, sentence, pages)
            assert any(shares_words(sentence, c.text) for c in on_pages), (name, heading, sentence, best.text[:200])
            assert not quality.unsupported_numbers(sentence, " ".join(c.text for c in on_pages)), (name, sentence)


@pytest.mark.parametrize("name", [f.name for f in FILES])
def test_no_stored_section_loops_and_grounding_is_reported(summaries, name, local_backend):
    result, paper, _chunks = summaries[name]
    for heading, body in split_sections(result.text).items():
        assert quality.repeated_phrases(body) == [], f"{name} {heading} loops: {body!r}"
        assert not quality.enumeration(body)
        assert not re.search(r"a reader asked|\(empty\)|notes on the paper", body, re.I)
    g = result.to_json()["grounding"]
    assert set(g) >= {"sentences", "cited", "unsupported", "removed", "extractive_sections", "regenerated",
                      "leaks_removed", "numbers_flagged"}
    assert g["cited"] == g["sentences"] >= 4  # a sentence no source supports is not shown
    assert g["kept"] + g["unsupported"] <= g["generated"]
    cited, total, quoted = quality.summary_grounding(result.text)
    assert (cited, total) == (g["cited"], g["sentences"])  # the TUI's line reads the same from the text
    assert quoted == g["extractive_sections"]
    for heading in quoted:
        assert split_sections(result.text)[heading].startswith(extractive.NOTE)
    assert paper.id and result.revision.status == "draft"
