"""The observer says only what is true of the stored turns; a discussion's figures come from what was stored.

No model and no embedding model: `BagOfWords` stands in for the sentence encoder (a word-count vector, NOT
an embedding model), since these tests are about which statements the observer may show, not about how
close two questions are in meaning. The turns are what a teacher stores.
"""

from __future__ import annotations

from outline_sample import citesee_outline
from paperdesk.core.discussion.figures import cited_share, pages_cited, share
from paperdesk.core.discussion.insight_check import holds
from paperdesk.core.discussion.observer import Observer
from paperdesk.core.discussion.types import Turn
from toy_encoders import BagOfWords

OWN_SENTENCE = "Inline citations are a key resource for discovering papers [p. 2]."
LATER_SENTENCE = "Readers keep track of the citations they have already seen [p. 3]."
OTHER_SENTENCE = "Interviewees said they rarely read the cited paper in full [local-9f3e, p. 5]."
NOT_FOUND = ('Not found in the paper; its closest passage says: "Inline citations are a key resource for '
             'discovering papers." [p. 2].')


def _turn(n: int, question: str, answer: str, supported: list[str] | None, not_found: bool = False,
          literature: tuple[str, ...] = ()) -> Turn:
    return Turn(n, {"kind": "section", "target": "1 Introduction", "section": "1 Introduction", "origin": "plan"},
                question, answer, [], ["1 Introduction"], [2] if "[p. 2]" in answer else [], list(literature),
                1.0, True, supported=supported, not_found=not_found)


def _observer() -> Observer:
    return Observer(citesee_outline(), BagOfWords(512))


def test_the_observer_never_says_all_answers_cite_a_page_when_one_cites_another_paper():
    turns = [_turn(1, "What are inline citations for?", OWN_SENTENCE, [OWN_SENTENCE]),
             _turn(2, "What do readers do with the cited papers?", OTHER_SENTENCE, [OTHER_SENTENCE],
                   literature=("local-9f3e",))]
    teacher = _observer().insights(turns, every=2)["teacher"]
    assert "all cite page" not in teacher["text"], teacher["text"]
    assert holds(teacher, turns, citesee_outline())
    assert pages_cited(turns[1]) == set()  # another paper's page is not the discussed paper's


def test_a_statement_that_contradicts_the_stored_turns_does_not_hold():
    turns = [_turn(1, "What are inline citations for?", OWN_SENTENCE, [OWN_SENTENCE]),
             _turn(2, "What do readers do with the cited papers?", OTHER_SENTENCE, [OTHER_SENTENCE])]
    outline = citesee_outline()
    narrow = {"kind": "narrow", "pages": [2], "turns": [1, 2],
              "text": "The last 2 answers all cite page 2; draw on other parts of the paper."}
    assert not holds(narrow, turns, outline)
    assert holds({**narrow, "turns": [1, 1]}, turns, outline) is False  # one turn cannot be "the last 2"
    full = {"kind": "ok", "share": 1.0, "pages": [2, 5], "turns": [1, 2], "text": "100% ...; pages 2, 5."}
    assert not holds(full, turns, outline)  # page 5 is another paper's
    assert holds({**full, "pages": [2]}, turns, outline)
    made_up = {"kind": "uncovered_section", "target": "1 Introduction", "text": 'No turn has covered "Introduction".'}
    assert not holds(made_up, turns, outline)  # both turns were about it
    assert not holds({"kind": "repetition", "turn": 2, "earlier": 1, "target": "", "text": "Turn 2 repeated turn 1."},
                     turns, outline, BagOfWords(512))
    assert not holds({"kind": "invented", "text": "Everything is fine."}, turns, outline)


def test_a_not_found_answer_is_no_cited_sentence_of_the_teachers_and_the_shares_say_so():
    turns = [_turn(1, "What are inline citations for?", OWN_SENTENCE, [OWN_SENTENCE]),
             _turn(2, "How many citations does a paper have?", NOT_FOUND, [], not_found=True),
             _turn(3, "What do readers do?", f"{LATER_SENTENCE} Readers like them.", [LATER_SENTENCE])]
    assert [cited_share(t) for t in turns] == [1.0, 0.0, 0.5]
    assert share(turns) == 0.5
    teacher = _observer().insights(turns, every=3)["teacher"]
    assert teacher["kind"] == "ok" and teacher["pages"] == [2, 3]
    assert teacher["text"].startswith("50% of the last 3 answers' sentences cite a passage that supports them")


def test_when_no_statement_about_the_turns_holds_the_observer_gives_a_plain_instruction(monkeypatch):
    turns = [_turn(1, "What are inline citations for?", OWN_SENTENCE, [OWN_SENTENCE]),
             _turn(2, "What do readers do with the cited papers?", OWN_SENTENCE, [OWN_SENTENCE])]
    observer = _observer()
    lying = [{"kind": "narrow", "pages": [7], "turns": [1, 2], "text": "The last 2 answers all cite page 7."}]
    monkeypatch.setattr(observer, "_for_teacher", lambda recent: lying)
    teacher = observer.insights(turns, every=2)["teacher"]
    assert teacher["kind"] == "plain" and "page 7" not in teacher["text"]
