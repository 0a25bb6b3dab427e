"""bench summaries scores a summary by the QA set's known answers: the whole text, and the limitations alone."""

from paperdesk.bench.qa import Question
from paperdesk.bench.summary_questions import stated

SUMMARY = ("# A study of irrigation\n\n## Results\nThe sensor schedule saved 24% of the water [p. 3].\n\n"
           "## Limitations\nAll plots lay on one farm with a single soil type [p. 4].\n")
QUESTIONS = [
    Question("w-1", "w.pdf", "How much water did the sensor schedule save?", (r"\b24\s?%",), (3,), "number"),
    Question("w-2", "w.pdf", "What limitation do the authors name?", (r"single soil|one soil",), (4,), "limitation"),
    Question("w-3", "w.pdf", "Which limitation of the seasons do they name?", (r"\bdry\b",), (4,), "limitation"),
]


def test_a_summary_answers_the_questions_its_text_matches_and_names_the_limits_its_section_states():
    assert stated(SUMMARY, QUESTIONS) == {"questions": 3, "answered": 2, "limitation_questions": 2,
                                          "limitations_named": 1}


def test_a_limit_stated_outside_the_limitations_section_is_not_named_there():
    moved = SUMMARY.replace("## Limitations\n", "## Method\n")
    assert stated(moved, QUESTIONS)["limitations_named"] == 0

