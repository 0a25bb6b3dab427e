"""Names extract_list pulls from passages are checked against the kind asked for; what fails is said, not listed.

The passages are the real fixture papers' chunks (as a library search returns them), except the one
built in the shape a "which datasets" report met ("... Koncel-Kedziorski et al. (2019) ...").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paperdesk.core.ingest.pdf import parse_pdf
from paperdesk.core.research.engine import _summary
from paperdesk.core.research.item_kinds import misfit
from paperdesk.core.research.rules import rule_plan
from paperdesk.core.research.synthesizer import synthesize
from paperdesk.core.research.tools import extract_list, names_in

PAPERS = Path(__file__).resolve().parents[1] / "fixtures" / "papers"
_cache: dict[str, list] = {}


def passages(name: str) -> list[dict]:
    if name not in _cache:
        chunks = parse_pdf(PAPERS / name).chunks
        _cache[name] = [{"paper_id": name, "page": c.page_start, "chunk_id": i, "section": c.section, "text": c.text}
                        for i, c in enumerate(chunks)]
    return _cache[name]


def listed(name: str, kind: str) -> tuple[list[str], dict[str, str]]:
    dropped: list[dict[str, str]] = []
    items = names_in(passages(name), kind, limit=100, dropped=dropped)
    return [i["item"] for i in items], {d["item"]: d["why"] for d in dropped}


def test_people_thanked_in_the_acknowledgements_are_no_dataset() -> None:
    items, dropped = listed("papermage.pdf", "dataset")
    assert "MacMillan" not in items  # "Jaron Lochner and Kelsey MacMillan helped us get additional ... support"
    assert dropped["MacMillan"] == "named in a reference list or acknowledgements"
    assert {"VILA", "RoBERTa", "SciBERT"} <= set(items)


def test_a_headings_words_in_capitals_are_no_method() -> None:
    items, dropped = listed("2302.07302v1.pdf", "method")
    for word in ("RELATED", "WORK", "SYSTEM", "DESIGN", "AND", "FUTURE", "LIMITATIONS", "CONCLUSION"):
        assert word not in items, word
    assert dropped["WORK"] == "a heading's word in capitals, not a name"
    assert {"CiteSee", "CiteRead", "PaperQuest", "TypeScript"} <= set(items)


def test_the_datasets_a_paper_compares_stay_listed() -> None:
    items, dropped = listed("2206.10883v3.pdf", "dataset")
    assert {"Multi-LexSum", "XSUM", "SciTLDR", "BigPatent", "Multi-XScience", "BillSum", "Multi-News"} <= set(items)
    assert {"COLLECTION", "PREPROCESSING", "LABELING"} <= set(dropped)  # the datasheet's headings


PERSON = {"paper_id": "s2orc", "page": 2, "chunk_id": 7, "section": "2 Related work",
          "text": "Several datasets of scientific text exist, and most of them are small, drawn from one field, or "
                  "limited to abstracts rather than the full text of the papers they describe. Koncel-Kedziorski "
                  "et al. (2019) built the AGENDA dataset from abstracts, and Koncel-Kedziorski released its "
                  "graphs as a corpus of 40k items. Our corpus is larger than these by two orders of magnitude and "
                  "covers many fields, with full text parsed into paragraphs, citations and references."}


def test_an_author_cited_in_a_dataset_sentence_is_left_out_and_said_in_the_trace() -> None:
    found = extract_list(None, {"source": "found", "kind": "datasets"}, {"found": {"passages": [PERSON]}})
    assert [i["item"] for i in found["items"]] == ["AGENDA"]
    assert found["dropped"] == [{"item": "Koncel-Kedziorski", "why": "a person's name (cited as an author)"}]
    assert _summary(found) == "1 items; left out Koncel-Kedziorski (a person's name (cited as an author))"
    plan = rule_plan("Which datasets do the papers use?")
    report = synthesize(plan, [], [], [], {}, lists=[found])
    assert "- AGENDA [1]" in report.text
    assert "_Left out: Koncel-Kedziorski (a person's name (cited as an author))._" in report.text


@pytest.mark.parametrize("name,sentence,kind,why", [
    ("Koncel-Kedziorski", "The datasets of Koncel-Kedziorski and Smith (2019) are small.", "dataset",
     "a person's name"),
    ("Koncel-Kedziorski", "Such datasets are often compared with Koncel-Kedziorski in size.", "dataset", "shaped like"),
    ("Multi-News", "We use the Multi-News dataset.", "dataset", ""),
    ("Koncel-Kedziorski", "the Koncel-Kedziorski dataset", "dataset", ""),  # named as one, right beside the word
    ("Megatron-Turing", "Megatron-Turing is a large model.", "method", ""),
    ("SQuAD", "Results on SQuAD, a reading comprehension benchmark, improve.", "dataset", ""),
    ("Large", "Large models need large datasets.", "dataset", "not named as a dataset"),
])
def test_the_kind_check_by_itself(name, sentence, kind, why) -> None:
    got = misfit(name, sentence, kind)
    assert got.startswith(why) if why else got == ""
