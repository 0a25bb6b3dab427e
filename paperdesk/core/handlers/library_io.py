"""Papers in and out, and library upkeep: export, import, remove, tag, untag."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from paperdesk.core.commands.parse import Command, CommandError, parse_ref
from paperdesk.core.db.paper_meta import clean_tag
from paperdesk.core.library.export import (bibtex_for, default_path, is_stdout, markdown_for, summary_markdown,
                                           write_export)
from paperdesk.core.commands.views import LinesView, Outcome
from paperdesk.core.progress import counted

if TYPE_CHECKING:
    from paperdesk.core.desk.desk import Desk
    from paperdesk.core.db.store import Paper

EXPORT_USAGE = "export bibtex [n|id ...|--all] [--out FILE|-] | export markdown summary [n|id]|report [--out FILE|-]"


def _deliver(command: Command, out: Path | None, default: Callable[[], Path], text: str, what: str) -> Outcome:
    """Write the export to `out` (a default name when None); `--out -` shows it here instead, as stdout would."""
    if is_stdout(out):
        return Outcome(command.raw, "ok", f"{what}: shown below (--out FILE saves it to a file)",
                       LinesView(what, text.splitlines()))
    path = write_export(out or default(), text)
    return Outcome(command.raw, "ok", f"exported {what} to {path}")


def _words(command: Command) -> tuple[list[str], Path | None]:
    """The command's words and the --out FILE among them."""
    try:
        words = shlex.split(command.text)
    except ValueError as exc:
        raise CommandError(f"{command.name}: {exc}") from None
    out = None
    for i, word in enumerate(words):
        if word == "--out" or word.startswith("--out="):
            value = word.split("=", 1)[1] if "=" in word else (words[i + 1] if i + 1 < len(words) else "")
            if not value:
                raise CommandError(f"{command.name}: --out needs a file name (usage: {EXPORT_USAGE})")
            out = Path(value)
            del words[i : i + (1 if "=" in word else 2)]
            break
    return words, out


def _paper(desk: "Desk", word: str, command: str) -> "Paper":
    return desk.library_paper(Command(command, ref=parse_ref(word, command), raw=f"{command} {word}"))


def export_(desk: "Desk", command: Command) -> Outcome:
    words, out = _words(command)
    what = words[0].lower() if words else ""
    if what == "bibtex":
        return _export_bibtex(desk, command, words[1:], out)
    if what in ("markdown", "md"):
        return _export_markdown(desk, command, words[1:], out)
    raise CommandError(f"export: say what to export, bibtex or markdown (usage: {EXPORT_USAGE})")


def _export_bibtex(desk: "Desk", command: Command, refs: list[str], out: Path | None) -> Outcome:
    if refs == ["--all"] or not refs and not any(r.in_library for r in desk.session.results):
        papers = desk.store.list_papers()
        scope = "the whole library"
    elif refs:
        if "--all" in refs:
            raise CommandError(f"export bibtex: --all or paper numbers/ids, not both (usage: {EXPORT_USAGE})")
        papers = list({p.id: p for p in (_paper(desk, word, "export") for word in refs)}.values())
        scope = counted(len(papers), "paper")
    else:
        papers = [p for p in desk.store.papers_by_ids([r.id for r in desk.session.results if r.in_library]).values()]
        order = [r.id for r in desk.session.results]
        papers.sort(key=lambda p: order.index(p.id))
        scope = "the papers of the results"
    if not papers:
        raise CommandError("export bibtex: the library is empty; add papers first (find <query>, then summarize <n>)")
    return _deliver(command, out, lambda: default_path("paperdesk", ".bib"), bibtex_for(desk.store, papers),
                    f"{len(papers)} BibTeX entr{'y' if len(papers) == 1 else 'ies'} ({scope})")


def _export_markdown(desk: "Desk", command: Command, words: list[str], out: Path | None) -> Outcome:
    kind = words[0].lower() if words else ""
    if kind == "summary":
        if len(words) > 2:
            raise CommandError(f"export markdown summary: too many arguments (usage: {EXPORT_USAGE})")
        paper = _paper(desk, words[1], "export") if len(words) == 2 else _summary_paper(desk)
        current = desk.store.current_revision(paper.id)
        if current is None:
            raise CommandError(f"export: {paper.id} has no summary yet; summarize it first")
        text = summary_markdown(paper, current.text)
        return _deliver(command, out, lambda: default_path(f"summary-{paper.id}", ".md"), text,
                        f"the summary of {paper.id} (revision {current.revision})")
    if kind == "report":
        if len(words) > 1:
            raise CommandError(f"export markdown report: takes no paper (usage: {EXPORT_USAGE})")
        view = desk.draft_view()
        if view is not None and view.kind in ("answer", "report") and view.text.strip():
            title, text, sources = view.query or view.title, view.text, view.sources
            label = f"the {view.kind} draft"
        else:
            saved = desk.drafts.reports()
            if not saved:
                raise CommandError("export: there is no report; run sem-search <query> or research <query> first")
            title, text, sources = saved[0].title, saved[0].text, saved[0].sources
            label = f"the saved report {saved[0].title!r}"
        papers = desk.store.papers_by_ids(list({s.get("paper_id", "") for s in sources}))
        return _deliver(command, out, lambda: default_path("report", ".md"),
                        markdown_for(title, text, sources, papers), label)
    raise CommandError(f"export markdown: say summary or report (usage: {EXPORT_USAGE})")


