"""A Desk running `discuss` for the kill -9 test: FakeLLM (not a model: slow fixed tokens), real SQLite and embedder.

Usage: python desk_discuss_worker.py TURNS  (PAPERDESK_HOME names a library holding one paper)
Prints "stored N" after each turn is stored; the test kills it mid-discussion.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fake_llm import FakeLLM  # noqa: E402

from paperdesk.core.config import load_settings  # noqa: E402
from paperdesk.core.desk.desk import Desk  # noqa: E402
from paperdesk.core.commands.views import DiscussionProgress  # noqa: E402


def main() -> None:
    desk = Desk(load_settings(), backend=FakeLLM(delay=0.05))

    def on_event(event) -> None:
        if isinstance(event, DiscussionProgress) and event.kind == "turn":
            print(f"stored {event.turn}", flush=True)

    desk.subscribe(on_event)
    assert desk.run("list").ok
    print(desk.run(f"discuss 1 --turns {sys.argv[1]} --every 2").status, flush=True)


if __name__ == "__main__":
    main()
