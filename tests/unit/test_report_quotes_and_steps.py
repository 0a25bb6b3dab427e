"""Research reports: a cited quote is on its cited page (real fixture-paper pages), and the report's step count
is the one the status shows (plan steps, checks counted apart).

The quote tests read the real pages of a fixture PDF as ingest parses them; the step-count test drives the
researcher with stand-in tools (pure orchestration, no model).
"""

from functools import lru_cache

from conftest import PAPERS
from paperdesk.core.ingest.pdf import parse_pdf
from paperdesk.core.research.plan import Plan
from paperdesk.core.research.quote_pages import place_quote
from paperdesk.core.research.rules import rule_plan
from paperdesk.core.research.synthesizer import Section, step_counts, synthesize
from test_research_researcher import Tools, make, settings  # noqa: F401  (the settings fixture)


@lru_cache(maxsize=None)
def pages():
    return parse_pdf(PAPERS / "2206.10883v3.pdf").pages


def page_text(_paper_id, page):
    return pages()[page - 1] if 1 <= page <= len(pages()) else None


ON_PAGE_2 = "It consists of about 40,000 source documents and 9,000 expert-written summaries"


def test_a_quote_cited_to_the_wrong_page_gets_the_page_that_holds_it():
    assert " ".join(ON_PAGE_2.split()) in " ".join(pages()[1].split())
    assert place_quote("p", 1, ON_PAGE_2, page_text, len(pages())) == (2, ON_PAGE_2)
    assert place_quote("p", 2, ON_PAGE_2, page_text, len(pages())) == (2, ON_PAGE_2)


def test_a_quote_running_over_a_page_break_is_cut_to_what_its_page_holds():
    end_of_2 = " ".join(pages()[1].split()[-12:])
    start_of_3 = " ".join(pages()[2].split()[:12])
    page, quote = place_quote("p", 2, f"{end_of_2} {start_of_3}", page_text, len(pages()))
    assert page == 2 and quote == end_of_2.rstrip(",;:") + " …"


def test_a_quote_on_no_page_is_dropped():
    invented = "The dataset contains 400,000 documents written by the Stanford Law School clinic in 2019."
    assert place_quote("p", 2, invented, page_text, len(pages())) == (2, "")


def test_synthesis_shows_each_quote_with_the_page_that_holds_it():
    plan = Plan("How large is Multi-LexSum?", [])
    cite = {"n": 1, "paper_id": "p", "title": "Multi-LexSum", "page": 1, "chunk_id": 5, "quote": ON_PAGE_2}
    answer = {"question": "How large?", "text": "About 40,000 documents [1].", "citations": [cite], "sources": []}
    place = lambda pid, page, quote: place_quote(pid, page, quote, page_text, len(pages()))  # noqa: E731
    report = synthesize(plan, [Section("How large?", answer)], [], [], {}, place=place)
    assert report.citations[0]["page"] == 2 and "p. 2, chunk 5" in report.text


def test_the_report_counts_the_steps_the_status_counts(tmp_path, settings):  # noqa: F811
    tools = Tools(supported_after=1)  # the first answer fails, so the check searches once more
    plan = rule_plan("How does CiteSee show citations?")
    result = make(tmp_path, settings, tools.table()).run(plan)
    planned, checks = step_counts(plan, result.steps)
    assert (planned, checks) == (len(plan.steps), 1)
    assert f"Plan made by {plan.made_by}; {planned} steps, and 1 check search for unsupported answers." in result.report
    assert "- check: searched again for an unsupported answer" in result.report


def test_a_question_answered_above_is_not_listed_as_not_answered():
    plan = Plan("Which datasets?", [])
    answer = {"question": "Which datasets?", "text": "Multi-LexSum [1].", "sources": [],
              "citations": [{"n": 1, "paper_id": "p", "title": "", "page": 2, "chunk_id": 1, "quote": ""}]}
    report = synthesize(plan, [Section("Which datasets?", answer)], ["Which datasets"], [], {})
    assert "## Not answered" not in report.text
