"""The held-out QA set: which papers are tuned on and which only checked, fixed by paper.

Every question is asked against one library of all 30 papers (the 4 fixture papers and the 26 of
bench/data/papers-more), so finding the right paper is part of the task. Work is built against the *tune*
half, where each question is printed; the *check* half prints totals only, and a change is kept when check
does not get worse.
"""

from __future__ import annotations

from pathlib import Path

import paperdesk

ROOT = Path(paperdesk.__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
MORE = ROOT / "bench" / "data" / "papers-more"
# (question file, folder of its PDFs)
SETS = ((FIXTURES / "qa_dev.jsonl", FIXTURES / "papers"), (MORE / "qa.jsonl", MORE / "papers"),
        (MORE / "absent.jsonl", None))  # absent questions name papers of both folders

FIXTURE_PAPERS = ("2206.10883v3.pdf", "2302.07302v1.pdf", "2304.02623v1.pdf", "papermage.pdf")
TUNE = frozenset(FIXTURE_PAPERS + (
    "grobid-client-python__0046d83a-edd6-4631-b57c-755cdcce8b7f.pdf",  # FES hand opening
    "mmda__spanless_bibs_3cf45514384bbb7d083ae53e19bdc22300e648ab.pdf",  # educational timetabling survey
    "mmda__test_doc_sha_d0450478c38dda61f9943f417ab9fcdb2ebeae0a.pdf",  # smart cities
    "paper-qa__paper.pdf",  # explanations of molecular prediction models
    "papers-cli__bg-8-515-2011.pdf",  # ice-edge blooms
    "r-cran-clue__clue.pdf", "r-cran-coin__LegoCondInf.pdf", "r-cran-fitdistrplus__paper2JSS.pdf",
    "r-cran-flexmix__flexmix-intro.pdf", "r-cran-gmm__gmm_with_R.pdf", "r-cran-multcomp__generalsiminf.pdf",
    "r-cran-network__networkVignette.pdf", "r-cran-party__party.pdf"))
CHECK = frozenset((
    "r-cran-partykit__ctree.pdf", "r-cran-pscl__countreg.pdf", "r-cran-quantreg__rq.pdf",
    "r-cran-rcpp__Rcpp-jss-2011.pdf", "r-cran-sandwich__sandwich.pdf", "r-cran-seriation__seriation.pdf",
    "r-cran-spam__jss15.pdf", "r-cran-strucchange__strucchange-intro.pdf", "r-cran-surveillance__hhh4.pdf",
    "r-cran-vcd__residual-shadings.pdf", "r-cran-zoo__zoo.pdf",
    "refextract__1707.04066v1.pdf",  # near-Earth objects
    "refextract__2110.02751.pdf"))  # nuclear recoils
SPLITS = {"tune": TUNE, "check": CHECK}


def half(paper: str) -> str:
    """'tune' or 'check' for a paper's file name."""
    return "tune" if paper in TUNE else "check" if paper in CHECK else ""


def pdf_folders() -> list[Path]:
    return [folder for _, folder in SETS if folder is not None]


def find_pdf(name: str, folders: list[Path]) -> Path | None:
    return next((folder / name for folder in folders if (folder / name).is_file()), None)


def library_pdfs() -> list[Path]:
    """Every PDF of the held-out library (both halves), in name order; one missing is an error."""
    folders = pdf_folders()
    found = {name: find_pdf(name, folders) for name in sorted(TUNE | CHECK)}
    absent = [name for name, pdf in found.items() if pdf is None]
    if absent:
        raise FileNotFoundError(f"no PDF for {', '.join(absent)} in {', '.join(map(str, folders))}")
    return [pdf for pdf in found.values() if pdf is not None]
