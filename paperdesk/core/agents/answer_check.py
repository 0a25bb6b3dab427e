"""The writer's own check, before an answer stands, that the passages it cites state that answer.

The fact gates hold every figure and name of an answer to what the writer read, and the scope gates hold its
words to the question. Neither sees an answer to another question built from a passage's true facts: asked for
a figure no paper reports, a small writer copies the closest figure it read, cited, in the question's frame.
The writer reads better than it writes, so it is asked twice, with the question as the shared opening its
cache keeps: does the cited passage state this answer, and does the passage state the answer at all? Its
log-odds of "yes" over "no" (next-token scores, nothing generated) are added; an answer whose sum falls
below MARGIN_MIN is withdrawn for "not found". Two readings are summed because each alone misses answers
the other catches: the first forgives a passage on the topic that the answer restates, the second a terse
answer.

The threshold was set on questions the answers were tuned on and on the same questions asked with their own
paper left out of the search (every answer then is an invention): at it, no right answer of those was
withdrawn.

The same sum says where the check had doubts about an answer that stands: on those tuned-on questions, answers
at or above FIRM_MIN were right 40 times in 49, those below it 8 times in 23 (on questions of papers nobody tuned
on, 18 in 27 and 8 in 17). An answer below it stands, and is shown as unsure (answer_result.UNSURE), so that
the reader checks its pages first.
"""

from __future__ import annotations

from typing import Sequence

from paperdesk.core.agents.attribution import SOURCE_REF
from paperdesk.core.cancel import CancelToken
from paperdesk.core.prompts import render

MARGIN_MIN = -1.0  # summed log-odds of the two readings below which the answer does not stand
FIRM_MIN = 1.5  # summed log-odds below which a standing answer is shown as unsure
CHECK_SECONDS = 8.0  # the most the two readings take; unfinished, the answer stands
PASSAGE_CHARS = 1500  # of the cited windows, joined (each item's line is cut to its opening words as well)


def prompt(question: str, answer: str, passage: str) -> tuple[str, str, list[str]]:
    """(system message, the opening both readings share, the two items) from prompts/check_answer.txt."""
    system, opening, with_answer, without = render(
        "check_answer", question=" ".join(question.split())).strip().split("\n\n")
    passage = " ".join(passage.split())[:PASSAGE_CHARS]
    answer = " ".join(SOURCE_REF.sub("", answer).split())
    return system.strip(), opening.strip(), [f"Passage: {passage}\nProposed answer: {answer}\n{with_answer.strip()}",
                                             f"Passage: {passage}\n{without.strip()}"]


def cited_windows(text: str, windows: Sequence[str]) -> str:
    """The windows `text` cites by [n], joined in number order ("" when it cites none it read)."""
    cited = sorted({int(m.group(1)) for m in SOURCE_REF.finditer(text)})
    return " ".join(windows[n - 1] for n in cited if 1 <= n <= len(windows))


def margin(backend: object, question: str, text: str, windows: Sequence[str],
           cancel: CancelToken | None = None, seconds: float = CHECK_SECONDS) -> float | None:
    """The summed yes-over-no log-odds that the windows `text` cites state it; None when the backend cannot
    judge, the text cites no window read, or the readings did not both finish (cancel, time)."""
    if not getattr(getattr(backend, "capabilities", None), "judges", False):
        return None
    passage = cited_windows(text, windows)
    if not passage.strip():
        return None
    system, opening, items = prompt(question, text, passage)
    margins = backend.yes_margins(system, opening, items, cancel=cancel, seconds=seconds)  # type: ignore[attr-defined]
    return float(sum(margins)) if len(margins) == len(items) else None


def firm(value: float | None) -> bool:
    """Whether an answer checked at `value` is shown without doubt (also when it was not checked: None)."""
    return value is None or value >= FIRM_MIN


def stands_at(value: float | None) -> bool:
    """Whether an answer checked at `value` stands (also when the check could not be had: None)."""
    return value is None or value >= MARGIN_MIN
