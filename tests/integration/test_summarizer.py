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
    summarizer = Summarizer(library.store, backend, section_tokens=40, map_tokens=40, excerpts=3)
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
        if len(seen) > 2:  # the title, the first heading, then a checked sentence: cancelled mid-section
            token.cancel()

    result = Summarizer(library.store, backend, section_tokens=40, map_tokens=30).summarize(
        paper.id, on_token=on_token, cancel=token)
    assert result.cancelled and result.revision.status == "interrupted"
    assert result.text.startswith("# ") and "## Limitations" not in result.text


def test_each_finished_section_is_stored_as_it_ends(library):
    """Orchestration only, so FakeLLM (a stand-in, NOT a model): when the second section starts, the first is
    already stored as an interrupted revision, which a kill -9 would leave; at the end that revision is the
    finished draft, not a second one."""
    from fake_llm import FakeLLM

    paper = library.add_pdf(PAPERS / "2304.02623v1.pdf").paper
    stored_at = {}

    def on_token(text):
        if text.startswith("\n## ") or text.startswith("## "):
            current = library.store.current_revision(paper.id)
            stored_at[text.strip()] = (current.revision, current.status, current.text) if current else None

    result = Summarizer(library.store, FakeLLM(), section_tokens=20, map_tokens=10).summarize(paper.id,
                                                                                            on_token=on_token)
    headings = [f"## {heading}" for _key, heading in SECTIONS]
    assert stored_at[headings[0]] is None  # nothing finished yet: nothing stored
    revision, status, text = stored_at[headings[1]]
    assert (revision, status) == (1, "interrupted") and headings[0] in text and headings[1] not in text
    assert headings[2] in stored_at[headings[3]][2] and headings[3] not in stored_at[headings[3]][2]
    assert [(r.revision, r.status) for r in library.store.revisions(paper.id)] == [(1, "draft")]
    assert result.revision.text == result.text


def test_the_excerpts_setting_bounds_the_notes_calls(library, tmp_home):
    """Orchestration only, so FakeLLM (a stand-in, NOT a model): `summary.excerpts` passages are read, one
    notes call each after the opening one, spread over the paper's sections."""
    from fake_llm import FakeLLM
    from paperdesk.core.agents.summarizer import pick_excerpts
    from paperdesk.core.config import load_settings

    paper = library.add_pdf(PAPERS / "2206.10883v3.pdf").paper
    chunks = library.store.chunks_of(paper.id)
    every = pick_excerpts(chunks, limit=64)
    assert len(every) > 4
    three = pick_excerpts(chunks, limit=3)
    assert len(three) == 3 and three[0] == every[0] and three[-1].section != every[1].section
    fake = FakeLLM()
    settings = load_settings(environ={"PAPERDESK_HOME": str(tmp_home), "PAPERDESK_SUMMARY_EXCERPTS": "3"},
                             path=tmp_home / "absent.toml")
    Summarizer.from_settings(library.store, fake, settings).summarize(paper.id)
    notes = [r for r in fake.requests if "Key points:" in (r.prompt or "")]
    assert len(notes) == 2
