"""Vector search picks its matrix product from the cores this process may use, never from the load average."""

from __future__ import annotations

import os

import numpy as np

from paperdesk.core.search import vectors


def _spy(monkeypatch):
    calls = []
    real = np.einsum

    def einsum(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(vectors.np, "einsum", einsum)
    return calls


def test_two_usable_cores_use_threaded_product_whatever_the_load(monkeypatch):
    calls = _spy(monkeypatch)
    monkeypatch.setattr(os, "getloadavg", lambda: (99.0, 99.0, 99.0), raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    matrix, query = np.eye(3, dtype=np.float32), np.array([1, 2, 3], dtype=np.float32)
    assert vectors._dot(matrix, query).tolist() == [1, 2, 3]
    assert calls == []


def test_one_usable_core_uses_single_threaded_product(monkeypatch):
    calls = _spy(monkeypatch)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0), raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    matrix, query = np.eye(3, dtype=np.float32), np.array([1, 2, 3], dtype=np.float32)
    assert vectors._dot(matrix, query).tolist() == [1, 2, 3]
    assert calls == ["ij,j->i"]
    assert vectors.usable_cores() == 1
