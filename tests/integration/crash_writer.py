"""A library writer for the kill -9 test: adds (and sometimes removes) papers until killed.

Usage: python crash_writer.py SOURCE.pdf START  (PAPERDESK_HOME names the library)
Prints "added <id>" after each add returns, "removing <id>" before a removal and
"removed <id>" after it.
"""

import sys
from pathlib import Path

from paperdesk.core.config import load_settings
from paperdesk.core.library.library import Library


def main() -> None:
    source, start = Path(sys.argv[1]), int(sys.argv[2])
    library = Library(load_settings())
    library.embedder.model()
    print("ready", flush=True)
    work = Path(library.home) / "incoming"
    work.mkdir(exist_ok=True)
    for n in range(start, start + 1000):
        copy = work / f"copy{n}.pdf"
        copy.write_bytes(source.read_bytes() + f"\n%copy {n}\n".encode())  # new bytes, new local id
        paper = library.add_pdf(copy).paper
        print(f"added {paper.id}", flush=True)
        if n % 3 == 2:
            print(f"removing {paper.id}", flush=True)
            library.remove(paper.id)
            print(f"removed {paper.id}", flush=True)


if __name__ == "__main__":
    main()
