"""The flag llama.cpp's abort callback reads in C: lowered for each batch, raised on cancel, read by C's strlen."""

import threading
import time

from paperdesk.core.cancel import CancelToken
from paperdesk.core.llm.abort_flag import AbortFlag


def test_the_callback_reads_the_flag_without_python():
    flag = AbortFlag()
    assert flag.callback is not None
    assert flag.callback(flag.data) is False
    flag.raise_()
    assert flag.raised and flag.callback(flag.data) is True
    flag.lower()
    assert not flag.raised and flag.callback(flag.data) is False


def test_watching_raises_the_flag_once_the_token_is_cancelled_and_stops_its_watcher():
    flag, token = AbortFlag(), CancelToken()
    flag.raise_()  # left from an earlier batch
    before = threading.active_count()
    with flag.watching(token):
        assert not flag.raised  # each batch starts lowered
        token.cancel()
        end = time.monotonic() + 10
        while not flag.raised and time.monotonic() < end:
            time.sleep(0.005)
        assert flag.callback(flag.data) is True
    assert threading.active_count() == before  # the watcher ended with the block


def test_a_batch_that_ends_uncancelled_leaves_the_flag_lowered():
    flag, token = AbortFlag(), CancelToken()
    with flag.watching(token):
        time.sleep(0.12)
    token.cancel()  # after the batch: no watcher is left to raise it
    time.sleep(0.12)
    assert not flag.raised
