"""The answer prompt, per model family: chat messages with the GGUF's own template, or few-shot completion.

Both put the passages as "[n] (Paper, p. N) words" so the model cites with the
same [n] it reads, and both ask for the answer first: a chat model gets a
system message and two worked turns (a figure from the first passage, a
limitation from the third), and a question that asks two things
("..., and why?") is asked for every part of it; a completion model gets two worked
question/answer pairs and continues after "Answer:". The worked examples are on
topics no paper shares (glaciers, soil microbes), and any sentence copied from
them is dropped afterwards (attribution.drop_copied gets them as `examples`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Sequence

from paperdesk.core.agents.question_parts import asks_two_things
from paperdesk.core.prompts import render, template

if TYPE_CHECKING:
    from paperdesk.core.library.library import Hit


def short_title(title: str) -> str:
    """The part of a title before its colon: what a reader would call the paper."""
    head = title.split(":", 1)[0].strip()
    return head if 3 <= len(head) <= 60 else " ".join(title.split()[:6])


def sources(hits: Sequence["Hit"], passages: Sequence[str]) -> str:
    return "\n".join(f"[{n}] ({short_title(h.title)}, p. {h.page_start}) {p}"
                     for n, (h, p) in enumerate(zip(hits, passages), start=1))


def build(chat: bool, hits: Sequence["Hit"], passages: Sequence[str], question: str, dialogue: str = "",
          turns: int = 2) -> tuple[str, list[dict[str, str]] | None, str]:
    """(completion prompt, chat messages or None, the worked examples' text); a chat prompt has the first
    `turns` worked turns."""
    listed = sources(hits, passages)
    lead = f"{dialogue.strip()}\n\n" if dialogue.strip() else ""
    if chat:
        parts = " that answer every part of the question" if asks_two_things(question) else ""
        messages = [{"role": "system", "content": render("answer_system", parts=parts).strip()}]
        for example in template("answer_example").split("\n===\n")[:turns]:  # worked turns: question, answer
            shown, reply = example.split("\n---\n", 1)
            messages += [{"role": "user", "content": shown.strip()}, {"role": "assistant", "content": reply.strip()}]
        messages.append({"role": "user", "content": lead + render("answer_chat", sources=listed,
                                                                  question=question.strip()).strip()})
        return "", messages, template("answer_example")
    prompt = lead + render("answer", sources=listed, question=question.strip()).rstrip()
    return prompt, None, template("answer")


def label_citer(hits: Sequence["Hit"]) -> Callable[[str], str]:
    """A rewrite that turns a passage's echoed label ("(from PaperMage, p. 4)") into its marker ("[1]")."""
    numbered: dict[tuple[str, int], int] = {}
    for n, hit in enumerate(hits, start=1):
        numbered.setdefault((short_title(hit.title).lower(), hit.page_start), n)
    titles = "|".join(sorted({re.escape(t) for t, _ in numbered}, key=len, reverse=True))
    if not titles:
        return lambda sentence: sentence
    label = re.compile(rf"\s*\(?(?:from |see |in )?({titles}),? (?:p\.|page) ?(\d+)\)?", re.I)

    def cite(sentence: str) -> str:
        def swap(match: re.Match[str]) -> str:
            n = numbered.get((match.group(1).lower(), int(match.group(2))))
            return f" [{n}]" if n else match.group(0)

        return label.sub(swap, sentence)

    return cite
