"""The quality gate, page grounding and extractive fallback, on the degenerate texts seen in use.

The encoder here is a deterministic bag-of-words stand-in (tests/toy_encoders.py):
these tests are about the gate's logic, not about the embedding model.
"""

from paperdesk.core.agents import extractive, quality
from paperdesk.core.agents.attribution import ground
from paperdesk.core.agents.citations import CITATION
from paperdesk.core.agents.page_grounding import PageGrounder
from paperdesk.core.agents.section_gate import RETRY, GroundingStats, gated_section
from paperdesk.core.db.store import Chunk
from toy_encoders import BagOfWords

bag_of_words = BagOfWords(512)

ENUMERATION = ("I. Human Evaluation of Faithfulness in Long-form Summaries II. Human Evaluation of Faithfulness in "
               "Long-form Summaries III. Human Evaluation of Faithfulness in Long-form Summaries IV. Human "
               "Evaluation of Faithfulness in Long-form Summaries V. Human Evaluation of Faithfulness in Long-form "
               "Summaries VI. Human Evaluation of Faithfulness in Long-form Summaries VII.")
NEAR_REPEATS = ("It is a survey of human evaluation of faithfulness. The paper is a short summary of the results. "
                "It is a survey of human evaluation of faithfulness in long-form summaries. "
                "The paper is a short summary of the results and the methods.")
CLEAN = ("The paper surveys how faithfulness of long-form summaries is judged by people. "
         "It finds that most studies use short documents and few annotators [p. 2].")


def test_enumeration_of_one_phrase_fails_the_gate():
    verdict = quality.check(ENUMERATION)
    assert not verdict.ok
    assert "enumeration of one phrase" in verdict.reasons
    assert any(r.startswith("loop") for r in verdict.reasons)
    assert quality.enumeration(ENUMERATION) and not quality.enumeration(CLEAN)


def test_near_repeated_sentences_are_a_loop_across_sentences():
    verdict = quality.check(NEAR_REPEATS)
    assert [r for r in verdict.reasons if r.startswith("loop across sentences")]
    assert "survey of human evaluation" in quality.repeated_phrases(NEAR_REPEATS)


def test_loop_inside_one_sentence_is_named_as_such():
    text = "The tool ranks citations by reading history and ranks citations by reading history again."
    assert any(r.startswith("loop inside a sentence") for r in quality.check(text).reasons)


def test_a_phrase_the_passage_repeats_is_its_wording_not_a_loop():
    passage = ("The score of a plot is the number of plots that are wetter than it minus the number of plots "
               "that are drier.")
    copied = passage[:-1] + " [1]."
    assert not quality.check(copied).ok  # without the passage, the repeat reads as a loop
    assert quality.check(copied, sources=[passage]).ok
    looped = copied + " The number of plots that are wetter and the number of plots that are drier."
    assert "the number of plots" in quality.repeated_phrases(looped, sources=[passage])  # said more often


def test_clean_text_passes_and_stopword_phrases_are_not_loops():
    assert quality.check(CLEAN).ok
    assert quality.repeated_phrases("one of the most cited works and one of the most read works") == []


def test_leaked_scaffolding_is_removed_and_counted():
    text = ("A reader asked: What is the study about? What is the study about?\n"
            "The results part of this paper was: (empty)\n"
            "Readers found relevant papers faster with highlighted citations.")
    verdict = quality.check(text)
    assert verdict.text == "Readers found relevant papers faster with highlighted citations."
    assert verdict.leaks_removed == 3
    assert verdict.ok


def test_a_sentence_framed_as_the_summary_section_is_prompt_echo():
    # the section prompt asks what the paper's "method section says": the echo describes the summary, not the paper
    for echo in ("The method section of the paper describes the techniques used to study the soil [p. 7].",
                 "This section presents the main results.", "The paper's results section says that yields rose."):
        assert quality.leaks(echo), echo
    for content in ("The section thickness was 5 mm [p. 2].", "The cross-section of the beam is 3 mm.",
                    "Section 3 shows that yields rose by 12% [p. 4]."):
        assert not quality.leaks(content), content


def test_a_section_of_only_leaks_fails_as_empty():
    verdict = quality.check("Notes on the paper \"X\", with the pages they come from:")
    assert verdict.reasons == ["empty"] and verdict.leaks_removed == 1


