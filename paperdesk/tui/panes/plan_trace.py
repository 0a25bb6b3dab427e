"""The agent loop's decisions under the plan's steps: each call it chose (tool, arguments, why, outcome),
the done that ended it, or the limit that stopped it, one line each, as the run makes them."""

from __future__ import annotations

from rich.text import Text

HEADING = "Agent loop (calls chosen between the steps):"


def style_of(line: str) -> str:
    if "agent loop stopped:" in line:
        return "yellow"
    if "-> FAILED" in line:
        return "red"
    return "cyan" if "agent call " in line else "dim"


def add_trace(body: Text, lines: list[str]) -> None:
    """Append the loop's trace to the Plan pane's body (nothing when the loop made no decision)."""
    if not lines:
        return
    body.append(f"\n{HEADING}\n", style="bold")
    for line in lines:
        body.append(f"  {line}\n", style=style_of(line))
