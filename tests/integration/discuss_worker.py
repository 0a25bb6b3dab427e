"""A discussion run for the kill -9 test: FakeLLM (not a model: slow fixed tokens), real SQLite and embedder.

Usage: python discuss_worker.py PAPER_ID TURNS EVERY  (PAPERDESK_HOME names the library)
Prints "started ID" first, then "stored N" after each turn is stored.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fake_llm import FakeLLM  # noqa: E402

from paperdesk.core.config import load_settings  # noqa: E402
from paperdesk.core.discussion import Discussion  # noqa: E402
from paperdesk.core.library.library import Library  # noqa: E402
from paperdesk.core.memory import MemoryGraph  # noqa: E402


def main() -> None:
    paper_id, turns, every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    library = Library(load_settings())
    discussion = Discussion(library, FakeLLM(delay=0.02), MemoryGraph.for_library(library))

    def on_event(event) -> None:
        if event.kind == "start":
            print(f"started {event.discussion_id}", flush=True)
        if event.kind == "turn":
            print(f"stored {event.turn}", flush=True)

    discussion.run(paper_id, turns, every, on_event)
    print("finished", flush=True)


if __name__ == "__main__":
    main()
