"""The first screen: the whole workbench, with empty states that say what to do, painted before the
library opens; and the module that paints it imports none of the heavy parts (they load after the paint).

No model is loaded; the library opens in its worker as at a real start.
"""

import subprocess
import sys

import pytest

from paperdesk.tui.app import PaperDeskApp
from settings_for import NO_MODEL, settings_for
from tui_helpers import settle

pytestmark = pytest.mark.slow

# loaded only after the first paint: the agents, research, the dispatcher, the Desk, numpy and the models
HEAVY = ("numpy", "llama_cpp", "onnxruntime", "tokenizers", "tantivy", "pymupdf", "torch", "sentence_transformers",
         "paperdesk.core.agents", "paperdesk.core.research", "paperdesk.core.dispatch", "paperdesk.core.desk.desk",
         "paperdesk.core.handlers", "paperdesk.core.library.library", "paperdesk.core.search", "paperdesk.core.commands.workflow",
         # and the Markdown and editor widgets (the draft's welcome is plain text until the Markdown body replaces it;
         # the notes editor mounts right after the paint)
         "markdown_it", "textual.widgets._markdown", "textual.widgets._text_area", "paperdesk.tui.panes.discussion", "paperdesk.tui.panes.report")

IMPORTS = """
import sys
import paperdesk.cli, paperdesk.tui.launch, paperdesk.tui.app
heavy = %r
print(",".join(sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))))
""" % (HEAVY,)


def test_the_first_screen_imports_none_of_the_heavy_parts():
    out = subprocess.run([sys.executable, "-c", IMPORTS], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


class FirstPaint(PaperDeskApp):
    """Records what the first painted screen holds, at the moment the app marks its first paint."""

    seen: dict = {}

    def _painted(self) -> None:
        main = self.main
        self.seen = {
            "desk": self.desk,
            "panes": {name: main.query_one(name).region.area > 0 for name in ("ResultsPane", "NotesPane", "#right",
                                                                             "DraftPane", "CommandLine", "StatusBar")},
            "results": str(main.query_one("#results-empty").render()) if main.query_one("#results-empty").display
            else "",
            "draft": str(main.query_one("#draft-welcome").render()) if main.query("#draft-welcome") else "",
        }
        super()._painted()


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
async def test_the_first_paint_shows_the_workbench_with_what_to_do(tmp_path, arxiv, size):
    app = FirstPaint(settings_for(tmp_path / "home", arxiv.api_url, **NO_MODEL), warm_up=False, cursor_blink=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, until=lambda: bool(app.seen))
        seen = app.seen
        assert seen["desk"] is None  # painted before the library opened
        narrow = size[0] < 100  # one pane takes the screen: the results, with the command line under them
        expected = {"ResultsPane", "CommandLine", "StatusBar"} | (set() if narrow else {"NotesPane", "#right", "DraftPane"})
        assert {name for name, shown in seen["panes"].items() if shown} == expected
        assert "find <query> to search arXiv, list for your library" in " ".join(seen["results"].split())
        assert "Getting started" in seen["draft"] and "find <query>" in seen["draft"]
        await settle(pilot)
        assert not app.main.query("#draft-welcome") and app.main.query("#draft-body")  # Markdown once painted
        await pilot.press(*"find expository writing", "enter")  # results replace the empty state
        await settle(pilot)
        assert not app.main.query_one("#results-empty").display
