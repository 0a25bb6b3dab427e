"""The model seams: prompt templates, request building, repeat dropping, GGUF metadata, backend protocol."""

import struct

import pytest

from fake_llm import FakeLLM
from paperdesk.core.errors import ConfigError
from paperdesk.core.llm.backend import Capabilities
from paperdesk.core.llm.gguf import read_metadata
from paperdesk.core.llm.local import LocalBackend
from paperdesk.core.llm.remote import RemoteBackend
from paperdesk.core.llm.repeats import drop_repeats
from paperdesk.core.llm.requests import make_request
from paperdesk.core.prompts import PROMPT_DIR, PromptError, fill, render, template


def test_a_missing_value_is_an_error_naming_it():
    with pytest.raises(PromptError, match="prompt answer: prompt needs a value for question"):
        render("answer", sources="S")


def test_literal_braces_and_braces_in_values_are_kept():
    text = 'Reply as JSON like {"steps": [{"tool": "find"}]} about {topic}.'
    assert fill(text, topic="a {b}") == 'Reply as JSON like {"steps": [{"tool": "find"}]} about a {b}.'


def test_every_shipped_template_fills_as_before():
    import re

    for path in PROMPT_DIR.glob("*.txt"):
        text = template(path.stem)
        names = {n: f"<{n}>" for n in re.findall(r"\{(\w+)\}", text)}
        filled = fill(text, **names)
        if "{" in re.sub(r"\{\w+\}", "", text):  # a JSON example: its braces are text, left as they are
            assert all(f"<{n}>" in filled for n in names) and re.sub(r"\{\w+\}", "", text) in \
                re.sub(r"<\w+>", "", filled)
        else:
            assert filled == text.format(**names)


def test_requests_follow_the_chat_template():
    class Chat(FakeLLM):
        chat_template = "{{ messages }}"

    assert make_request(FakeLLM(), "hi", max_tokens=3).prompt == "hi"
    assert make_request(Chat(), "hi").messages == [{"role": "user", "content": "hi"}]


def test_drop_repeats():
    assert drop_repeats("A cat. A cat. A dog.") == "A cat. A dog."


def test_drop_repeats_keeps_lines_whole():
    notes = "- Rows were watered at dusk [p. 2]. Each row had a sensor.\n\n- Rows were watered at dusk [p. 2].\n- A dog."
    assert drop_repeats(notes) == "- Rows were watered at dusk [p. 2]. Each row had a sensor.\n- A dog."
    assert drop_repeats("One [p. 4]. Two.\nOne [p. 4]. Three.") == "One [p. 4]. Two.\nThree."
    assert drop_repeats("- A [p. 2].\n- B [p. 2].\n- C, as in Fig. 2. D.") == "- A [p. 2].\n- B [p. 2].\n- C, as in Fig. 2. D."


def _gguf(path, template=None):
    def s(text):
        raw = text.encode()
        return struct.pack("<Q", len(raw)) + raw

    kvs = [s("general.name") + struct.pack("<I", 8) + s("tiny"),
           s("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 3) + s("a") + s("b") + s("c"),
           s("tokenizer.ggml.scores") + struct.pack("<IIQ", 9, 6, 2) + struct.pack("<ff", 0.5, 0.25)]
    if template:
        kvs.append(s("tokenizer.chat_template") + struct.pack("<I", 8) + s(template))
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs))
    return path


def test_the_chat_template_is_read_from_the_header_without_loading(tmp_path):
    backend = LocalBackend(_gguf(tmp_path / "chat.gguf", "{% for m in messages %}{{ m }}{% endfor %}"))
    assert backend.chat_template.startswith("{% for m")
    assert backend._llama is None  # noqa: SLF001 - the point of the test: nothing was loaded
    assert LocalBackend(_gguf(tmp_path / "base.gguf")).chat_template is None
    assert read_metadata(tmp_path / "base.gguf", {"general.name"}) == {"general.name": "tiny"}
    (tmp_path / "junk.gguf").write_bytes(b"not a model")
    with pytest.raises(ConfigError, match="cannot read junk.gguf as a GGUF model"):
        LocalBackend(tmp_path / "junk.gguf").chat_template


def test_every_backend_states_what_callers_rely_on():
    for backend in (LocalBackend(__import__("pathlib").Path("/nonexistent.gguf")), RemoteBackend("http://x"), FakeLLM()):
        assert isinstance(backend.capabilities, Capabilities) and callable(backend.warm_up)
        assert isinstance(backend.name, str)
    assert RemoteBackend("http://x").chat_template is None


def test_the_remote_model_name_comes_from_config(tmp_home):
    from paperdesk.core.config import load_settings
    from paperdesk.core.llm.factory import make_backend

    settings = load_settings(environ={"PAPERDESK_LLM_BACKEND": "remote", "PAPERDESK_LLM_REMOTE_URL": "http://h:1",
                                      "PAPERDESK_LLM_REMOTE_MODEL": "qwen2.5:7b"})
    backend = make_backend(settings)
    assert backend.model == "qwen2.5:7b"
    assert backend._body(make_request(backend, "hi"))[1]["model"] == "qwen2.5:7b"  # noqa: SLF001


def test_the_remote_writer_is_asked_in_chat_turns_unless_told_otherwise(tmp_home):
    from paperdesk.core.config import load_settings
    from paperdesk.core.llm.factory import make_backend

    base = {"PAPERDESK_LLM_BACKEND": "remote", "PAPERDESK_LLM_REMOTE_URL": "http://h:1"}
    plain = make_backend(load_settings(environ={**base, "PAPERDESK_LLM_REMOTE_CHAT": "false"}))
    assert plain.chat_template is None
    assert plain._body(make_request(plain, "hi"))[0] == "/v1/completions"  # noqa: SLF001
    chat = make_backend(load_settings(environ=base))  # chat turns unless told otherwise
    assert chat.chat_template
    path, body = chat._body(make_request(chat, "hi"))  # noqa: SLF001
    assert path == "/v1/chat/completions" and body["messages"] == [{"role": "user", "content": "hi"}]
