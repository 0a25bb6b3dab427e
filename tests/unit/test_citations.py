from paperdesk.core.agents.citations import check_citations


def test_invalid_and_unsupported_citations_are_removed():
    text = "Claim one [p. 2]. Claim two [p. 99]. Claim three [pp. 3-4], and four [p. 7]."
    check = check_citations(text, page_count=10, supported_pages={2, 3, 4})
    assert check.text == "Claim one [p. 2]. Claim two. Claim three [pp. 3-4], and four."
    assert check.kept == [2, 3, 4] and check.removed == [99, 7]
