"""A run of six words from any prompt template in an output is a leak, and the gates drop it."""

from paperdesk.core import prompt_leaks
from paperdesk.core.agents import quality
from paperdesk.core.prompts import PROMPT_DIR


def test_a_copied_worked_example_is_a_leak_with_or_without_its_citation():
    copied = "A drip-irrigation controller waters each greenhouse row when its soil sensor reads dry [p. 2]."
    assert prompt_leaks.copied_run(copied) == "a drip irrigation controller waters each"
    assert quality.leaks(copied)  # the summary and answer gates use this check
    assert quality.remove_leaks(f"The toolkit parses PDFs [p. 1]. {copied}") == ("The toolkit parses PDFs [p. 1].", 1)


def test_ordinary_sentences_and_short_shared_phrases_are_not_leaks():
    assert not prompt_leaks.leaks("The study ran for three seasons on 40 participants [p. 3].")
    assert not prompt_leaks.leaks("Not found in the passages.")  # five words of a prompt: too short to be a copy
    assert not prompt_leaks.leaks("")


def test_every_template_is_read_and_placeholders_are_not_words_of_the_prompt():
    names = {p.stem for p in PROMPT_DIR.glob("*.txt")}
    assert {"answer_example", "summarize_map", "select_example", "discuss_student"} <= names
    # "{sources}\n\nQuestion: {question}" has no six-word run of its own once its placeholders are removed
    assert not any("sources" in run for run in prompt_leaks.prompt_runs())


def test_no_prompt_example_comes_from_a_paper_of_the_fixture_or_bench_libraries():
    """The worked examples are invented: none of their six-word runs is in a fixture paper's text."""
    import pymupdf
    from pathlib import Path

    papers = Path(__file__).resolve().parents[1] / "fixtures" / "papers"
    for pdf in sorted(papers.glob("*.pdf")):
        text = " ".join(page.get_text() for page in pymupdf.open(pdf))
        shared = prompt_leaks.runs(text) & prompt_leaks.prompt_runs()
        assert not shared, (pdf.name, sorted(shared)[:3])
