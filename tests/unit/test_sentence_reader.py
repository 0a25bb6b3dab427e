"""Which model scores sentences for an answer: the reader (answer.reader) when it is there, else search's
embedder; and the evidence functions read with the encoder they are given (a toy stand-in encoder here)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from paperdesk.core.agents import evidence
from paperdesk.core.config import load_settings
from paperdesk.core.llm import catalogue
from paperdesk.core.search.reader import SentenceReader, reader_dir, sentence_encoder
from toy_encoders import BagOfWords


def _settings(tmp_path: Path, reader: str):
    return load_settings(environ={"PAPERDESK_HOME": str(tmp_path / "home"), "PAPERDESK_ANSWER_READER": reader,
                                  "PAPERDESK_LLM_MODELS_DIR": str(tmp_path / "models")},
                         path=tmp_path / "absent.toml")


def test_the_reader_is_the_installed_catalogue_folder_a_folder_path_or_nothing(tmp_path) -> None:
    assert reader_dir(_settings(tmp_path, "")) is None
    assert reader_dir(_settings(tmp_path, catalogue.READER_MODEL)) is None  # not installed
    folder = tmp_path / "models" / catalogue.BY_NAME[catalogue.READER_MODEL].unpacked
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    assert reader_dir(_settings(tmp_path, catalogue.READER_MODEL)) is None  # unpacking never finished
    (folder / catalogue.UNPACKED_MARK).write_text("done")
    assert reader_dir(_settings(tmp_path, catalogue.READER_MODEL)) == folder
    assert reader_dir(_settings(tmp_path, str(folder))) == folder  # a model folder named by path
    assert reader_dir(_settings(tmp_path, str(tmp_path / "nowhere"))) is None
    assert reader_dir(_settings(tmp_path, "qwen2.5-coder-1.5b")) is None  # a language model reads nothing


class _Fallback:
    """Search's embedder, as sentence_encoder sees it (never called here)."""


def test_without_a_reader_or_with_one_that_cannot_load_search_s_embedder_reads(tmp_path) -> None:
    fallback = _Fallback()
    assert sentence_encoder(_settings(tmp_path, ""), fallback) is fallback
    broken = tmp_path / "broken-reader"
    broken.mkdir()
    (broken / "config.json").write_text("not a model")
    assert sentence_encoder(_settings(tmp_path, str(broken)), fallback) is fallback
    assert SentenceReader(broken).encode([]).shape[0] == 0  # nothing to read loads nothing


class _ToyEncoder:
    def __init__(self) -> None:
        self.bag = BagOfWords(64)
        self.calls = 0

    def encode(self, texts):
        self.calls += 1
        return self.bag(list(texts))

    def encode_query(self, text):
        return self.encode([text])[0]


class _NoEmbedder:
    @property
    def embedder(self):
        raise AssertionError("the given encoder reads, not the library's")


def test_windows_and_reading_score_sentences_with_the_encoder_they_are_given() -> None:
    passage = ("Cats sleep a lot during the day. The lighthouse keeper counted 412 ships in the harbour. "
               "Dogs bark at night. Rain fell in the valley.")
    toy = _ToyEncoder()
    question = "How many ships did the lighthouse keeper count in the harbour?"
    shown = evidence.windows(_NoEmbedder(), question, [None], [passage], 12, encoder=toy)
    assert "412 ships" in shown[0] and toy.calls == 2
    read = evidence.reading(_NoEmbedder(), question, [None, None], [passage, "Nothing here fits at all."], 12,
                            encoder=toy)
    assert "412 ships" in read[0] and read[1] == ""
    assert np.isclose(np.linalg.norm(toy.encode_query(question)), 1.0)
