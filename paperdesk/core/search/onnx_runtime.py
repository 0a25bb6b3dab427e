"""Sentence embeddings from an exported ONNX model (int8 or fp32), without torch.

Same recipe as sentence-transformers for all-MiniLM-L6-v2: WordPiece
tokens (the model's own `tokenizer.json`, fast tokenizer), the transformer,
mean pooling over real tokens, L2 normalisation. Importing only onnxruntime,
tokenizers and numpy keeps "models ready" short: no torch import at all.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from paperdesk.core.search.onnx_export import MANIFEST, MODEL_FILE

# Session-time fusions left off: ONNX Runtime would fuse each residual Add + LayerNormalization back into its
# SkipLayerNormalization kernel, four times slower than the pair on this model (see onnx_export._fuse).
SKIP_FUSIONS = ["SkipLayerNormFusion"]
# Texts per session run, whatever batch the caller hands over. One: int8 activations are scaled per run over
# every position, padding included, so a text run beside longer ones came out different (cosine 0.99 to itself
# alone), and a query (always alone) was embedded unlike the chunks it is compared with. One text per run needs
# no padding and gives every text the same vector in any batch, at the same speed (fixture chunks, two threads:
# 1 per run 113-117 chunks/s, 4 per run 109-113, 32 per run 105; a 32 x 256 x 1536 GELU input is 50 MB).
SESSION_BATCH = 1


class OnnxSentenceModel:
    """Encodes a batch of texts to unit vectors with ONNX Runtime on the CPU."""

    def __init__(self, directory: Path, threads: int = 0) -> None:
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import onnxruntime as ort
        from tokenizers import Tokenizer

        manifest = json.loads((directory / MANIFEST).read_text())
        self.max_len = int(manifest.get("max_seq_length", 256))
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_len)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in the batch
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads:
            options.intra_op_num_threads = threads
        # Idle worker threads sleep instead of spinning: on a shared 2-core machine spinning steals the
        # cores other work (and the other intra-op thread) needs. Measured on the fixture chunks under load:
        # spinning on 17.2 chunks/s and 12.8 CPU s, off 24.5 chunks/s and 9.7 CPU s.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # warnings about unused initializers are noise here
        model_file = str(manifest.get("model_file", MODEL_FILE))  # exports made before fp32 copies: int8
        self.session = ort.InferenceSession(str(directory / model_file), options, providers=["CPUExecutionProvider"],
                                            disabled_optimizers=SKIP_FUSIONS)
        self.inputs = {i.name for i in self.session.get_inputs()}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, unit length."""
        texts = list(texts)
        parts = [self._encode(texts[start:start + SESSION_BATCH]) for start in range(0, len(texts), SESSION_BATCH)]
        return np.concatenate(parts) if parts else np.zeros((0, self.dim), dtype=np.float32)

    @property
    def dim(self) -> int:
        return int(self.session.get_outputs()[0].shape[-1])

    def _encode(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
