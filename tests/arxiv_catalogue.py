"""The papers the fake arXiv server knows: the four real PDFs in fixtures/papers.

Titles, authors and abstracts are copied from each PDF's first page (read with
PyMuPDF, line-break hyphens and footnote marks removed). Dates, categories and
comments are close to the real arXiv records but were not checked against
arXiv (no network here); tests should not depend on their exact values.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PAPERS_DIR = Path(__file__).parent / "fixtures" / "papers"


@dataclass(frozen=True)
class CatalogueEntry:
    arxiv_id: str  # base id, no version
    version: int
    title: str
    authors: tuple[str, ...]
    abstract: str
    published: str  # RFC 3339, as arXiv writes it
    updated: str
    categories: tuple[str, ...]  # the first one is the primary category
    comment: str
    pdf_file: str  # name inside PAPERS_DIR

    @property
    def short_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}"

    @property
    def pdf_path(self) -> Path:
        return PAPERS_DIR / self.pdf_file


CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        arxiv_id="2302.07302",
        version=1,
        title="CiteSee: Augmenting Citations in Scientific Papers with Persistent and Personalized Historical Context",
        authors=("Joseph Chee Chang", "Amy X. Zhang", "Jonathan Bragg", "Andrew Head", "Kyle Lo",
                 "Doug Downey", "Daniel S. Weld"),
        abstract=(
            "When reading a scholarly article, inline citations help researchers contextualize the current "
            "article and discover relevant prior work. However, it can be challenging to prioritize and make "
            "sense of the hundreds of citations encountered during literature reviews. This paper introduces "
            "CiteSee, a paper reading tool that leverages a user's publishing, reading, and saving activities "
            "to provide personalized visual augmentations and context around citations. First, CiteSee "
            "connects the current paper to familiar contexts by surfacing known citations a user had cited or "
            "opened. Second, CiteSee helps users prioritize their exploration by highlighting relevant but "
            "unknown citations based on saving and reading history. We conducted a lab study that suggests "
            "CiteSee is significantly more effective for paper discovery than three baselines. A field "
            "deployment study shows CiteSee helps participants keep track of their explorations and leads to "
            "better situational awareness and increased paper discovery via inline citation when conducting "
            "real-world literature reviews."
        ),
        published="2023-02-14T19:27:41Z",
        updated="2023-02-14T19:27:41Z",
        categories=("cs.HC",),
        comment="CHI '23, April 23-28, 2023, Hamburg, Germany; 15 pages",
        pdf_file="2302.07302v1.pdf",
    ),
    CatalogueEntry(
        arxiv_id="2304.02623",
        version=1,
        title="Beyond Summarization: Designing AI Support for Real-World Expository Writing Tasks",
        authors=("Zejiang Shen", "Tal August", "Pao Siangliulue", "Kyle Lo", "Jonathan Bragg",
                 "Jeff Hammerbacher", "Doug Downey", "Joseph Chee Chang", "David Sontag"),
        abstract=(
            "Large language models have introduced exciting new opportunities and challenges in designing and "
            "developing new AI-assisted writing support tools. Recent work has shown that leveraging this new "
            "technology can transform writing in many scenarios such as ideation during creative writing, "
            "editing support, and summarization. However, AI-supported expository writing\u2014including "
            "real-world tasks like scholars writing literature reviews or doctors writing progress "
            "notes\u2014is relatively understudied. In this position paper, we argue that developing AI "
            "supports for expository writing has unique and exciting research challenges and can lead to high "
            "real-world impacts. We characterize expository writing as evidence-based and "
            "knowledge-generating: it contains summaries of external documents as well as new information or "
            "knowledge. It can be seen as the product of authors' sensemaking process over a set of source "
            "documents, and the interplay between reading, reflection, and writing opens up new opportunities "
            "for designing AI support. We sketch three components for AI support design and discuss "
            "considerations for future research."
        ),
        published="2023-04-05T17:52:13Z",
        updated="2023-04-05T17:52:13Z",
        categories=("cs.HC", "cs.CL"),
        comment="4 pages",
        pdf_file="2304.02623v1.pdf",
    ),
    CatalogueEntry(
        arxiv_id="2206.10883",
        version=3,
        title="Multi-LexSum: Real-World Summaries of Civil Rights Lawsuits at Multiple Granularities",
        authors=("Zejiang Shen", "Kyle Lo", "Lauren Yu", "Nathan Dahlberg", "Margo Schlanger", "Doug Downey"),
        abstract=(
            "With the advent of large language models, methods for abstractive summarization have made great "
            "strides, creating potential for use in applications to aid knowledge workers processing unwieldy "
            "document collections. One such setting is the Civil Rights Litigation Clearinghouse (CRLC), which "
            "posts information about large-scale civil rights lawsuits, serving lawyers, scholars, and the "
            "general public. Today, summarization in the CRLC requires extensive training of lawyers and law "
            "students who spend hours per case understanding multiple relevant documents in order to produce "
            "high-quality summaries of key events and outcomes. Motivated by this ongoing real-world "
            "summarization effort, we introduce Multi-LexSum, a collection of 9,280 expert-authored summaries "
            "drawn from ongoing CRLC writing. Multi-LexSum presents a challenging multi-document summarization "
            "task given the length of the source documents, often exceeding two hundred pages per case. "
            'Furthermore, Multi-LexSum is distinct from other datasets in its multiple target summaries, each '
            'at a different granularity (ranging from one-sentence "extreme" summaries to multi-paragraph '
            "narrations of over five hundred words). We present extensive analysis demonstrating that despite "
            "the high-quality summaries in the training data (adhering to strict content and style "
            "guidelines), state-of-the-art summarization models perform poorly on this task. We release "
            "Multi-LexSum for further research in summarization methods as well as to facilitate development "
            "of applications to assist in the CRLC's mission."
        ),
        published="2022-06-22T06:26:39Z",
        updated="2022-07-22T01:33:38Z",
        categories=("cs.CL",),
        comment="37 pages",
        pdf_file="2206.10883v3.pdf",
    ),
    CatalogueEntry(
        arxiv_id="2308.14889",
        version=1,
        title="PaperMage: A Unified Toolkit for Processing, Representing, and Manipulating Visually-Rich "
        "Scientific Documents",
        authors=("Kyle Lo", "Zejiang Shen", "Benjamin Newman", "Joseph Chee Chang", "Russell Authur",
                 "Erin Bransom", "Stefan Candra", "Yoganand Chandrasekhar", "Regan Huff", "Bailey Kuehl",
                 "Amanpreet Singh", "Chris Wilhelm", "Angele Zamarron", "Marti A. Hearst", "Daniel S. Weld",
                 "Doug Downey", "Luca Soldaini"),
        abstract=(
            "Despite growing interest in applying natural language processing (NLP) and computer vision (CV) "
            "models to the scholarly domain, scientific documents remain challenging to work with. They're "
            "often in difficult-to-use PDF formats, and the ecosystem of models to process them is fragmented "
            "and incomplete. We introduce papermage, an open-source Python toolkit for analyzing and "
            "processing visually-rich, structured scientific documents. papermage offers clean and intuitive "
            "abstractions for seamlessly representing and manipulating both textual and visual document "
            "elements. papermage achieves this by integrating disparate state-of-the-art NLP and CV models "
            "into a unified framework, and provides turn-key recipes for common scientific document "
            "processing use-cases. papermage has powered multiple research prototypes of AI applications over "
            "scientific documents, along with Semantic Scholar's large-scale production system for processing "
            "millions of PDFs."
        ),
        published="2023-08-28T20:17:52Z",
        updated="2023-08-28T20:17:52Z",
        categories=("cs.CL",),
        comment="13 pages",
        pdf_file="papermage.pdf",
    ),
)

BY_ID: dict[str, CatalogueEntry] = {p.arxiv_id: p for p in CATALOGUE}