def _summary_paper(desk: "Desk") -> "Paper":
    draft = desk.session.draft
    pid = draft.paper_id if draft is not None and draft.paper_id else desk.session.selected
    paper = desk.store.get_paper(pid) if pid else None
    if paper is None:
        raise CommandError("export markdown summary: name the paper (export markdown summary <n|id>)")
    return paper


def import_(desk: "Desk", command: Command) -> Outcome:
    from paperdesk.core.library.importer import import_entries, read_bib

    words = command.text.split(None, 1)
    if words and words[0].lower() == "zotero":
        return _import_zotero(desk, command, words[1] if len(words) == 2 else "")
    if words and words[0].lower() == "folder" and len(words) == 2:
        return _import_folder(desk, command, words[1])
    if len(words) != 2 or words[0].lower() != "bibtex":
        raise CommandError("import needs bibtex <file> or zotero [dir] (usage: import bibtex <file.bib> | "
                           "import zotero [dir])")
    path = Path(words[1].strip().strip("'\"")).expanduser()
    entries = read_bib(path)
    if not entries:
        raise CommandError(f"import: {path.name} holds no BibTeX entries; nothing was added")
    report = import_entries(entries, path.parent, desk.library, lambda: desk.arxiv, desk.context.offline_reason(),
                            desk.cancel_token, desk.progress)
    if any(pid for _, pid in report.added):
        desk._refresh_downloaded()
    status = "cancelled" if report.cancelled else "ok"
    return Outcome(command.raw, status, report.summary(path.name),
                   LinesView(f"import {path.name}", report.lines()))


def _import_folder(desk: "Desk", command: Command, where: str) -> Outcome:
    """`add DIR`: every PDF under the folder, each once, one progress line (papers done of all, the current
    file, its stage); Esc stops after the paper being added is undone, and the papers added stay."""
    from paperdesk.core.commands.batch_add import add_many, expand
    from paperdesk.core.progress import Progress

    folder = where.strip().strip("'\"")
    sources, skipped = expand([folder])

    def step(done: int, total: int, name: str, stage: "Progress | None", eta: float | None) -> None:
        busy = stage is not None and stage.stage != "start"
        what = f"{name}: {stage.stage} {stage.amount}" if busy and name else name
        left = f" · about {eta:.0f} s left" if eta else ""
        desk.progress(Progress("add", done, total, "papers", f"{what}{left}".strip(" ·")))

    client = desk.arxiv if desk.context.offline_reason() is None else None
    report = add_many(desk.library, sources, client, on_progress=step, cancel=desk.cancel_token)
    report.skipped[:0] = skipped
    if report.added:
        desk._refresh_downloaded()
    lines = ([f"added {source} as {pid}" for source, pid in report.added]
             + [f"already in the library: {source} ({pid})" for source, pid in report.present]
             + [f"failed {source}: {why}" for source, why in report.failed]
             + [f"skipped {source}: {why}" for source, why in report.skipped])
    return Outcome(command.raw, "cancelled" if report.stopped else "ok", f"{folder}: {report.summary()}",
                   LinesView(f"add {folder}", lines))


def _import_zotero(desk: "Desk", command: Command, where: str) -> Outcome:
    from paperdesk.core.library.zotero import default_dir, import_zotero

    folder = Path(where.strip().strip("'\"")).expanduser() if where.strip() else default_dir()
    report = import_zotero(desk.library, folder, desk.cancel_token, desk.progress,
                           add_notes=lambda pid, text: desk.append_notes(pid, text) and None)
    if report.added:
        desk._refresh_downloaded()
    status = "cancelled" if report.cancelled else "ok"
    return Outcome(command.raw, status, report.summary(), LinesView(f"import zotero {folder}", report.lines()))


def remove(desk: "Desk", command: Command) -> Outcome:
    paper = desk.library_paper(command)
    draft = desk.session.draft
    if paper.id == desk.session.selected or (draft is not None and draft.paper_id == paper.id):
        raise CommandError(f"remove: {paper.id} is the paper being worked on here; run list (or close) first, "
                           f"then remove it")
    desk.library.remove(paper.id)
    s = desk.session
    had = len(s.results)
    s.results = [item for item in s.results if item.id != paper.id]
    if s.reader and s.reader[0] == paper.id:
        s.reader = None
    desk.transition(command)
    if len(s.results) != had:
        desk.publish_results()
    left = f"; the results are renumbered ({len(s.results)} left)" if len(s.results) != had else ""
    return Outcome(command.raw, "ok", f"removed {paper.id} ({paper.title}), its PDF, notes and index entries{left}")


def tag(desk: "Desk", command: Command) -> Outcome:
    return _tagging(desk, command, add=True)


def untag(desk: "Desk", command: Command) -> Outcome:
    return _tagging(desk, command, add=False)


def _tagging(desk: "Desk", command: Command, add: bool) -> Outcome:
    words = command.text.split()
    if len(words) < 2:
        raise CommandError(f"{command.name} needs a paper and a tag (usage: {command.name} <n|id> <tag> [tag ...])")
    paper = _paper(desk, words[0], command.name)
    for word in words[1:]:
        clean_tag(word)  # every tag is checked before any is written
    meta = desk.store.paper_meta
    changed = [t for t in words[1:] if (meta.add_tag(paper.id, t) if add else meta.remove_tag(paper.id, t))]
    tags = meta.tags_of(paper.id)
    now = f"; its tags: {', '.join(tags)}" if tags else "; it has no tags"
    if add:
        done = f"tagged {paper.id} {', '.join(changed)}" if changed else f"{paper.id} already had those tags"
    else:
        done = f"untagged {paper.id}: {', '.join(changed)}" if changed else f"{paper.id} had none of those tags"
    return Outcome(command.raw, "ok", done + now)
