"""A summary section's prompt says what its sentences state, not which section they are in: a small writer
echoes a named section as its subject ("The method section of the paper describes ..."), a sentence about
the summary rather than the paper."""

from __future__ import annotations

import re

from paperdesk.core.agents import quality
from paperdesk.core.agents.summarizer import SAYS, SECTIONS
from paperdesk.core.prompts import render


def test_each_section_prompt_says_what_its_sentences_state_without_naming_a_section() -> None:
    for key, heading in SECTIONS:
        prompt = render("summarize_section", title="A Study", notes="- A note [p. 2].", says=SAYS[key],
                        heading=heading)
        instruction = prompt.rstrip().splitlines()[-3]
        assert SAYS[key] in instruction
        assert not re.search(r"\bsection\b", instruction, re.I)
        assert prompt.rstrip().endswith(f"## {heading}")


def test_the_instruction_echoed_back_is_dropped_as_scaffolding() -> None:
    echoed = "A short summary follows, each sentence stating how it was done and citing its page like [p. 3]."
    assert quality.check(echoed, 1).leaks_removed == 1
