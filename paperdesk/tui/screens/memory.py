"""MemoryScreen: search the memory graph as you type, open a node, jump to the page a fact cites.

Searches run in a worker (the query is embedded for the hybrid search), the
newest one wins. Nodes are listed by what a reader knows them by: a paper by its title (its id
beside it), a term or question by its words. Enter on a node shows its
observations, each cited to paper and page or discussion turn, and the
relations that touch it; Enter on an
observation that cites a page closes the screen and opens that page in the
Reader with the fact's words highlighted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.memory.types import Entity, Graph

Search = Callable[[str], "tuple[Graph, int]"]  # query -> (matching nodes, nodes in all)
Titles = Callable[[list[str]], dict[str, str]]  # paper ids -> their titles (those the library holds)


class MemoryScreen(ModalScreen["tuple[str, int, str] | None"]):
    """Dismissed with (paper id, page, passage) to open in the Reader, or None."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="close_memory")]

    def __init__(self, search: Search, query: str = "", graph: "Graph | None" = None, total: int = 0,
                 titles: Titles | None = None) -> None:
        super().__init__()
        self._search = search
        self._titles = titles or (lambda ids: {})
        self.titles: dict[str, str] = {}  # paper id -> title, for the papers among the nodes shown
        self.query_text = query
        self.graph = graph
        self.total = total
        self.entity: Entity | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="memory-box") as box:
            box.border_title = "Memory graph (Esc closes)"
            yield Input(self.query_text, placeholder="search the memory graph (terms, questions, papers …)",
                        id="memory-query")
            yield Label("", id="memory-count")
            with Horizontal(id="memory-panes"):
                yield OptionList(id="memory-nodes")
                with Vertical(id="memory-detail"):
                    yield OptionList(id="memory-facts")
                    yield Label("", id="memory-relations")
            yield Label("type to search · ↓ to the nodes · Enter opens a node · Enter on a fact with a page opens "
                        "it in the Reader", id="memory-keys")

    def on_mount(self) -> None:
        self.query_one("#memory-query", Input).focus()
        if self.graph is not None:
            self.titles = self._paper_titles(self.graph)
            self.show_nodes(self.graph, self.total)
        else:
            self.run_search(self.query_text)

    # -- searching ------------------------------------------------------------------------------

    @on(Input.Changed, "#memory-query")
    def _changed(self, event: Input.Changed) -> None:
        self.query_text = event.value
        self.run_search(event.value)

    @on(Input.Submitted, "#memory-query")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#memory-nodes", OptionList).focus()

    @work(thread=True, group="memory-search", exclusive=True, exit_on_error=False)
    def run_search(self, query: str) -> None:
        graph, total = self._search(query)
        titles = self._paper_titles(graph)
        self.app.call_from_thread(self._found, query, graph, total, titles)

    def _found(self, query: str, graph: "Graph", total: int, titles: dict[str, str]) -> None:
        if query == self.query_text:  # an older search finishing late never replaces a newer one
            self.titles = titles
            self.show_nodes(graph, total)

    def _paper_titles(self, graph: "Graph") -> dict[str, str]:
        """Titles of the paper nodes: the library's, else the title a discussion noted on the node."""
        papers = [e for e in graph.entities if e.type == "paper"]
        titles = self._titles([e.name for e in papers]) if papers else {}
        for e in papers:
            noted = next((o.text for o in e.observations if o.paper_id == e.name and not o.page), "")
            if e.name not in titles and noted:
                titles[e.name] = noted
        return titles

    def label(self, entity: "Entity") -> str:
        """How a node is listed: a paper by its title, anything else by its name."""
        facts = len(entity.observations)
        title = self.titles.get(entity.name) if entity.type == "paper" else None
        return f"{title}  (paper {entity.name}, {facts})" if title else f"{entity.name}  ({entity.type}, {facts})"

    def _node_name(self, name: str) -> str:
        """A node named in a relation: a paper by its title."""
        return self.titles.get(name, name)

    def show_nodes(self, graph: "Graph", total: int) -> None:
        self.graph, self.total = graph, total
        nodes = self.query_one("#memory-nodes", OptionList)
        nodes.clear_options()
        nodes.add_options([Option(self.label(e), id=str(n)) for n, e in enumerate(graph.entities)])
        what = f"matching {self.query_text!r}" if self.query_text.strip() else "newest first"
        empty = "the memory graph is empty: discuss <n|id> fills it" if total == 0 else f"no node {what}"
        self.query_one("#memory-count", Label).update(
            f"{len(graph.entities)} of {counted(total, 'node')}, {what}" if graph.entities else empty)
        if graph.entities:
            nodes.highlighted = 0
            self.open_node(graph.entities[0])
        else:
            self.open_node(None)

    # -- a node and its facts -------------------------------------------------------------------

    @on(OptionList.OptionHighlighted, "#memory-nodes")
    @on(OptionList.OptionSelected, "#memory-nodes")
    def _node(self, event: Any) -> None:
        if self.graph is not None and event.option.id is not None:
            self.open_node(self.graph.entities[int(event.option.id)])
        if isinstance(event, OptionList.OptionSelected):
            self.query_one("#memory-facts", OptionList).focus()

    def open_node(self, entity: "Entity | None") -> None:
        self.entity = entity
        facts = self.query_one("#memory-facts", OptionList)
        facts.clear_options()
        relations = self.query_one("#memory-relations", Label)
        if entity is None:
            facts.border_title = ""
            relations.update("")
            return
        title = self.titles.get(entity.name) if entity.type == "paper" else None
        facts.border_title = f"{title} (paper {entity.name})" if title else f"{entity.name} ({entity.type})"
        facts.add_options([Option(f"{o.text}  [{o.source or 'no source'}]" + ("  ↵ open" if o.paper_id and o.page
                                                                              else ""), id=str(n))
                           for n, o in enumerate(entity.observations)])
        if entity.observations:
            facts.highlighted = 0  # Enter on the facts works at once, without a first arrow key
        touching = [r for r in (self.graph.relations if self.graph else [])
                    if entity.name.lower() in (r.source.lower(), r.target.lower())]
        relations.update("\n".join(f"{self._node_name(r.source)} --{r.type}--> {self._node_name(r.target)}"
                                   for r in touching[:12])
                         or "no relations")

    @on(OptionList.OptionSelected, "#memory-facts")
    def _fact(self, event: OptionList.OptionSelected) -> None:
        if self.entity is None or event.option.id is None:
            return
        fact = self.entity.observations[int(event.option.id)]
        if fact.paper_id and fact.page:
            self.dismiss((fact.paper_id, int(fact.page), _passage(fact.text)))
        else:
            self.notify("this fact cites no page (it comes from a discussion turn)", timeout=4)


def _passage(text: str) -> str:
    """A short run of the fact's words to highlight on the page (the first words after any label)."""
    body = text.split(": ", 1)[-1]
    return " ".join(body.split()[:4])
