"""After a restart the Results pane shows the restored rows without waiting for a key.

llama.cpp points stdout at /dev/null while it loads a model, so the frames the app draws meanwhile (the restored
results among them) never reach the terminal. The test runs the app with its frames going to a recorder that
drops them while the model "loads", as the real terminal does, and checks what reached the terminal after.
"""

import re
import time

import pytest

from conftest import PAPERS
from paperdesk.tui.panes.results import ResultsPane
from tui_helpers import settle, type_commands

pytestmark = pytest.mark.slow  # the real embedding model opens the library; the real writer is warmed up

LOAD_SECONDS = 1.0


class Terminal:
    """What the app writes to the terminal (escape sequences removed); nothing gets through while `silenced`."""

    def __init__(self, monkeypatch) -> None:
        from textual.drivers.headless_driver import HeadlessDriver

        self.silenced = False
        self.shown: list[str] = []
        monkeypatch.setattr(HeadlessDriver, "is_headless", property(lambda driver: False))  # frames go to write()
        monkeypatch.setattr(HeadlessDriver, "write", lambda driver, data: self._write(data))

    def _write(self, data: str) -> None:
        if not self.silenced:
            self.shown.append(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", data))

    def text(self) -> str:
        return "".join(self.shown)


@pytest.mark.parametrize("size", [(160, 48), (80, 24)], ids=["160x48", "80x24"])
async def test_restored_results_reach_the_terminal_after_the_model_loads(workbench, library, size, monkeypatch):
    library.add_pdf(PAPERS / "2304.02623v1.pdf")
    library.add_pdf(PAPERS / "2302.07302v1.pdf")
    first = workbench(model=False)
    async with first.run_test(size=size) as pilot:
        await type_commands(pilot, "list")
        titles = [item.title for item in first.desk.session.results]
        await pilot.press("ctrl+q")
    assert len(titles) == 2

    again = workbench(warm_up=True)  # at start the writer model is warmed up, as `paperdesk` does
    terminal = Terminal(monkeypatch)

    def loading() -> None:  # stdout points at /dev/null while llama.cpp loads the model
        time.sleep(LOAD_SECONDS)
        terminal.silenced = False

    monkeypatch.setattr(again._given_desk.backend, "warm_up", loading)
    terminal.silenced = True
    async with again.run_test(size=size) as pilot:
        await settle(pilot, until=lambda: again.status_bar.activity == "ready")
        await pilot.pause(0.3)
        pane = again.main.query_one(ResultsPane)
        assert pane.table.row_count == 2  # the rows are there ...
        shown = terminal.text()
        assert "2 results" in shown and titles[0][:12] in shown, shown[-2000:]  # ... and on the screen
