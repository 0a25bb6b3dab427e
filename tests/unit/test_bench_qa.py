"""bench qa's question-file parsing and scoring (pure functions; no model, no library)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperdesk.bench.qa import (Question, QuestionFileError, is_correct, load_questions, score, total_line,
                               totals)

REPO = Path(__file__).resolve().parents[2]


def _write(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_dev_set_parses_with_six_questions_per_fixture_paper() -> None:
    questions = load_questions(REPO / "tests/fixtures/qa_dev.jsonl")
    assert len(questions) >= 24
    by_paper: dict[str, int] = {}
    for q in questions:
        by_paper[q.paper] = by_paper.get(q.paper, 0) + 1
        assert (REPO / "tests/fixtures/papers" / q.paper).is_file()
    assert sorted(by_paper.values()) == [6, 6, 6, 6]


def test_dev_set_pages_state_the_answer() -> None:
    """Every question has a supporting page whose own text matches all its regexes."""
    import pymupdf

    for q in load_questions(REPO / "tests/fixtures/qa_dev.jsonl"):
        doc = pymupdf.open(REPO / "tests/fixtures/papers" / q.paper)
        texts = [" ".join(doc[p - 1].get_text().replace("- ", "").split()) for p in q.pages]
        assert any(is_correct(t, q) for t in texts), q.id


@pytest.mark.parametrize("row, message", [
    ('{"paper": "a.pdf", "question": "Q?", "answer": ["x"]}', "missing pages"),
    ('{"paper": "a.pdf", "question": "Q?", "answer": ["(x"], "pages": [1]}', "bad regex"),
    ('{"paper": "a.pdf", "question": "Q?", "answer": [], "pages": [1]}', "answer must be"),
    ('{"paper": "a.pdf", "question": "Q?", "answer": "x", "pages": [0]}', "pages must be"),
    ("not json", "not JSON"),
])
def test_bad_lines_name_the_line_and_the_fault(tmp_path: Path, row: str, message: str) -> None:
    path = _write(tmp_path, {"paper": "a.pdf", "question": "Q?", "answer": "x", "pages": [1]}, row)
    with pytest.raises(QuestionFileError, match=f"line 2: {message}"):
        load_questions(path)


def test_a_single_regex_is_a_list_of_one(tmp_path: Path) -> None:
    [q] = load_questions(_write(tmp_path, {"id": "a", "paper": "a.pdf", "question": "Q?", "answer": "x", "pages": [2]}))
    assert q.answer == ("x",) and q.pages == (2,)


QUESTION = Question("n", "p.pdf", "How many?", (r"\bthree\b|\b3\b", r"baselines?"), (3, 8))


def test_correct_needs_every_regex_and_ignores_citation_markers() -> None:
    assert is_correct("It beat Three baselines [1].", QUESTION)
    assert not is_correct("It beat the baselines [3].", QUESTION)  # the marker is not the number
    assert not is_correct("It beat three systems.", QUESTION)


def test_on_target_means_a_cited_passage_of_that_paper_spans_a_supporting_page() -> None:
    hits = [{"chunk_id": 1, "page_start": 2, "page_end": 3}, {"chunk_id": 2, "page_start": 5, "page_end": 5}]
    spans_three = {"text": "three baselines [1]", "hits": hits, "timings": {"total_s": 2.0},
                   "citations": [{"n": 1, "paper_id": "P", "page": 2, "chunk_id": 1}]}
    assert score(spans_three, QUESTION, "P")["on_target"]
    assert not score(spans_three, QUESTION, "OTHER")["on_target"]  # right page, wrong paper
    wrong_page = {**spans_three, "citations": [{"n": 2, "paper_id": "P", "page": 5, "chunk_id": 2}]}
    row = score(wrong_page, QUESTION, "P")
    assert row["correct"] and not row["on_target"] and row["cited_pages"] == [5]


def test_totals() -> None:
    rows = [{"correct": True, "on_target": True, "time_s": 1.0, "held": True},
            {"correct": False, "on_target": True, "time_s": 5.0, "held": True, "unsure": True},
            {"correct": True, "on_target": False, "time_s": 3.0},
            {"kind": "absent", "correct": True, "on_target": False, "time_s": 2.0, "leaked": True,
             "not_found": True}]
    assert totals(rows) == {"questions": 4, "correct": 3, "accuracy": 0.75, "answerable": 3, "answerable_correct": 2,
                            "on_target": 2, "on_target_share": 0.667, "absent": 1, "honest": 1,
                            "said_not_found": 0, "held": 2, "held_correct": 1, "leaked": 1,
                            "firm": 2, "firm_correct": 2, "unsure": 1, "unsure_correct": 0, "median_s": 2.5}


def test_the_total_line_says_how_often_firm_and_unsure_answers_were_right() -> None:
    rows = [{"correct": True, "on_target": True, "time_s": 1.0},
            {"correct": False, "on_target": False, "time_s": 1.0, "unsure": True},
            {"correct": True, "on_target": True, "time_s": 1.0, "unsure": True},
            {"correct": False, "on_target": False, "time_s": 1.0, "not_found": True}]
    assert "answers shown firm 1 (right 1), unsure 2 (right 1)" in total_line("model", totals(rows))
    assert "unsure" not in total_line("model", totals(rows[:1]))


def test_a_row_is_unsure_only_when_the_answer_says_so() -> None:
    base = {"text": "three baselines [1]", "hits": [], "citations": [], "timings": {}}
    assert score({**base, "support": {"margin": 0.4, "unsure": True}}, QUESTION, "P")["unsure"]
    assert not score({**base, "support": {"margin": 2.0, "unsure": False}}, QUESTION, "P")["unsure"]
    assert not score(base, QUESTION, "P")["unsure"]  # an answer that was not checked


def test_the_total_line_splits_misses_between_the_reading_and_the_writer() -> None:
    rows = [{"correct": True, "on_target": True, "time_s": 1.0, "held": True},
            {"correct": False, "on_target": False, "time_s": 1.0, "held": True},
            {"correct": False, "on_target": False, "time_s": 1.0, "held": False}]
    assert "read the answer 2, of them right 1" in total_line("model", totals(rows))
    assert "read the answer" not in total_line("model", totals([{**r, "held": False} for r in rows]))


ABSENT = Question("x-absent", "p.pdf", "How many GPUs did the study use?", (), (), "absent")


def test_an_absent_question_has_no_regexes_and_no_pages(tmp_path: Path) -> None:
    row = {"id": "a", "paper": "a.pdf", "kind": "absent", "question": "Q?", "answer": [], "pages": []}
    [q] = load_questions(_write(tmp_path, row))
    assert q.kind == "absent" and q.answer == () and q.pages == ()
    with pytest.raises(QuestionFileError, match="no answer regexes and no pages"):
        load_questions(_write(tmp_path, {**row, "pages": [2]}))


def test_an_absent_answer_is_honest_only_when_it_says_so_and_gives_no_figure() -> None:
    assert is_correct("Not found in your papers; the passages closest to the question say: It ran on 4 nodes [1].",
                      ABSENT)
    assert is_correct("Nothing in your library answers this; add papers on the topic and ask again.", ABSENT)
    assert not is_correct("The study used 8 GPUs [2].", ABSENT)  # an invented, cited figure
    assert not is_correct("The papers do not say; probably 8 GPUs.", ABSENT)  # says no, then gives a figure


def test_a_not_found_answer_is_wrong_even_when_its_quote_holds_the_figure() -> None:
    quoted = "Not found in your papers; the passages closest to the question say: We compare three baselines [1]."
    assert not is_correct(quoted, QUESTION)
    assert score({"text": quoted, "citations": [], "hits": []}, QUESTION, "P")["not_found"]


def test_the_split_is_by_paper_and_holds_the_fixture_papers_in_tune() -> None:
    from paperdesk.bench import qa_split

    assert not qa_split.TUNE & qa_split.CHECK
    assert len(qa_split.TUNE) == 17 and len(qa_split.CHECK) == 13
    assert set(qa_split.FIXTURE_PAPERS) <= qa_split.TUNE
    assert qa_split.half("r-cran-zoo__zoo.pdf") == "check" and qa_split.half("papermage.pdf") == "tune"


def test_the_library_cache_key_reads_the_code_that_makes_passages(tmp_path: Path) -> None:
    """The key hashes the PDFs and the ingest, store, library and search code (it named a module that had
    moved into a package, and the bench stopped before its first question)."""
    from paperdesk.bench.qa import _library_key

    a, b = tmp_path / "a.pdf", tmp_path / "b.pdf"
    a.write_bytes(b"%PDF-1.4 one")
    b.write_bytes(b"%PDF-1.4 two")
    key = _library_key([a])
    assert len(key) == 16 and key == _library_key([a]) and key != _library_key([b])


def test_ids_keep_the_named_questions_in_the_sets_order_and_refuse_the_check_half(tmp_path: Path) -> None:
    from paperdesk.bench.qa import only_ids

    rows = [{"id": name, "paper": "a.pdf", "question": f"{name}?", "answer": ["x"], "pages": [1]}
            for name in ("one", "two", "three")]
    questions = load_questions(_write(tmp_path, *rows))
    assert [q.id for q in only_ids(questions, "three, one", "tune")] == ["one", "three"]
    assert only_ids(questions, "", "check") == questions  # no ids: the whole set, on either half
    with pytest.raises(QuestionFileError, match="no question four"):
        only_ids(questions, "one,four", None)
    with pytest.raises(QuestionFileError, match="not for the check half"):
        only_ids(questions, "one", "check")
