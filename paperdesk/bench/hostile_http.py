"""A loopback HTTP server that misbehaves on purpose: trickles, oversized bodies, canned answers.

Used by `bench faults` and tests/faults. Paths:
  /trickle      a PDF body sent `trickle_bytes` every `trickle_every` seconds, forever
  /huge         a PDF body of `huge_bytes` with a Content-Length
  /huge-chunked the same size, chunked (no Content-Length up front)
  /canned       `canned_body` with `canned_type` and status `canned_status` (a feed or an SSE stream for a test)
  /sse-forever  an OpenAI completion stream that ignores max_tokens: a token every `sse_every` s, forever
  /sse-endless  `data: ` and then one line that never ends, `trickle_bytes` every `sse_every` s
  /sse-silent   an event stream's headers and then nothing, as a server still evaluating a long prompt
  /no-headers   nothing at all, not even a status line, as a server that answers only once the prompt is read
(each also under a prefix: /sse-forever/v1/completions is what a model client asks for)
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.do_GET()

    def do_GET(self) -> None:
        owner = self.server.owner
        owner.seen.append((self.path, dict(self.headers)))
        path = "/" + self.path.split("?")[0].rsplit("/", 1)[-1]  # /pdf/trickle works too (PDF links need /pdf/)
        try:
            if path == "/trickle":
                self._head("application/pdf", None)
                self._chunk(b"%PDF-1.5\n")
                while not owner.stopping.is_set():
                    time.sleep(owner.trickle_every)
                    self._chunk(b"%" + b"x" * (owner.trickle_bytes - 2) + b"\n")
            elif path in ("/huge", "/huge-chunked"):
                chunked = path.endswith("chunked")
                self._head("application/pdf", None if chunked else owner.huge_bytes)
                block = b"%PDF-1.5\n" + b"0" * (64 * 1024 - 9)
                sent = 0
                while sent < owner.huge_bytes and not owner.stopping.is_set():
                    part = block[: owner.huge_bytes - sent]
                    self._chunk(part) if chunked else self.wfile.write(part)
                    sent += len(part)
                    block = b"0" * len(block)
                if chunked:
                    self._chunk(b"")
            elif "/sse-forever" in self.path or "/sse-endless" in self.path:
                self._head("text/event-stream", None)
                endless = "/sse-endless" in self.path
                if endless:
                    self._chunk(b"data: ")
                while not owner.stopping.is_set():
                    self._chunk(b"x" * owner.trickle_bytes if endless
                                else b'data: {"choices":[{"text":"word ","finish_reason":null}]}\n\n')
                    time.sleep(owner.sse_every)
            elif "/no-headers" in self.path:
                owner.stopping.wait()
            elif "/sse-silent" in self.path:
                self._head("text/event-stream", None)
                owner.stopping.wait()
            elif path == "/canned" or "/canned/" in self.path:  # /canned/v1/completions for a model server
                body = owner.canned_body
                self._head(owner.canned_type, len(body), owner.canned_status)
                self.wfile.write(body)
            else:
                self._head("text/plain", 9)
                self.wfile.write(b"not found")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up, which is what these endpoints are for

    def _head(self, content_type: str, length: int | None, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length is None:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(length))
        self.end_headers()
        self._chunked = length is None

    def _chunk(self, data: bytes) -> None:
        if self._chunked:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        else:
            self.wfile.write(data)
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: "HostileServer"

    def handle_error(self, request, client_address) -> None:
        pass


class HostileServer:
    """Start with `.start()`; `url(path)` gives a full URL; `.stop()` ends every slow answer."""

    def __init__(self) -> None:
        self.trickle_bytes = 1024
        self.trickle_every = 0.2
        self.huge_bytes = 3_000_000
        self.canned_body = b""
        self.canned_type = "text/plain"
        self.canned_status = 200
        self.sse_every = 0.001
        self.seen: list[tuple[str, dict[str, str]]] = []  # (path with query, headers) of each request
        self.stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def start(self) -> "HostileServer":
        threading.Thread(target=self._httpd.serve_forever, name="hostile-http", daemon=True).start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
