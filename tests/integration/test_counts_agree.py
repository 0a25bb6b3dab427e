"""The counts a user sees twice agree: a summary's "N of M sentences cited" in the command's message is the
line under the draft, counted from the same stored text; the token counter never shows a one-token rate.

The summary streams from FakeLLM (tests/fake_llm.py): this is about which numbers reach the user, not about
what a model writes. Real library, SQLite and grounding.
"""

import pytest

from conftest import PAPERS
from fake_llm import FakeLLM
from paperdesk.core.agents.quality import cited_share_line
from paperdesk.core.desk.desk import Desk
from paperdesk.tui.status_bar import token_activity
from settings_for import settings_for

pytestmark = pytest.mark.slow
TEXT = ("Writers asked for help with structure [p. 2]. They valued examples of expository prose [p. 3]. ...\n"
        "Some wanted feedback on tone. The study had 20 participants [p. 4].")


def test_the_summary_message_counts_what_the_draft_shows(tmp_home, arxiv, embedder):
    desk = Desk(settings_for(tmp_home, arxiv.api_url, PAPERDESK_OFFLINE="1"), backend=FakeLLM(TEXT),
                embedder=embedder)
    try:
        outcome = desk.run(f"add {PAPERS / '2304.02623v1.pdf'}")
        assert outcome.ok, outcome.message
        shown = cited_share_line(desk.draft_view().text)  # what the Draft pane writes under the summary
        assert shown and shown.split(" · ")[0] in outcome.message
    finally:
        desk.close()


def test_the_token_counter_says_no_rate_for_one_token():
    assert token_activity(1, 3601.0) == "generating 1 token · Esc stops"
    assert token_activity(9, 4.25) == "generating 9 tokens · 4.2 tok/s · Esc stops"
