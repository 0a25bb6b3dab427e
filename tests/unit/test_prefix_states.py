"""The store of prompt-opening states: whole files or none, checked before use, few kept."""

from __future__ import annotations

import os

from paperdesk.core.llm.prefix_states import PrefixStates, shared_length

TOKENS = [151644, 8948, 198, 2610, 4226]


def store(tmp_path, **kw) -> PrefixStates:
    model = tmp_path / "model.gguf"
    if not model.exists():
        model.write_bytes(b"GGUF" + bytes(60))
    return PrefixStates(tmp_path / "states", model, kw.pop("n_ctx", 4096), 128, **kw)


def test_a_saved_state_loads_for_the_same_opening_only(tmp_path):
    states = store(tmp_path)
    states.save(TOKENS, b"state bytes")
    assert states.load(TOKENS) == b"state bytes"
    assert states.load(TOKENS[:-1]) is None and states.load(TOKENS + [13]) is None
    assert store(tmp_path, n_ctx=2048).load(TOKENS) is None  # another context size: another state


def test_a_damaged_or_cut_file_is_removed_and_not_used(tmp_path):
    states = store(tmp_path)
    states.save(TOKENS, b"state bytes" * 100)
    path = states.path_for(TOKENS)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x01
    path.write_bytes(bytes(data))
    assert states.load(TOKENS) is None and not path.exists()
    states.save(TOKENS, b"state bytes" * 100)
    path.write_bytes(path.read_bytes()[:40])
    assert states.load(TOKENS) is None and not path.exists()


def test_the_least_recently_used_files_go_first(tmp_path):
    states = store(tmp_path, keep=2)
    openings = [TOKENS + [n] for n in range(3)]
    for n, opening in enumerate(openings):
        states.save(opening, b"s")
        os.utime(states.path_for(opening), ns=(n * 10**9, n * 10**9))
    assert states.load(openings[0]) is None  # the third save dropped the oldest
    assert states.load(openings[1]) == b"s" and states.load(openings[2]) == b"s"


def test_a_folder_that_cannot_be_written_only_costs_the_saving(tmp_path):
    (tmp_path / "states").write_text("a file where the folder should be")
    states = store(tmp_path)
    states.save(TOKENS, b"state")  # no error
    assert states.load(TOKENS) is None


def test_shared_length_counts_the_common_opening():
    assert shared_length([1, 2, 3], [1, 2, 4, 5]) == 2
    assert shared_length([], [1]) == 0 and shared_length([1, 2], [1, 2]) == 2
