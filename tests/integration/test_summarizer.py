"""The summarizer on a real fixture paper with the real default model: structure and grounding."""


import pytest

from conftest import PAPERS
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.summarizer import SECTIONS, Summarizer
from paperdesk.core.cancel import CancelToken

pytestmark = pytest.mark.slow


def test_summary_structure_grounding_and_revision(library, backend):
    paper = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    streamed = []
    summarizer = Summarizer(library.store, backend, section_tokens=40, map_tokens=40)
    result = summarizer.summarize(paper.id, on_token=streamed.append)
    assert "".join(streamed).startswith("# ")
    for _key, heading in SECTIONS:
        assert f"## {heading}" in result.text
    for match in CITATION.finditer(result.text):
        assert 1 <= int(match.group(1)) <= paper.page_count
    pages = {c["page"] for c in result.citations}
    chunks = {c.id: c for c in library.store.chunks_of(paper.id)}
    for citation in result.citations:
        chunk = chunks[citation["chunk_id"]]
        assert chunk.page_start <= citation["page"] <= chunk.page_end
    assert pages == {int(m.group(1)) for m in CITATION.finditer(result.text) if not m.group(2)} | {
        p for m in CITATION.finditer(result.text) if m.group(2) for p in range(int(m.group(1)), int(m.group(2)) + 1)}
    assert result.revision.revision == 1 and result.revision.status == "draft"
    assert library.store.current_revision(paper.id).text == result.text
    assert result.timings["first_token_s"] <= result.timings["total_s"]


def test_cancelled_summary_is_kept_as_interrupted(library, backend):
    paper = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    token = CancelToken()
    seen = []

    def on_token(text):
        seen.append(text)
        if len(seen) > 4:
            token.cancel()

    result = Summarizer(library.store, backend, section_tokens=40, map_tokens=30).summarize(
        paper.id, on_token=on_token, cancel=token)
    assert result.cancelled and result.revision.status == "interrupted"
    assert result.text.startswith("# ") and "## Limitations" not in result.text
