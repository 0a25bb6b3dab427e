"""Work a test process does once, however many tests ask for it: the same fixture papers are parsed and
embedded in hundreds of tests. The results are still the real ones (the real parser, the real model), computed
the first time they are asked for; what a caller sees (batches, progress, cancel checks) stays as it was.

Only this process's in-process calls are served; a `paperdesk` subprocess parses and embeds for itself.
"""

from __future__ import annotations

import copy
import hashlib
import os
from pathlib import Path

import numpy as np


def embed_each_text_once(shared: Path | None = None) -> None:
    """Every embedder of the process computes each distinct text once per model (`Embedder.tag`). The ONNX
    model embeds one text at a time, so a text's vector does not depend on the batch it came in. With `shared`
    (a folder all xdist workers of this run see), a text one worker embedded is read back by the others."""
    from paperdesk.core.search.embedder import DIM, Embedder

    original = Embedder.encode
    seen: dict[tuple[str, str], np.ndarray] = {}

    def stored(tag: str, text: str) -> Path:
        assert shared is not None
        return shared / (hashlib.sha1(f"{tag}\0{text}".encode("utf-8", "surrogatepass")).hexdigest() + ".npy")

    def read_shared(tag: str, texts: list[str]) -> list[str]:
        for text in texts:
            try:
                seen[(tag, text)] = np.load(stored(tag, text))
            except (OSError, ValueError):
                pass
        return [t for t in texts if (tag, t) not in seen]

    def write_shared(tag: str, text: str, vector: np.ndarray) -> None:
        path = stored(tag, text)
        partial = path.with_name(f"{path.stem}.{os.getpid()}.partial")
        try:
            with open(partial, "wb") as handle:
                np.save(handle, vector)
            os.replace(partial, path)  # whole or absent: a worker reading it never sees half a vector
        except OSError:
            partial.unlink(missing_ok=True)

    def encode(self, texts, progress=None, cancel=None):
        out = np.empty((len(texts), DIM), dtype=np.float32)
        tag = self.tag
        for start in range(0, len(texts), self.batch_size):
            if cancel is not None:
                cancel.raise_if_cancelled()
            batch = list(texts[start:start + self.batch_size])
            missing = [t for t in dict.fromkeys(batch) if (tag, t) not in seen]
            if missing and shared is not None:
                missing = read_shared(tag, missing)
            if missing:
                for text, vector in zip(missing, original(self, missing)):
                    seen[(tag, text)] = vector
                    if shared is not None:
                        write_shared(tag, text, vector)
            out[start:start + len(batch)] = [seen[(tag, t)] for t in batch]
            if progress is not None:
                progress(min(start + self.batch_size, len(texts)), len(texts))
        return out

    Embedder.encode = encode  # type: ignore[method-assign]


def parse_each_pdf_once() -> None:
    """The library parses each distinct PDF (its bytes and chunk settings) once; a later add of the same
    bytes gets a copy of that parse, with the same per-page cancel checks and progress calls. A file that
    fails to parse is parsed (and fails) every time."""
    from paperdesk.core.ingest import pdf
    from paperdesk.core.library import library

    original = pdf.parse_pdf
    parsed_before: dict[tuple[str, int, int], tuple[str, pdf.ParsedPdf]] = {}

    def parse_pdf(path, chunk_words=300, overlap_words=50, progress=None, cancel=None, name=None):
        path = Path(path)
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            return original(path, chunk_words, overlap_words, progress, cancel, name)
        key = (digest, chunk_words, overlap_words)
        if key in parsed_before:
            stem, parsed = parsed_before[key]
            if stem == path.stem or parsed.title != stem:  # a title taken from the file name is that file's
                for page in range(len(parsed.pages)):
                    if cancel is not None:
                        cancel.raise_if_cancelled()
                    if progress is not None:
                        progress(page + 1, len(parsed.pages))
                return copy.deepcopy(parsed)
        parsed = original(path, chunk_words, overlap_words, progress, cancel, name)
        parsed_before[key] = (path.stem, copy.deepcopy(parsed))
        return parsed

    library.parse_pdf = parse_pdf
