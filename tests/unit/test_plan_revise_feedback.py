"""`revise <feedback>` follows the feedback: drops, lists, passage counts, focus, sub-questions, the dialogue.

Pure plan logic (no model, no library): each case asserts the exact steps of the proposed plan, that the
reviewed plan is unchanged, and that feedback the rules do not understand is refused, saying what they do.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paperdesk.core.config import load_settings
from paperdesk.core.research import Backends, Researcher, Tracker
from paperdesk.core.research.plan import PlanError
from paperdesk.core.research.revise import UNDERSTANDS, NotUnderstood
from paperdesk.core.research.rules import rule_plan

WHAT = "How does CiteSee help readers track citations?"  # 1 library_search, 2 answer
ARXIV = "Is there new work on arXiv about citation recommendation?"  # 1 search, 2 arxiv_search, 3 answer
COMPARE = "Compare the papers on citation tracking"  # 1 search, 2 read_paper over 1, 3 answer from 1 and 2
TWO = "Which datasets are used and how is accuracy measured?"  # 5 steps, two answers (4, 5)


@pytest.fixture
def researcher(tmp_path: Path):
    settings = load_settings(environ={}, path=tmp_path / "absent.toml")
    tracker = Tracker(tmp_path / "library.sqlite")
    yield Researcher(None, Backends(None), tracker, settings=settings)  # type: ignore[arg-type]
    tracker.close()


def steps(plan) -> list[tuple]:
    return [(s.id, s.tool, s.parameters, s.output_key, s.iterate_over) for s in plan.steps]


def revise(researcher, question: str, feedback: str, dialogue: str = ""):
    plan = rule_plan(question)
    before = plan.to_json()
    new, diff = researcher.revise(plan, feedback, dialogue)
    assert plan.to_json() == before  # a proposal: the reviewed plan stays as it was until accept
    assert new.made_by == "rules+revised"
    return plan, new, diff


def test_drop_step_n_removes_exactly_that_step(researcher):
    plan, new, diff = revise(researcher, ARXIV, "drop step 2")
    assert steps(new) == [s for s in steps(plan) if s[0] != 2]
    assert [s.id for s in diff.removed] == [2] and not diff.added and not diff.changed


@pytest.mark.parametrize("feedback", ["remove the answer step", "please delete the last step", "skip step 3"])
def test_naming_the_answer_step_drops_it(researcher, feedback):
    plan, new, diff = revise(researcher, ARXIV, feedback)
    assert [s.tool for s in new.steps] == ["library_search", "arxiv_search"] and [s.id for s in diff.removed] == [3]


def test_dropping_a_step_takes_what_only_reads_it_and_trims_answers(researcher):
    _, new, diff = revise(researcher, COMPARE, "drop step 2")  # the answer read passages_1 and per_paper_2
    assert steps(new) == [(1, "library_search", {"query": "citation tracking"}, "passages_1", None),
                          (3, "answer", {"question": "Compare the papers on citation tracking",
                                         "inputs": ["passages_1"]}, "answer_3", None)]
    _, new, diff = revise(researcher, COMPARE, "remove the search step")  # the per-paper read cannot run alone
    assert [s.id for s in diff.removed] == [1, 2]
    assert steps(new) == [(3, "answer", {"question": "Compare the papers on citation tracking"}, "answer_3", None)]


def test_without_arxiv_and_the_arxiv_step(researcher):
    for feedback in ("without arxiv please", "drop the arxiv step", "don't search arxiv"):
        _, new, _ = revise(researcher, ARXIV, feedback)
        assert [s.tool for s in new.steps] == ["library_search", "answer"], feedback


def test_a_drop_that_names_no_single_step_is_refused_with_the_reason(researcher):
    plan = rule_plan(TWO)
    with pytest.raises(PlanError, match=r"the plan has 2 answer steps \(4, 5\); say which"):
        researcher.revise(plan, "remove the answer step")
    with pytest.raises(PlanError, match="there is no step 9"):
        researcher.revise(plan, "drop step 9")
    with pytest.raises(PlanError, match="no arxiv_search step"):
        researcher.revise(plan, "drop the arxiv step")
    _, new, _ = revise(researcher, TWO, "drop all the answer steps")
    assert [s.tool for s in new.steps] == ["library_search", "extract_list", "library_search"]


def test_step_drop_keeps_the_step_commands_strict_meaning(researcher):
    with pytest.raises(PlanError, match="inputs names unknown output_key 'passages_1'"):
        researcher.revise(rule_plan(WHAT), "step drop 1")  # exactly like `step drop 1`: refused, not cascaded


def test_list_the_datasets_adds_a_search_on_the_topic_and_extract_list(researcher):
    plan, new, diff = revise(researcher, WHAT, "list the datasets used")
    assert steps(new) == steps(plan) + [
        (3, "library_search", {"query": "datasets CiteSee help readers"}, "passages_3", None),
        (4, "extract_list", {"source": "passages_3", "kind": "dataset"}, "names_4", None)]
    assert [s.id for s in diff.added] == [3, 4]


def test_also_list_the_methods_keeps_the_questions_topic(researcher):
    _, new, _ = revise(researcher, WHAT, "also list the methods used")
    assert [(s.tool, s.parameters) for s in new.steps[2:]] == [
        ("library_search", {"query": "methods CiteSee help readers"}),
        ("extract_list", {"source": "passages_3", "kind": "method"})]
    _, new, _ = revise(researcher, WHAT, "name the metrics")
    assert new.steps[-1].parameters == {"source": "passages_3", "kind": "metric"}
    with pytest.raises(PlanError, match="step 2 already lists the dataset names"):
        researcher.revise(rule_plan(TWO), "list the datasets")


def test_every_kind_named_gets_its_own_extract_list_from_one_search(researcher):
    plan, new, _ = revise(researcher, ARXIV, "list the datasets and metrics")
    assert steps(new) == steps(plan) + [
        (4, "library_search", {"query": "datasets metrics citation recommendation"}, "passages_4", None),
        (5, "extract_list", {"source": "passages_4", "kind": "dataset"}, "names_5", None),
        (6, "extract_list", {"source": "passages_4", "kind": "metric"}, "names_6", None)]


def test_a_list_with_no_room_for_its_own_search_reads_the_latest_passages(researcher):
    plan = rule_plan(TWO)
    plan.steps[-1:] = []  # 4 steps left; with max 5 steps only the extract_list fits
    researcher.limits["max_steps"] = 5
    new, _ = researcher.revise(plan, "list the methods")
    assert [(s.id, s.tool, s.parameters) for s in new.steps[4:]] == [
        (5, "extract_list", {"source": "passages_3", "kind": "method"})]


def test_fewer_more_and_n_passages_change_k(researcher):
    _, new, diff = revise(researcher, COMPARE, "use fewer passages")
    assert [s.parameters.get("k") for s in new.steps] == [3, 2, None]  # answer.k 5 -> 3, read_paper's 3 -> 2
    assert [i for i, _ in diff.changed] == [1, 2] and not diff.added and not diff.removed
    _, new, _ = revise(researcher, WHAT, "more passages")
    assert new.steps[0].parameters == {"query": "CiteSee help readers track citations", "k": 10}
    _, new, _ = revise(researcher, WHAT, "only use 4 passages")
    assert new.steps[0].parameters["k"] == 4
    plan = rule_plan(WHAT)
    plan.steps[0].parameters["k"] = 1
    with pytest.raises(PlanError, match=r"already use the fewest \(1\) passages"):
        researcher.revise(plan, "fewer passages")


def test_focus_on_x_rebuilds_every_search_from_x_and_its_topic(researcher):
    _, new, diff = revise(researcher, ARXIV, "focus on eye tracking")
    assert new.steps[0].parameters == {"query": "eye tracking citation recommendation"}
    assert new.steps[1].parameters == {"query": "eye tracking citation recommendation", "max": 5}
    assert new.steps[0].description == "Search the library for eye tracking citation recommendation"
    assert [i for i, _ in diff.changed] == [1, 2] and not diff.added


def test_also_x_adds_a_search_with_the_topic_and_a_cited_answer(researcher):
    plan, new, diff = revise(researcher, WHAT, "also the training cost")
    assert steps(new) == steps(plan) + [
        (3, "library_search", {"query": "training cost CiteSee help readers"}, "passages_3", None),
        (4, "answer", {"question": "What about the training cost?", "inputs": ["passages_3"]}, "answer_4", None)]
    _, new, _ = revise(researcher, ARXIV, "how is it evaluated?")  # a question is a sub-question
    assert [(s.tool, s.parameters) for s in new.steps[3:]] == [
        ("library_search", {"query": "evaluated citation recommendation"}),
        ("answer", {"question": "How is it evaluated?", "inputs": ["passages_4"]})]


def test_several_changes_apply_in_order_when_each_is_understood(researcher):
    _, new, _ = revise(researcher, ARXIV, "without arxiv; use fewer passages")
    assert [(s.id, s.tool, s.parameters.get("k")) for s in new.steps] == [(1, "library_search", 3), (3, "answer", None)]
    _, new, _ = revise(researcher, ARXIV, "drop step 2 and focus on eye tracking")
    assert [(s.id, s.parameters.get("query")) for s in new.steps] == [
        (1, "eye tracking citation recommendation"), (3, None)]
    _, new, _ = revise(researcher, ARXIV, "focus on readers and use of citations")  # one change after all
    assert new.steps[0].parameters["query"] == "readers use citations citation recommendation"
    with pytest.raises(PlanError, match="there is no step 9"):  # the part it understood, and why it cannot be
        researcher.revise(rule_plan(ARXIV), "drop step 9; focus on eye tracking")
    with pytest.raises(NotUnderstood, match="did not understand 'drop step 2 and banana'"):
        researcher.revise(rule_plan(ARXIV), "drop step 2 and banana")


def test_that_and_as_i_said_come_from_the_dialogue(researcher):
    dialogue = ("User dialogue (the user's own words since this task began; follow them):\n"
                "- User: what about the eye-tracking study?\n- Desk understood: a question\n")
    _, new, _ = revise(researcher, WHAT, "focus on that", dialogue)
    assert new.steps[0].parameters == {"query": "eye-tracking study CiteSee help readers"}
    _, new, _ = revise(researcher, WHAT, "as I said", dialogue)
    assert [(s.tool, s.parameters) for s in new.steps[2:]] == [
        ("library_search", {"query": "eye-tracking study CiteSee help readers"}),
        ("answer", {"question": "What about the eye-tracking study?", "inputs": ["passages_3"]})]
    said = "User dialogue (...):\n- User: drop the answer step\n- User: thanks, looks good\n"
    _, new, _ = revise(researcher, WHAT, "do what I asked", said)  # the newest message that is a change
    assert [s.tool for s in new.steps] == ["library_search"]
    with pytest.raises(NotUnderstood, match="points back to the dialogue and there is none"):
        researcher.revise(rule_plan(WHAT), "focus on that")


@pytest.mark.parametrize("feedback", ["make it better", "banana", "list the steps", "also that", "hmm"])
def test_feedback_it_does_not_understand_is_refused_saying_what_it_does(researcher, feedback):
    plan = rule_plan(WHAT)
    before = plan.to_json()
    with pytest.raises(NotUnderstood) as refused:
        researcher.revise(plan, feedback)
    message = str(refused.value)
    assert UNDERSTANDS in message and "\n" not in message and "nothing" in message
    assert plan.to_json() == before


def test_the_direct_step_edits_still_work_through_revise(researcher):
    plan = rule_plan(ARXIV)
    new, diff = researcher.revise(plan, "step edit 1 query=citation recommenders")
    assert new.steps[0].parameters["query"] == "citation recommenders" and diff.changed[0][0] == 1
    new, _ = researcher.revise(plan, "add library_search citation history")
    assert (new.steps[-1].tool, new.steps[-1].parameters) == ("library_search", {"query": "citation history"})
    new, diff = researcher.revise(plan, "move 2 1")
    assert [s.id for s in new.steps] == [2, 1, 3] and diff.moved
    with pytest.raises(PlanError, match="step 3 reads step 1"):  # the answer reads the steps before it
        researcher.revise(plan, "move 3 1")
    with pytest.raises(PlanError, match="unknown tool 'grep'"):
        researcher.revise(plan, "step add grep x")
