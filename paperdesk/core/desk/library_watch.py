"""Seeing what other processes did to the library (`paperdesk add` in another terminal) while a face runs.

SQLite's `PRAGMA data_version` changes on a connection whenever another
connection commits, so one cheap query says whether anything may have changed.
When it has, the keyword and vector indexes are reloaded to the store's index
generation (`library_repair.catch_up`) and the results on show are brought up
to date: a library list is listed again, and find results learn which papers
are now in the library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.library import repair as library_repair
from paperdesk.core.commands.session import ResultItem
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.db.store import Paper
    from paperdesk.core.desk.desk import Desk


class LibraryWatch:
    """Remembers the store's data version; `catch_up` acts only when another connection committed since."""

    def __init__(self, desk: "Desk") -> None:
        self._desk = desk
        self._version = self._data_version()

    def _data_version(self) -> int:
        return int(self._desk.store.query("PRAGMA data_version")[0][0])

    def catch_up(self) -> bool:
        """Reload the indexes and the shown results if the library changed; True when the results changed.

        The caller holds the Desk's command lock, so no command reads the indexes meanwhile."""
        version = self._data_version()
        if version == self._version:
            return False
        self._version = version
        desk = self._desk
        library_repair.catch_up(desk.library)
        session = desk.session
        if not session.results:
            return False
        if session.results_kind == "list" and desk.state == "select-view":
            fresh = [ResultItem.from_paper(p, counted(p.page_count, "page")) for p in self._listed(session.list_filter)]
        else:
            fresh = [ResultItem(**{**vars(item), "in_library": desk.paper_in_library(item.id)})
                     for item in session.results]
        if fresh == session.results:
            return False
        session.results = fresh
        return True

    def _listed(self, arguments: str) -> list["Paper"]:
        """The papers the shown list holds now: its filter and order again (a list's arguments were valid)."""
        from paperdesk.core.commands.list_options import ListFilter, parse_list_options
        from paperdesk.core.errors import InvalidArgumentError

        try:
            _, options = parse_list_options(arguments)
        except InvalidArgumentError:
            options = ListFilter()
        return options.listed(self._desk.store)
