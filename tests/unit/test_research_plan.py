"""Research plans: validation names the step and the problem, edits, diff, TOML, rule planner patterns."""

from __future__ import annotations

import pytest

from paperdesk.core.research import plan_edit
from paperdesk.core.research.plan import ITEM, Plan, PlanError, Step, order, validate
from paperdesk.core.research.rules import pattern_of, rule_plan


def two_step() -> Plan:
    return Plan("How do readers use citations?", [
        Step(1, "search", "library_search", {"query": "readers citations"}, "passages"),
        Step(2, "answer", "answer", {"question": "How do readers use citations?", "inputs": ["passages"]}, "answer"),
    ])


@pytest.mark.parametrize("mutate, message", [
    (lambda p: setattr(p.steps[0], "tool", "web_search"), "step 1: unknown tool 'web_search'"),
    (lambda p: p.steps[1].parameters.update(inputs=["nowhere"]), "step 2: inputs names unknown output_key 'nowhere'"),
    (lambda p: setattr(p.steps[0], "depends_on", [2]) or setattr(p.steps[1], "depends_on", [1]),
     "depends_on makes a cycle"),
    (lambda p: p.steps[0].parameters.update(query=f"about {ITEM}"), f"step 1: parameters use {ITEM} but iterate_over"),
    (lambda p: p.steps.extend(Step(i, "s", "library_search", {"query": "q"}, f"k{i}") for i in range(3, 10)),
     "the plan has 9 steps; at most 8"),
    (lambda p: p.steps.append(Step(3, "a", "arxiv_search", {"query": "q"}, "arx")), "step 3: arxiv_search needs the network"),
    (lambda p: setattr(p.steps[1], "output_key", "passages"), "step 2: output_key 'passages' is already step 1's"),
    (lambda p: p.steps[0].parameters.pop("query"), "step 1: library_search needs parameter 'query'"),
    (lambda p: p.steps[0].parameters.update(k=50), "step 1: k/max must be a whole number from 1 to 20"),
    (lambda p: setattr(p.steps[1], "depends_on", [7]), "step 2: depends_on names unknown step 7"),
])
def test_validation_names_the_step_and_the_problem(mutate, message):
    plan = two_step()
    validate(plan, offline=True)
    mutate(plan)
    with pytest.raises(PlanError) as err:
        validate(plan, offline=True)
    assert message in str(err.value)


def test_max_steps_comes_from_the_caller():
    with pytest.raises(PlanError, match="at most 1"):
        validate(two_step(), max_steps=1)


def test_order_follows_dependencies_not_listing():
    plan = two_step()
    plan.steps.reverse()
    assert [s.id for s in order(plan)] == [1, 2]


def test_diff_shows_removed_added_and_changed_fields():
    old = two_step()
    new = plan_edit.edit_step(old, 1, "query=citation cards")
    new = plan_edit.add_step(new, "extract_list", "dataset")
    d = plan_edit.diff(old, new)
    assert [s.id for s in d.added] == [3] and d.added[0].parameters == {"kind": "dataset", "source": "passages"}
    assert d.changed == [(1, {"parameters": ({"query": "readers citations"}, {"query": "citation cards"})})]
    assert not d.removed
    dropped = plan_edit.drop_step(new, 3)
    assert [s.id for s in plan_edit.diff(new, dropped).removed] == [3]
    kinds = [k for k, _ in plan_edit.diff(old, new).lines()]
    assert "added" in kinds and "changed" in kinds


def test_invalid_edits_are_refused_and_change_nothing():
    plan = two_step()
    before = plan.to_json()
    with pytest.raises(PlanError, match="unknown tool"):
        plan_edit.add_step(plan, "web_search", "x")
    with pytest.raises(PlanError, match="inputs names unknown output_key 'passages'"):
        plan_edit.drop_step(plan, 1)  # the answer reads its passages
    with pytest.raises(PlanError, match="field=value"):
        plan_edit.edit_step(plan, 1, "query")
    with pytest.raises(PlanError, match="no step 9"):
        plan_edit.edit_step(plan, 9, "query=x")
    with pytest.raises(PlanError, match="cannot be edited"):
        plan_edit.edit_step(plan, 1, "status=COMPLETED")
    with pytest.raises(PlanError, match="outside 1-2"):
        plan_edit.move_step(plan, 1, 5)
    assert plan.to_json() == before


