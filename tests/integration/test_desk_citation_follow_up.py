"""A question about a citation of the open answer ("what does [3] say?") is answered below that answer, citing
the passage, as the draft's next revision: the answer it refers to is never replaced.

Real library, real SQLite, the real default GGUF writing short outputs (SHORT_OUTPUTS).
"""

import re

import pytest

from paperdesk.core.desk.desk import Desk
from settings_for import SHORT_OUTPUTS, settings_for

pytestmark = pytest.mark.slow


def test_a_follow_up_on_a_citation_keeps_the_answer_and_cites_that_passage(tmp_home, arxiv, embedder,
                                                                           local_backend, citesee_pdf):
    desk = Desk(settings_for(tmp_home, arxiv.api_url, **SHORT_OUTPUTS), backend=local_backend, embedder=embedder)
    try:
        desk.library.add_pdf(citesee_pdf)
        assert desk.run("sem-search how do readers keep track of citations").ok
        draft_id = desk.session.draft.draft_id
        answer = desk.drafts.current_draft(draft_id)
        cited = answer.sources[-1]  # the last passage: not the one the answer leans on most
        n = cited["n"]

        outcome = desk.run(f"what does [{n}] say?")
        assert outcome.ok, outcome.message
        assert desk.session.draft.kind == "answer" and desk.session.draft.draft_id == draft_id
        after = desk.drafts.current_draft(draft_id)
        assert after.revision == answer.revision + 1
        assert after.text.startswith(answer.text.rstrip())  # the answer it refers to, whole
        question, _, reply = after.text[len(answer.text.rstrip()):].strip().partition("\n")
        assert question == f"### what does [{n}] say?" and reply.strip()  # a heading of its own
        cites = {int(m) for m in re.findall(r"\[(\d+)\]", reply)}

        assert n in cites, reply  # the passage asked about, under the number the answer gives it
        by_n = {s["n"]: s for s in after.sources}
        assert by_n[n]["chunk_id"] == cited["chunk_id"]  # [n] still names the same passage
        assert all(by_n[k]["paper_id"] == cited["paper_id"] for k in cites)
        assert [s["n"] for s in after.sources[:len(answer.sources)]] == [s["n"] for s in answer.sources]

        assert desk.run("undo").ok  # the answer as it was, one step back
        assert desk.drafts.current_draft(draft_id).text == answer.text
    finally:
        desk.close()
