"""The workbench's actions (the bindings' targets), which of them the footer offers now, and the
command line's completions: what may run is always the workflow model's answer.

A mixin of PaperDeskApp, kept out of app.py so that file stays about running commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.commands.registry import COMMANDS, enter_command
from paperdesk.tui.keyboard import focus_now
from paperdesk.tui.keys import ACTION_COMMANDS, REFUSED_KEYS, key_label
from paperdesk.tui.panes.notes import NotesPane
from paperdesk.tui.panes.results import ResultsPane
from paperdesk.tui.screens.confirm import ConfirmScreen

QUIT_RUNNING = ("A command is still running. Quit anyway? It stops first, and what it has written so far is kept "
                "as an interrupted revision.")

if TYPE_CHECKING:
    from paperdesk.tui.app import PaperDeskApp


class WorkbenchActions:
    def check_action(self: "PaperDeskApp", action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer shows a workflow command's key only while the workflow model allows the command; pressed
        when it does not, the key says why (`refused_key`), as the typed command would."""
        command = ACTION_COMMANDS.get(action)
        if action == "workflow" and parameters:
            command = str(parameters[0])
        if action == "open_selected":
            command = (enter_command(self.desk.state) if self.desk else None) or "open"
        if action == "cancel":
            return True
        if action == "switch_pane":
            return self.narrow  # only offered where panes take turns
        if command is None:
            return True
        if self.desk is None:
            return False
        return self.key_refusal(command) is None

    def key_refusal(self: "PaperDeskApp", command: str) -> str | None:
        """Why a workflow key's command may not run now (None: it may)."""
        if self.desk is None:
            return "the library is still opening"
        if command in ("undo", "redo") and not self.desk.can_move(-1 if command == "undo" else 1):
            return f"nothing to {command}: the draft has no {'earlier' if command == 'undo' else 'later'} revision"
        return self.desk.workflow.refusal(command)

    def refused_key(self: "PaperDeskApp", key: str) -> None:
        """A workflow key pressed while its command is refused (its binding declined it): say why."""
        command = REFUSED_KEYS[key]
        why = self.key_refusal(command)
        if why:
            self.command_line.say(f"{key_label(key)}: {why}", "error")

    def key_ctrl_r(self: "PaperDeskApp") -> None:
        self.refused_key("ctrl+r")

    def key_ctrl_s(self: "PaperDeskApp") -> None:
        self.refused_key("ctrl+s")

    def key_ctrl_b(self: "PaperDeskApp") -> None:
        self.refused_key("ctrl+b")

    def key_ctrl_z(self: "PaperDeskApp") -> None:
        self.refused_key("ctrl+z")

    def key_ctrl_y(self: "PaperDeskApp") -> None:
        self.refused_key("ctrl+y")

    def action_workflow(self: "PaperDeskApp", command: str) -> None:
        self.submit(command)

    def action_improve(self: "PaperDeskApp") -> None:
        self.command_line.prefill("improve ")

    def action_abandon(self: "PaperDeskApp") -> None:
        self.submit("abandon")  # asks first, as typed abandon does

    def action_open_selected(self: "PaperDeskApp") -> None:
        number = self.main.query_one(ResultsPane).selected_number()
        if number is not None:
            self.post_message(ResultsPane.Chosen(number))

    def action_memory(self: "PaperDeskApp") -> None:
        """F10: the Memory screen (search as you type; Enter on a cited fact opens its page in the Reader)."""
        if self.screen is not self.main:
            return
        if self.desk is None:
            self.command_line.say("the library is still opening; the memory graph in a moment", "busy")
            return
        self.router.memory_screen("")

    def action_help(self: "PaperDeskApp") -> None:
        if self.desk is None:
            self.command_line.say("the library is still opening; help in a moment", "busy")
            return
        self.submit("help")

    def action_cancel(self: "PaperDeskApp") -> None:
        """Esc: clear a typed line first; on an empty line, stop the running command; with nothing running, go
        back to the command line."""
        if self.talk.decline():  # an "understood as" waiting for Enter/Esc: dropped, nothing runs
            return
        line = self.command_line.input
        if line.value:  # the user meant the line, not the work: a second Esc (on the empty line) stops the work
            line.value = ""
            focus_now(line)
            if self._busy:
                self.command_line.say("line cleared; Esc again stops the running command", "busy")
            return
        if self._busy and self.desk is not None:
            self._pending = None
            self.desk.cancel()
            self.command_line.say("cancelling …", "busy")
        else:
            focus_now(self.command_line.input)

    async def action_quit(self: "PaperDeskApp", confirmed: bool = False) -> None:
        """Quit; with a command running, ask first, then cancel it, wait until it has stored its interrupted
        revision, close the Desk and exit."""
        worker = self._command_worker
        running = self.desk is not None and worker is not None and not worker.is_finished
        if running and not confirmed:
            if isinstance(self.screen, ConfirmScreen):
                return
            self.push_screen(ConfirmScreen(QUIT_RUNNING), self._quit_answered)
            return
        self.main.query_one(NotesPane).flush()
        self._pending = None
        if running:
            self.command_line.say("stopping the running command before quitting …", "busy")
            self.desk.cancel()
            try:
                await worker.wait()
            except Exception:  # noqa: BLE001 - its failure was already reported; quitting goes on
                pass
        if self.desk is not None:
            self.desk.close()  # writes pending notes first
        self.exit()

    def _quit_answered(self: "PaperDeskApp", yes: bool | None) -> None:
        if yes:
            self.call_later(self.action_quit, True)
        else:
            self.command_line.say("not quitting; the command runs on", "busy")

    # -- completion ----------------------------------------------------------------------------------

    def completion_candidates(self: "PaperDeskApp") -> tuple[list[str], list[str], list[str]]:
        names = [c.name for c in COMMANDS]
        if self.desk is None:
            return [], names, []
        enabled = self.desk.workflow.enabled_commands()
        refs = [item.id for item in self.desk.session.results]
        return enabled, [n for n in names if n not in enabled], refs