def test_numbers_in_words_and_digits_must_match_the_passage():
    page = "S2ORC contains three times more full text papers than PubMed Central, and 81.1M papers in all."
    assert quality.unsupported_numbers("S2ORC contains 10 times more full text papers than PubMed Central", page) \
        == [10.0]
    assert quality.unsupported_numbers("S2ORC has 3 times more full texts than PubMed Central [p. 2]", page) == []
    assert quality.unsupported_numbers("S2ORC has three times more full texts", page) == []
    assert quality.unsupported_numbers("Accuracy rose by 20% on 40 participants", "on 40 people, 20 % more") == []
    assert quality.unsupported_numbers("It is twice as fast", "a 2x speed-up") == []
    assert quality.unsupported_numbers("One of the tools is fast", "nothing numeric") == []


def test_answer_grounding_drops_a_citation_whose_numbers_the_passage_lacks():
    passages = ["S2ORC contains three times more full text papers than PubMed Central",
                "Readers track citations across many papers"]
    text = "S2ORC contains 10 times more full text papers than PubMed Central [1]."
    result = ground(text, bag_of_words(passages), bag_of_words, passages)
    assert "[1]" not in result.text and result.removed == [1]
    assert result.numbers_flagged == ["S2ORC contains 10 times more full text papers than PubMed Central."]
    ok = ground("S2ORC contains three times more full text papers than PubMed Central [1].",
                bag_of_words(passages), bag_of_words, passages)
    assert "[1]" in ok.text and not ok.numbers_flagged


CHUNKS = [
    Chunk(1, "p", 0, 1, 1, "Introduction", "Readers lose track of citations they have already seen across "
          "papers. We propose a reading tool that highlights the citations a reader has already seen. "
          "This matters because literature review takes researchers many hours every week."),
    Chunk(2, "p", 1, 3, 4, "Results", "In a study with twelve participants the highlighted citations helped "
          "participants find relevant work faster than the baseline reader did. "
          "Participants rated the tool as useful for keeping track of what they had read."),
]
PAGES = {1: CHUNKS[0].text, 3: "Setup of the lab study and its tasks.", 4: CHUNKS[1].text}


def grounder():
    return PageGrounder(CHUNKS, bag_of_words([c.text for c in CHUNKS]), bag_of_words, lambda p: PAGES.get(p, ""))


def test_page_grounding_cites_supported_sentences_on_the_right_page_and_drops_the_rest():
    text = ("Readers lose track of citations they have already seen.\n"
            "Highlighted citations helped participants find relevant work faster [p. 1].\n"
            "The authors describe a chronic leukemia patient aged 45.")
    result = grounder().ground(text)
    lines = result.text.splitlines()
    assert lines[0].endswith("[p. 1].")
    assert lines[1].endswith("[p. 4].")  # the model's [p. 1] is wrong; the code cites the page that says it
    assert len(lines) == 2 and "leukemia" not in result.text  # nothing supports it: not shown
    assert (result.sentences, result.cited, result.unsupported, result.removed) == (3, 2, 1, [1])
    assert result.dropped[0][0] == "The authors describe a chronic leukemia patient aged 45."


def test_page_grounding_removes_a_citation_whose_number_the_page_lacks():
    result = grounder().ground("In a study with 40 participants the highlighted citations helped find work [p. 4].")
    assert "[p." not in result.text and result.removed == [4]
    assert len(result.numbers_flagged) == 1 and result.cited == 0


def test_extractive_quotes_key_sentences_with_their_pages():
    used: set[str] = set()
    quotes = extractive.key_sentences(CHUNKS, grounder().vectors, extractive.PURPOSES["results"], bag_of_words,
                                      grounder().pages_for, limit=2, used=used)
    assert len(quotes) == 2 and len(used) == 2
    body = extractive.render(quotes)
    assert body.startswith(extractive.NOTE)
    for line in body.splitlines()[1:]:
        assert line.startswith("- “") and CITATION.search(line)
    again = extractive.key_sentences(CHUNKS, grounder().vectors, "anything", bag_of_words, grounder().pages_for,
                                     limit=5, used=used)
    assert not {q[0] for q in again} & {q[0] for q in quotes}  # a sentence is quoted once per summary


def run_gate(texts, notes=None, may_retry=lambda: True):
    """gated_section over scripted attempts, each fed word by word (pure orchestration: no model involved)."""
    calls, streamed = [], []
    stats = GroundingStats()

    def attempt(options, gate):
        calls.append(options)
        for i, word in enumerate(texts[len(calls) - 1].split(" ")):
            gate.feed(word if i == 0 else " " + word)
        gate.finish(complete=True)
        return False

    body = gated_section(attempt, grounder(), "results", "Results", stats, streamed.append, set(),
                         (notes if notes is not None else []).append, may_retry=may_retry)
    return body, stats, calls, "".join(streamed)


