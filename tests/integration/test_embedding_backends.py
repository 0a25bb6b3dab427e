"""ONNX int8 and torch embeddings agree, and a library re-embeds when the backend changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paperdesk.core.library import reindex
from paperdesk.core.library.library import Library
from paperdesk.core.search import onnx_export
from paperdesk.core.search.embedder import Embedder

pytestmark = pytest.mark.slow

TEXTS = [
    "Hybrid retrieval fuses BM25 scores with dense vector similarity.",
    "We measured the faithfulness of long-form summaries with human annotators.",
    "ID elements are short interspersed elements found in high copy number in many rodent genomes.",
    "Gene expression in mouse liver after methadone treatment.",
    "Transformer models are quantized to int8 with dynamic per-channel weights " * 20,  # past the 256-token cut
]


@pytest.fixture(scope="module")
def torch_embedder() -> Embedder:
    return Embedder(backend="torch")


def test_onnx_and_torch_embeddings_agree(embedder: Embedder, torch_embedder: Embedder):
    assert embedder.expected_backend() == "onnx-int8"
    onnx_vecs = embedder.encode(TEXTS)
    assert embedder.backend == "onnx-int8", embedder.notice
    torch_vecs = torch_embedder.encode(TEXTS)
    assert np.allclose(np.linalg.norm(onnx_vecs, axis=1), 1.0, atol=1e-4)
    cosines = (onnx_vecs * torch_vecs).sum(axis=1)
    # int8 weights cost a little: ~0.994 mean on SciFact abstracts; very short strings ("x") dip to ~0.98.
    assert cosines.mean() > 0.99 and cosines.min() > 0.98, cosines
    assert embedder.tag.startswith("onnx-int8:") and torch_embedder.tag.startswith("torch:")
    assert embedder.tag.split(":", 1)[1] == torch_embedder.tag.split(":", 1)[1]  # same model, other backend


def test_failed_export_falls_back_to_torch_once_with_a_notice(tmp_path: Path, monkeypatch, capsys):
    def broken(*_args, **_kwargs):
        raise RuntimeError("exporter exploded")

    monkeypatch.setattr(onnx_export, "export_int8", broken)
    first = Embedder(cache_dir=tmp_path)
    monkeypatch.setattr("paperdesk.core.search.embedder._ONNX", {})  # no model loaded by other tests
    vec = first.encode(["hello"])
    assert first.backend == "torch" and vec.shape == (1, 384)
    assert "exporter exploded" in (first.notice or "")
    assert capsys.readouterr().err.count("\n") == 1  # one line
    later = Embedder(cache_dir=tmp_path)  # a later run goes straight to torch, no retry, no re-embedding loop
    assert later.expected_backend() == "torch" and later.tag == first.tag


def test_switching_backend_reindexes_the_library(settings, embedder: Embedder, torch_embedder: Embedder,
                                                  citesee_pdf: Path):
    lib = Library(settings, embedder=torch_embedder)
    lib.add_pdf(citesee_pdf)
    assert lib.store.get_meta(reindex.EMBEDDING_KEY) == torch_embedder.tag
    before = lib.vectors.matrix.copy()
    query = "citation context for reading papers"
    lib.close()

    seen = []
    lib = Library(settings, embedder=embedder, progress=seen.append)
    try:
        assert lib.store.get_meta(reindex.EMBEDDING_KEY) == embedder.tag
        assert seen and seen[-1].stage == "reindex" and seen[-1].done == seen[-1].total == len(before)
        after = lib.vectors.matrix
        assert after.shape == before.shape and not np.array_equal(after, before)
        agree = (after * before).sum(axis=1)
        assert agree.mean() > 0.99 and agree.min() > 0.97, agree  # same model, other backend
        stored = dict(lib.store.embeddings_of(None))
        first = int(lib.vectors.ids[0])
        assert np.allclose(np.frombuffer(stored[first], dtype=np.float32)[:384], after[0])  # tails follow
        assert lib.search(query, k=3)
    finally:
        lib.close()

    seen.clear()
    lib = Library(settings, embedder=embedder, progress=seen.append)  # same backend again: nothing to redo
    lib.close()
    assert seen == []


def test_onnx_session_batches_keep_row_order(embedder: Embedder):
    """The ONNX model runs one text at a time: a batch comes back in input order, and each text's vector is
    the one it gets alone (with padded companions, per-run int8 scaling moved it to cosine 0.99)."""
    from paperdesk.core.search.onnx_runtime import SESSION_BATCH

    model = embedder.model()
    texts = TEXTS * 2  # more than one session batch, mixed lengths
    assert len(texts) > SESSION_BATCH
    together = model.encode(texts)
    alone = np.stack([model.encode([t])[0] for t in texts])
    assert together.shape == (len(texts), 384)
    assert np.allclose(together, alone, atol=1e-6)
    assert model.encode([]).shape == (0, 384)


def test_a_chunk_gets_its_opening_vector_and_one_per_further_segment(embedder: Embedder):
    """Text past the model's 256-piece window is embedded too, in 254-piece segments of the original text."""
    from paperdesk.core.search.segments import Segmenter

    long_text = " ".join(f"Finding {n}: hybrid retrieval of paper {n} improved recall on held-out queries."
                         for n in range(60))
    short = TEXTS[0]
    chunks = embedder.encode_chunks([short, long_text])
    assert chunks[0].shape == (1, 384)
    assert np.allclose(chunks[0][0], embedder.encode([short])[0], atol=1e-6)
    assert np.allclose(chunks[1][0], embedder.encode([long_text])[0], atol=1e-6)  # row 0 is the usual vector

    segmenter = Segmenter(embedder.model_dir())
    tails = segmenter.tails(long_text)
    assert segmenter.size == 254 and chunks[1].shape == (1 + len(tails), 384) and len(tails) >= 2
    joined = " ".join(tails)
    assert joined.endswith("out queries.") and "Finding 59" in joined  # through to the end
    assert "Finding 0:" not in joined  # the opening window is not embedded twice
    assert np.allclose(chunks[1][1:], embedder.encode(tails), atol=1e-6)
    assert segmenter.tails(short) == []
    assert embedder.tag.endswith(":tails254")


