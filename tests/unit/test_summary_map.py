"""The map step of a summary: its request (the worked example as a turn of its own for a chat model) and
its notes (cited bullet lines, the prompt's own worked example dropped)."""

from paperdesk.core.agents.summary_map import map_notes, map_request
from paperdesk.core.db.store import Chunk
from paperdesk.core.prompts import PROMPT_DIR

CHUNK = Chunk(1, "p", 0, 4, 5, "Methods", "Larvae were reared at 18 degrees in filtered seawater for ten days.")


def _example_bullets() -> list[str]:
    """The bullets of the map prompt's worked example, as a model that copies them would write them."""
    template = (PROMPT_DIR / "summarize_map.txt").read_text(encoding="utf-8")
    return [line.lstrip("- ") for line in template.splitlines() if line.startswith("- ")]


def test_notes_copied_from_the_prompts_example_are_dropped_and_counted():
    copied = _example_bullets()
    assert copied, "the map prompt has a worked example"
    text = " " + "\n- ".join(copied + ["Larvae were reared at 18 degrees for ten days [p. 4]."])
    notes, echoed = map_notes(text, CHUNK, page_count=9)
    assert notes == ["- Larvae were reared at 18 degrees for ten days [p. 4]."]
    assert echoed == len(copied)


def test_short_lines_are_not_notes_and_citations_outside_the_chunk_are_removed():
    text = " Methods\n- Larvae were kept in filtered seawater [p. 8].\n- ok [p. 4]"
    notes, echoed = map_notes(text, CHUNK, page_count=9)
    assert notes == ["- Larvae were kept in filtered seawater."]
    assert echoed == 0


class _Model:
    """A stand-in backend: only whether it has a chat template matters to the request."""

    def __init__(self, chat_template: str | None) -> None:
        self.chat_template = chat_template


def test_a_chat_model_gets_the_worked_example_as_a_turn_of_its_own():
    request = map_request(_Model("{{ messages }}"), "Larvae grew 2 mm a day. [p. 4]", max_tokens=80)
    roles = [m["role"] for m in request.messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert request.messages[2]["content"].splitlines() == ["- " + b for b in _example_bullets()]
    assert request.messages[3]["content"] == "Excerpt:\nLarvae grew 2 mm a day. [p. 4]"
    assert "Larvae" not in request.messages[1]["content"] and request.max_tokens == 80


def test_a_completion_model_gets_the_whole_prompt_ending_at_the_first_bullet():
    request = map_request(_Model(None), "Larvae grew 2 mm a day. [p. 4]")
    assert request.messages is None or not request.messages
    assert request.prompt.rstrip().endswith("Larvae grew 2 mm a day. [p. 4]\n\nKey points:\n-")


def test_a_note_cut_off_by_the_token_limit_is_left_out():
    text = " Larvae grew 2 mm a day [p. 4].\n- Survival was 80% in the warm tank.\n- Growth slowed when the"
    notes, _ = map_notes(text, CHUNK, page_count=9, complete=False)
    assert notes == ["- Larvae grew 2 mm a day [p. 4].", "- Survival was 80% in the warm tank."]
    finished, _ = map_notes(text.rsplit("\n", 1)[0] + "\n- Growth slowed [p. 5].", CHUNK, page_count=9, complete=False)
    assert finished[-1] == "- Growth slowed [p. 5]."
    assert len(map_notes(text, CHUNK, page_count=9)[0]) == 3  # a reply that stopped on its own keeps every line
