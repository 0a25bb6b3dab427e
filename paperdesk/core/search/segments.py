"""Whole-text chunk vectors: the parts of a chunk past the embedding model's window.

all-MiniLM-L6-v2 reads 256 word pieces. A 300-word chunk is longer than that
(median 404 pieces on the fixture papers; 88% of chunks are longer), so a
single vector never sees about 40% of the library's text. A chunk therefore
gets its usual vector (the text, cut at the window, exactly as before) plus one
vector per further window-sized segment of its text ("tails"), cut at word-piece
boundaries, without overlap.

How a chunk is scored against a query from those vectors lives in `vectors.py`
(the mean of the opening cosine and the best cosine). On SciFact dev
(`paperdesk bench retrieval`) this lifted vector-only nDCG@10 0.771 -> 0.796 and
the held-out hybrid over 20 five-fold splits 0.816 -> 0.835, for 1.9x the
embedding time and 2.1x the vectors on the fixture papers (every token is
embedded once; `bench ingest`).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

SPECIAL_TOKENS = 2  # [CLS] and [SEP] take two of the window's places

_TOKENIZERS: dict[Path, object] = {}
_LOCK = threading.Lock()


def window_of(model_dir: Path) -> int:
    """The model's window in word pieces (sentence-transformers' max_seq_length; 256 if it does not say)."""
    try:
        return int(json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return 256


def _tokenizer(model_dir: Path):
    """The model's fast tokenizer (no truncation, no padding), or None when the model has no tokenizer.json."""
    with _LOCK:
        if model_dir not in _TOKENIZERS:
            path = model_dir / "tokenizer.json"
            tokenizer = None
            if path.is_file():
                from tokenizers import Tokenizer

                try:
                    tokenizer = Tokenizer.from_file(str(path))
                    tokenizer.no_truncation()
                    tokenizer.no_padding()
                except Exception:  # an unreadable tokenizer: chunks keep their single vector
                    tokenizer = None
            _TOKENIZERS[model_dir] = tokenizer
        return _TOKENIZERS[model_dir]


class Segmenter:
    """Cuts the text past a model's window into window-sized pieces of the original text."""

    def __init__(self, model_dir: Path) -> None:
        self.model_dir = model_dir
        self.size = max(1, window_of(model_dir) - SPECIAL_TOKENS)

    @property
    def available(self) -> bool:
        return _tokenizer(self.model_dir) is not None

    def tails(self, text: str) -> list[str]:
        """The text after the first `size` word pieces, in `size`-piece segments (empty when it all fits)."""
        tokenizer = _tokenizer(self.model_dir)
        if tokenizer is None:
            return []
        offsets = tokenizer.encode(text, add_special_tokens=False).offsets
        out = []
        for start in range(self.size, len(offsets), self.size):
            end = min(start + self.size, len(offsets)) - 1
            piece = text[offsets[start][0]:offsets[end][1]].strip()
            if piece:
                out.append(piece)
        return out