def test_a_library_from_before_tails_is_reembedded_with_them(settings, embedder: Embedder, citesee_pdf: Path):
    lib = Library(settings, embedder=embedder)
    lib.add_pdf(citesee_pdf)
    assert len(lib.vectors.tail_ids) > 0  # 300-word chunks run past the window
    chunk_ids = sorted(lib.vectors.ids.tolist())
    # Make it look like an older library: opening vectors only, tagged without the layout.
    old_tag = embedder.tag.rsplit(":", 1)[0]
    with lib.store.transaction() as conn:
        for cid, blob in lib.store.embeddings_of(None):
            conn.execute("UPDATE chunks SET embedding = ? WHERE id = ?", (blob[: 4 * 384], cid))
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (old_tag, reindex.EMBEDDING_KEY))
    lib.close()

    lib = Library(settings, embedder=embedder)
    try:
        assert lib.store.get_meta(reindex.EMBEDDING_KEY) == embedder.tag
        assert sorted(lib.vectors.ids.tolist()) == chunk_ids
        assert set(lib.vectors.tail_ids.tolist()) <= set(chunk_ids) and len(lib.vectors.tail_ids) > 0
        assert lib.integrity_problems() == []
        hits = lib.search("citation context while reading", k=3)
        assert hits and all(h.paper_id == lib.store.list_papers()[0].id for h in hits)
    finally:
        lib.close()


def test_phrases_are_the_unquantized_model_and_equal_torch_on_any_cpu(embedder: Embedder, torch_embedder: Embedder):
    lines = ["delete this paper", "open the second paper", "the summary should mention the interviews", "x"]
    phrases = embedder.phrases()
    assert phrases is embedder.phrases()  # one per embedder: the exemplars' vectors are made once
    vectors = phrases.encode(lines)
    assert phrases.backend == "onnx-fp32", phrases.notice
    exact = torch_embedder.encode(lines)
    cosines = (vectors * exact).sum(axis=1)
    assert cosines.min() > 0.9999, cosines  # int8 kernels differ by CPU (with or without VNNI); fp32 does not
    assert np.array_equal(phrases.encode(list(reversed(lines))), vectors[::-1])  # remembered, any order
    assert torch_embedder.phrases().backend == "torch"  # exact already: no second model


def test_phrases_fall_back_to_search_vectors_once_when_the_unquantized_export_fails(
        embedder: Embedder, tmp_path: Path, monkeypatch, capsys):
    from paperdesk.core.search import phrases as phrase_module

    def broken(*_args, **_kwargs):
        raise RuntimeError("no room for the copy")

    monkeypatch.setattr(onnx_export, "export_fp32", broken)
    monkeypatch.setattr(phrase_module, "_MODELS", {})
    first = phrase_module.PhraseEncoder(embedder, tmp_path)
    vector = first.encode(["save it"])
    assert np.allclose(vector, embedder.encode(["save it"]))  # search's int8 vectors still route
    assert first.backend == embedder.backend and "no room for the copy" in (first.notice or "")
    assert capsys.readouterr().err.count("\n") == 1  # said once, on one line
    later = phrase_module.PhraseEncoder(embedder, tmp_path)  # a later run does not try the export again
    later.encode(["save it"])
    assert "no room for the copy" in (later.notice or "") and capsys.readouterr().err == ""
