"""The summaries bench's own measures: the abstract's figures a summary covers (cited on a page holding
them), generic sentences and leaked prompt text."""

from paperdesk.bench import summary_figures as sf


def test_figures_are_results_not_years_or_small_counts():
    abstract = "We release 81.1M papers and 380.5M citation links; 8.1M have full text, 28% more than in 2019 (3 sources)."
    assert sf.figures(abstract) == {"81.1M", "380.5M", "8.1M", "28%"}
    assert sf.figures("It took 1,500 hours over 30 days.") == {"1500", "30"}
    assert sf.figures("Cities of the 21st century; the 114th run scored 96.5%.") == {"96.5%"}


def test_coverage_counts_a_figure_only_where_a_cited_page_holds_it():
    pages = {2: "The corpus holds 81.1M papers.", 4: "Of these, 8.1M have full text."}
    page = lambda p: pages.get(p, "")  # noqa: E731
    sentences = ["The corpus holds 81.1M papers [p. 2].", "Full text is there for 8.1M of them [p. 2].",
                 "Links number 380.5M."]
    assert sf.coverage("81.1M papers, 8.1M full texts, 380.5M links", sentences, page) == (1, 3)
    assert sf.coverage("81.1M papers", ["The corpus holds 81.1M papers [pp. 1-2]."], page) == (1, 1)


def test_a_generic_sentence_names_nothing_of_its_paper():
    title = "Analysis Matrix for Smart Cities"
    assert sf.generic("The paper presents a new approach to an important problem [p. 1].", title)
    assert not sf.generic("The matrix scores each technology on five criteria [p. 3].", title)  # a title term
    assert not sf.generic("The lighting system scored 4.29 [p. 9].", title)  # a figure
    assert not sf.generic("It builds on the TAM model of user acceptance [p. 4].", title)  # a name