def test_move_reorders_the_listing_and_marks_the_plan_user_edited():
    plan = two_step()
    plan.steps.insert(1, Step(3, "more", "library_search", {"query": "citation cards"}, "cards"))
    moved = plan_edit.move_step(plan, 3, 1)
    assert [s.id for s in moved.steps] == [3, 1, 2] and moved.made_by.endswith("+user")
    assert [s.id for s in order(moved)] == [3, 1, 2]
    assert plan_edit.diff(plan, moved).moved == [3, 1]


def three_step() -> Plan:
    """search -> list the datasets -> answer from both: step 3 depends on 1 and 2, step 2 on 1."""
    plan = two_step()
    plan.steps.insert(1, Step(3, "datasets", "extract_list", {"kind": "dataset", "source": "passages"}, "datasets",
                              depends_on=[1]))
    plan.steps[2].parameters["inputs"] = ["passages", "datasets"]
    return plan


@pytest.mark.parametrize("step_id, position, message", [
    (2, 1, "step move 2 1: step 2 reads steps 1 and 3, so it cannot come before them; nothing moved"),
    (2, 2, "step move 2 2: step 2 reads step 3, so it cannot come before it; nothing moved"),
    (3, 1, "step move 3 1: step 3 reads step 1, so it cannot come before it"),
    (1, 3, "step move 1 3: steps 2 and 3 read step 1's output, so step 1 cannot come after them; nothing moved"),
    (3, 3, "step move 3 3: step 2 reads step 3's output, so step 3 cannot come after it"),
])
def test_a_move_that_puts_a_step_before_what_it_reads_is_refused(step_id, position, message):
    plan = three_step()
    before = plan.to_json()
    with pytest.raises(PlanError) as err:
        plan_edit.move_step(plan, step_id, position)
    assert message in str(err.value)
    assert plan.to_json() == before


def test_toml_round_trip_and_bad_toml():
    plan = rule_plan("Compare how the papers extract tables")
    text = plan_edit.to_toml(plan)
    again = plan_edit.from_toml(text, base=plan)
    assert [s.to_json() for s in again.steps] == [s.to_json() for s in plan.steps]
    assert again.query == plan.query
    with pytest.raises(PlanError, match="not valid TOML"):
        plan_edit.from_toml(text + "\n[[steps]\n", base=plan)
    with pytest.raises(PlanError, match="unknown tool 'grep'"):
        plan_edit.from_toml(text.replace('tool = "read_paper"', 'tool = "grep"'), base=plan)


@pytest.mark.parametrize("question, pattern, tools", [
    ("How do readers use citations while reading?", "what_how", ["library_search", "answer"]),
    ("What is CiteSee?", "what_how", ["library_search", "answer"]),
    ("Which datasets are used and how is parsing accuracy measured?", "which_and",
     ["library_search", "extract_list", "library_search", "answer", "answer"]),
    ("Compare how the papers extract tables from PDFs", "compare", ["library_search", "read_paper", "answer"]),
    ("Give an overview of scientific document parsing", "survey", ["library_search", "extract_list", "answer"]),
    ("Is there new work on arXiv about citation recommendation?", "arxiv",
     ["library_search", "arxiv_search", "answer"]),
    ("Which metrics do the papers report?", "list", ["library_search", "extract_list", "answer"]),
])
def test_rule_planner_covers_every_pattern(question, pattern, tools):
    assert pattern_of(question) == pattern
    plan = rule_plan(question)
    validate(plan)
    assert [s.tool for s in plan.steps] == tools and plan.made_by == "rules"


def test_rule_planner_offline_leaves_arxiv_out_and_says_so():
    plan = rule_plan("Is there new work on arXiv about citation recommendation?", offline=True)
    assert "arxiv_search" not in [s.tool for s in plan.steps]
    assert any("offline" in n for n in plan.notes)


def test_which_and_splits_into_two_sub_questions():
    plan = rule_plan("Which datasets are used and how is parsing accuracy measured?")
    questions = [s.parameters["question"] for s in plan.steps if s.tool == "answer"]
    assert questions == ["Which datasets are used?", "How is parsing accuracy measured?"]


def test_plan_json_round_trip_and_malformed_json():
    plan = rule_plan("Compare how the papers extract tables")
    assert Plan.from_json(plan.to_json()).to_json() == plan.to_json()
    with pytest.raises(PlanError, match="not valid JSON"):
        Plan.from_json("{steps: ")
    with pytest.raises(PlanError, match="malformed"):
        Plan.from_json({"query": "q", "steps": [{"id": "x"}]})
