"""A step cap that drops sub-questions says so everywhere, with one count: the plan's note (Plan pane), the
command's status message and the report give the same steps and the same dropped parts.

Library, tracker and retrieval are real; the writer is FakeLLM (tests/fake_llm.py) and the plan comes from the
rule planner: this is about which counts reach the user, not prose.
"""

import pytest

from paperdesk.core.research.plan import Plan

pytestmark = pytest.mark.slow  # the real embedding model indexes the fixture paper
QUESTION = "research which datasets does CiteSee use, and how are the citations shown?"


def test_the_status_and_the_report_list_the_dropped_sub_questions_with_one_count(citesee_desk):
    desk = citesee_desk(PAPERDESK_RESEARCH_MAX_STEPS="2")  # rules plan; FakeLLM's reply is no choice: loop done
    try:
        outcome = desk.run(QUESTION)
        assert outcome.ok, outcome.message
        plan = Plan.from_json(desk.session.plan)
        dropped = [d["question"] for d in plan.dropped]
        assert dropped == ["List the dataset names", "How are the citations shown?"]
        assert any(n.startswith("dropped 2 (research.max_steps is 2") for n in plan.notes)  # the Plan pane's note
        report = desk.draft_view().text
        line = "2 steps, and 2 parts of the question dropped (research.max_steps)"
        assert f"; {line}." in report and f"; {line};" in outcome.message  # one count, said twice
        assert "dropped: List the dataset names; How are the citations shown?" in outcome.message
        for question in dropped:
            assert f"- {question}\n" in report.split("## Left out of the plan", 1)[1]
    finally:
        desk.close()
