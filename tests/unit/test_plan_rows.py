"""the new rows of the spec on the workflow model, their guards, the session variables, agent actions.

The generic every-command-in-every-state check is test_workflow_table.py (rows in tests/spec_table.py);
this file covers what a plain (state, command) cell cannot: the mode-dependent research row, guards
that read the plan facts, and the refusal texts.
"""

import pytest
from statemachine.exceptions import TransitionNotAllowed

from paperdesk.core.research.agent_actions import most_cited, passage_on_page
from paperdesk.core.commands.session import Session
from paperdesk.core.commands.workflow import WorkflowContext, new_workflow
from spec_table import ALL, ANY_STAR, PLAN_RESEARCH, SPEC_TABLE


def machine(state, **facts):
    return new_workflow(WorkflowContext(state=state, **facts))


@pytest.mark.parametrize("state", sorted(ALL))
def test_research_in_plan_mode_and_resume_of_a_plan_lead_to_draft_plan(state):
    wf = machine(state)
    if state not in PLAN_RESEARCH:
        assert wf.refusal("research") is not None
        with pytest.raises(TransitionNotAllowed):
            wf.apply("research", count=1, planning=True)
        return
    assert wf.apply("research", count=1, planning=True) == (state, PLAN_RESEARCH[state])
    other = machine(state)  # the same command in agent / reader mode keeps the spec's old row
    assert other.apply("research", count=1) == (state, SPEC_TABLE["research"][state][0])


def test_draft_plan_is_an_exit_state_every_free_command_leaves():
    for command in ("find", "sem-search", "list"):
        found, _ = SPEC_TABLE[command]["draft-plan"]
        assert machine("draft-plan").apply(command, count=1) == ("draft-plan", found)
    assert set(PLAN_RESEARCH) == set(ANY_STAR)


def test_accept_and_reject_need_a_pending_revision():
    wf = machine("draft-plan")
    for command in ("accept", "reject"):
        assert wf.refusal(command) == f"{command} is not available now: no revision is pending; revise <feedback> " \
                                      "proposes one"
    assert machine("draft-plan", plan_pending=True).refusal("accept") is None


def test_step_and_build_are_refused_while_a_revision_is_pending():
    wf = machine("draft-plan", plan_pending=True)
    for command in ("step", "build"):
        assert wf.refusal(command) == (f"{command} is not available now: a revision is pending; accept or reject "
                                       "it first (accept, reject)")
    assert wf.refusal("revise") is None and wf.refusal("plan") is None and wf.refusal("abandon") is None


def test_build_needs_a_valid_plan_and_the_network_for_network_steps():
    bad = machine("draft-plan", plan_problem="step 2: unknown tool 'x'")
    assert bad.refusal("build") == ("build is not available now: the plan is invalid (step 2: unknown tool 'x'); "
                                    "fix it with step edit|drop or plan edit")
    offline = machine("draft-plan", forced_offline="started with --offline", plan_network=[3])
    assert offline.refusal("build") == ("build is not available offline (started with --offline): step 3 needs the "
                                        "network; drop it (step drop 3) or go online")
    assert machine("draft-plan", forced_offline="started with --offline").refusal("build") is None  # no such step
    assert machine("draft-plan").apply("build", count=0) == ("draft-plan", "initial")


def test_plan_commands_say_what_would_enable_them_elsewhere():
    wf = machine("initial")
    assert "mode plan, then research <query>" in wf.refusal("revise")
    assert "there is no plan: mode plan, then research <query> makes one" in wf.refusal("plan")
    assert "research <query> in plan mode starts one" in wf.refusal("abandon")
    assert machine("draft-research").refusal("plan") is None  # the built plan with its steps' status


def test_session_keeps_mode_and_plan_and_survives_bad_values():
    session = Session(mode="plan", plan={"query": "q", "steps": []}, plan_pending={"query": "q2", "steps": []},
                      plan_run=4, plan_created=12.5)
    state, back = Session.from_json(session.to_json("draft-plan"))
    assert state == "draft-plan" and back.mode == "plan" and back.plan_pending["query"] == "q2"
    assert back.plan_run == 4 and back.plan_created == 12.5
    _, odd = Session.from_json({**session.to_json("draft-plan"), "mode": "turbo", "plan": "not a plan"})
    assert odd.mode == "agent" and odd.plan is None  # a damaged value falls back, the session still loads
    assert Session.from_json({"state": "initial"})[1].mode == "agent"  # sessions from before plan mode


def test_most_cited_picks_the_paper_cited_most_then_its_first_citation():
    cites = [{"n": 1, "paper_id": "a", "page": 2}, {"n": 2, "paper_id": "b", "page": 5},
             {"n": 3, "paper_id": "b", "page": 7}, {"n": 4, "paper_id": "a", "page": 1}, {"n": 5, "paper_id": "b",
                                                                                       "page": 9}]
    assert most_cited(cites) == {"n": 2, "paper_id": "b", "page": 5}
    assert most_cited(cites[:2])["paper_id"] == "a"  # a tie goes to the paper cited first
    assert most_cited([]) is None


def test_the_highlight_is_copied_verbatim_from_the_page():
    page = "Readers lose track of\nthe citations they have already seen, so CiteSee highlights them in context."
    quote = "[p. 2] readers: the citations they have already seen, so CiteSee highlights them"
    found = passage_on_page(page, quote)
    assert found and found in " ".join(page.split()) and found.startswith("the citations")
    assert passage_on_page(page, "nothing of this is on the page at all") == ""
