"""Whether a question asks for two things at once ("which ... won, and what method did it use?").

A small writer asked a two-part question tends to answer the first part and stop; asked for every part
of any question, it also finds "a part" in passages that answer none of it. So only a question whose
second clause is coordinated after the first ("..., and how ...", "... and why?") gets the request
to answer every part.
"""

from __future__ import annotations

import re

_SECOND_CLAUSE = re.compile(
    r"(?:,\s*|\s)(?:and|but)\s+(?:what|which|how|why|when|where|who|whom|whose|"
    r"does|do|did|is|are|was|were|can|could|would|should|has|have|had)\b", re.IGNORECASE)


def asks_two_things(question: str) -> bool:
    """True when a second question is coordinated after the first."""
    return bool(_SECOND_CLAUSE.search(question))