def test_gate_accepts_a_grounded_first_attempt():
    body, stats, calls, _ = run_gate(["Highlighted citations helped participants find relevant work faster."])
    assert calls == [{}] and body.endswith("[p. 4].")
    assert (stats.sentences, stats.cited, stats.regenerated, stats.extractive_sections) == (1, 1, [], [])


def test_gate_regenerates_an_attempt_that_left_nothing_and_says_so_in_the_status_only():
    notes = []
    body, stats, calls, streamed = run_gate([NEAR_REPEATS, "Participants rated the tool as useful for reading."],
                                            notes)
    assert calls == [{}, RETRY] and stats.regenerated == ["Results"]
    assert "[p. 4]" in body and not quality.repeated_phrases(body)
    assert any("writing it again" in n for n in notes)
    assert streamed == body and "writing it again" not in streamed and "[Results" not in streamed


def test_gate_makes_a_twice_failing_section_extractive():
    hallucinated = "The paper describes a case study of a patient with chronic lymphocytic leukemia, a male aged 45."
    body, stats, calls, streamed = run_gate([ENUMERATION, hallucinated])
    assert len(calls) == 2 and stats.extractive_sections == ["Results"]
    assert body.startswith(extractive.NOTE) and "“" in body and CITATION.search(body)
    assert not quality.repeated_phrases(body)
    assert "no supported sentence" in stats.failures["Results"][1]
    assert streamed == body and "quoting the paper instead" not in streamed
    assert stats.to_json()["extractive_sections"] == ["Results"] and stats.cited == stats.sentences


def test_a_section_past_the_summarys_retries_quotes_the_paper_at_once():
    body, stats, calls, _ = run_gate([ENUMERATION, "Participants rated the tool as useful for reading."],
                                     may_retry=lambda: False)
    assert calls == [{}] and stats.regenerated == [] and stats.extractive_sections == ["Results"]
    assert body.startswith(extractive.NOTE)


def test_a_summary_retries_only_as_many_sections_as_its_budget():
    from paperdesk.core.agents.summarizer import SECTION_RETRIES, RetryBudget

    retries = RetryBudget(SECTION_RETRIES)
    assert [retries.take() for _ in range(SECTION_RETRIES + 2)] == [True] * SECTION_RETRIES + [False, False]


def test_two_repeats_in_a_row_stop_the_generation_and_are_not_shown():
    from paperdesk.core.agents.sentence_stream import SentenceGate, StopToken
    from paperdesk.core.cancel import CancelToken

    user = CancelToken()
    stop = StopToken(user)
    shown = []
    gate = SentenceGate(grounder(), shown.append, stop.cancel)
    for sentence in ["Highlighted citations helped participants find relevant work faster. ",
                     "Highlighted citations helped participants find relevant work again. ",
                     "Highlighted citations helped participants find relevant work once more. "]:
        gate.feed(sentence)
    gate.finish(complete=True)
    assert stop.cancelled and not user.cancelled and gate.loops == 2
    assert gate.kept == 1 and "".join(shown) == gate.text


def test_thanks_and_funding_are_not_quoted_as_a_section():
    assert extractive.prose("The trial compared two irrigation schedules on forty plots over three dry seasons.")
    assert not extractive.prose("We are grateful to the station staff for the provision of the rainfall records.")
    assert not extractive.prose("We thank the two reviewers for comments that improved this paper a great deal.")
    assert not extractive.prose("This work was funded by the regional water board under a three-year programme.")


def test_a_streamed_sentence_goes_on_past_an_abbreviations_full_stop():
    from paperdesk.core.agents.sentence_stream import SentenceGate

    shown = []
    gate = SentenceGate(grounder(), shown.append)
    for token in ["In a study with twelve participants of Kim et al.", " (", "e.g.", " Fig", ". ", "S", "2) ",
                  "the highlighted citations helped participants find relevant work faster than the baseline. ",
                  "Readers lose track of citations."]:
        gate.feed(token)
    gate.finish(complete=True)
    assert gate.grounding.sentences == 2  # judged whole: its names are not on the page, so it is not shown
    sentence, why = gate.grounding.dropped[0]
    assert sentence.startswith("In a study") and "Kim et al. (e.g. Fig. S2) the highlighted" in sentence
    assert why == "not on the page: Kim, S2"
