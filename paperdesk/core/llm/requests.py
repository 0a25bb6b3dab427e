"""Building a generation request that fits the backend's model."""

from __future__ import annotations

from typing import Any

from paperdesk.core.llm.backend import Backend, GenerationRequest


def make_request(backend: Backend, prompt: str, **options: Any) -> GenerationRequest:
    """Chat messages when the model has its own chat template, a completion prompt otherwise."""
    if backend.chat_template:
        return GenerationRequest(messages=[{"role": "user", "content": prompt}], **options)
    return GenerationRequest(prompt=prompt, **options)
