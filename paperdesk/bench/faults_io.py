"""Fault trials at the edges where text goes out and comes in: export targets and hostile model servers.

`export_target_trials`: `paperdesk export bibtex --all --out TARGET` on a real
library, for a symlink, a 0600 file, a file with two hard links, `-`, and
things that are not files (a fifo, a folder, a device node made in the scratch
folder where this user may, then /dev/full itself once that node was refused).
Clean means: a file target got the text with its link, mode and inode kept; a
non-file target was refused with one line, exit 1, and left as it was.

`hostile_sse_trials`: the remote backend against a loopback server sending
malformed events, an octet-stream body, a wrong charset, escape sequences, a
stream that ignores max_tokens, one endless line, a trickle and a silence.
Clean means: a one-line NetworkError (or the right text), no traceback, no
escape character in the output, and within its time limit.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import time
from pathlib import Path
from typing import Callable

from paperdesk.bench.faults_kill import Tally
from paperdesk.bench.faults_misc import one_line_error
from paperdesk.bench.hostile_http import HostileServer


def _cli(argv: list[str]) -> tuple[int, str, str]:
    """`paperdesk ARGV` in this process: (exit code, stdout, stderr); a traceback propagates."""
    from paperdesk.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


# -- export targets --------------------------------------------------------------------------


def _file_targets(scratch: Path) -> list[tuple[str, Path, Callable[[], list[str]]]]:
    """(name, --out path, check after a successful export) for targets that are files."""
    real = scratch / "real.bib"
    real.write_text("old\n")
    link = scratch / "link.bib"
    link.symlink_to(real)
    private = scratch / "private.bib"
    private.write_text("old\n")
    private.chmod(0o600)
    first, second = scratch / "first.bib", scratch / "second.bib"
    first.write_text("old " * 2000)
    os.link(first, second)
    inode = first.stat().st_ino

    def exported(path: Path) -> bool:
        return path.read_text().startswith("@misc{")

    return [
        ("symlink", link, lambda: [] if link.is_symlink() and exported(real) else ["link replaced or target stale"]),
        ("0600 file", private,
         lambda: [] if stat.S_IMODE(private.stat().st_mode) == 0o600 and exported(private) else
         [f"mode {stat.S_IMODE(private.stat().st_mode):o}"]),
        ("hard link", first,
         lambda: [] if second.stat().st_ino == inode == first.stat().st_ino and exported(second) else
         ["hard link broken"]),
    ]


def _device_node(scratch: Path) -> Path | None:
    node = scratch / "full"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 7))  # what /dev/full is
    except OSError:
        return None
    return node


def export_target_trials(home: Path, scratch: Path, tally: Tally) -> None:
    """`home` holds at least one paper; `scratch` is an empty folder for the targets."""
    scratch.mkdir(parents=True, exist_ok=True)
    base = ["--home", str(home), "--offline", "export", "bibtex", "--all", "--out"]

    def attempt(name: str, target: str, check: Callable[[int, str, str], list[str]]) -> list[str]:
        try:
            code, out, err = _cli(base + [target])
            problems = check(code, out, err)
        except Exception as exc:  # noqa: BLE001 - a traceback is the finding
            problems = [f"{type(exc).__name__}: {exc}"]
        tally.record([f"{name}: {p}" for p in problems])
        return problems

    for name, path, after in _file_targets(scratch):
        attempt(name, str(path),
                lambda code, out, err, after=after: [f"exit {code}: {err[:160]!r}"] if code else after())

    with contextlib.chdir(scratch):  # a file named - would land here
        attempt("-", "-", lambda code, out, err: ([] if code == 0 and out.startswith("@misc{") else
                                                 [f"exit {code}, stdout {out[:40]!r}"]) +
                (["wrote a file named -"] if (scratch / "-").exists() else []))

    fifo = scratch / "pipe"
    os.mkfifo(fifo)
    refused = [("fifo", fifo), ("folder", scratch)]
    node = _device_node(scratch)
    if node is not None:
        refused.append(("device node", node))
    node_refused = False
    for name, path in refused:
        before = os.lstat(path)
        problems = attempt(name, str(path), lambda code, out, err, path=path, before=before: one_line_error(code, err) +
                           ([] if (os.lstat(path).st_ino, os.lstat(path).st_mode) == (before.st_ino, before.st_mode)
                            else ["replaced"]))
        node_refused = node_refused or (name == "device node" and not problems)
    if node_refused:  # only then is /dev/full itself safe to point at: this build refuses a device
        before = os.stat("/dev/full")
        attempt("/dev/full", "/dev/full", lambda code, out, err: one_line_error(code, err) +
                ([] if stat.S_ISCHR(os.stat("/dev/full").st_mode) and os.stat("/dev/full").st_ino == before.st_ino
                 else ["/dev/full replaced"]))


# -- hostile model servers -------------------------------------------------------------------

MALFORMED = [
    (b'data: {"choices":[{"text":5}]}\n\n', "text/event-stream"),
    (b'data: {"choices":[{"delta":"x"}]}\n\n', "text/event-stream"),
    (b'data: {"choices":[{"delta":{"content":{"a":1}}}]}\n\n', "text/event-stream"),
    (b'data: {"choices":[{"text":"x","finish_reason":[1]}]}\n\n', "text/event-stream"),
    (b'data: {"choices":[null]}\n\n', "text/event-stream"),
    (b'data: {"error":{"message":"boom"}}\n\n', "text/event-stream"),
    (b'data: not json\n\n', "application/octet-stream"),
    (b'{"choices":[{"text":"not streamed"}]}', "application/json"),
    (b"", "text/event-stream"),
]
GOOD_UTF8 = ('data: {"choices":[{"text":"caf\u00e9 \u2014 "}]}\n\n'
             'data: {"choices":[{"text":"na\u00efve","finish_reason":"stop"}]}\n\ndata: [DONE]\n\n').encode()
ESCAPES = (b'data: {"choices":[{"text":"a\x1b[31mb\\u001b]0;t\\u0007c\\u009b2J\\u001b["}]}\n\n'
           b'data: {"choices":[{"text":"2Jd\\r\\n","finish_reason":"stop"}]}\n\n')


def hostile_sse_trials(tally: Tally) -> None:
    from paperdesk.core.errors import NetworkError
    from paperdesk.core.llm.backend import GenerationRequest, generate
    from paperdesk.core.llm.remote import RemoteBackend

    server = HostileServer().start()

    def trial(name: str, path: str, expect: str, limit: float = 10.0, max_tokens: int = 16, **kw) -> None:
        """`expect`: the text the answer must be, or 'error: <part of the one-line message>'."""
        start = time.monotonic()
        try:
            got = generate(RemoteBackend(server.url(path), **kw), GenerationRequest(prompt="hi", max_tokens=max_tokens))
            problems = [] if got.text == expect else [f"text {got.text[:60]!r}"]
        except NetworkError as exc:
            message = str(exc)
            problems = [] if expect.startswith("error: ") and expect[7:] in message and "\n" not in message \
                else [f"error {message[:160]!r}"]
        except Exception as exc:  # noqa: BLE001 - a traceback is the finding
            problems = [f"{type(exc).__name__}: {exc}"[:200]]
        took = time.monotonic() - start
        if took > limit:
            problems.append(f"took {took:.1f}s")
        tally.record([f"{name}: {p}" for p in problems])

    try:
        for body, content_type in MALFORMED:
            server.canned_body, server.canned_type = body, content_type
            trial(f"{body[:30]!r} as {content_type}", "/canned", "error: the model server at")
        for content_type in ("application/octet-stream", "text/event-stream; charset=iso-8859-1"):
            server.canned_body, server.canned_type = GOOD_UTF8, content_type
            trial(f"UTF-8 as {content_type}", "/canned", "caf\u00e9 \u2014 na\u00efve")
        server.canned_body, server.canned_type = ESCAPES, "text/event-stream"
        trial("escape sequences", "/canned", "abcd\n")
        trial("ignores max_tokens", "/sse-forever", "word " * 16)
        server.sse_every = 0
        trial("one endless line", "/sse-endless", "error: with no end")
        server.trickle_bytes, server.sse_every = 1, 0.05
        trial("trickling line", "/sse-endless", "error: within 1.5 s", limit=5.0, deadline=1.5)
        server.sse_every = 60.0
        trial("silent after a byte", "/sse-endless", "error: within 1.5 s", limit=5.0, deadline=1.5)
    finally:
        server.stop()
