"""One-time export of a sentence-transformers BERT model to ONNX: int8-quantized, and unquantized.

The packaged weights are loaded with transformers (offline), traced with
torch's TorchScript-based ONNX exporter and quantized with ONNX Runtime's
dynamic int8 quantization. The same trace also gives an unquantized (fp32)
copy: int8 kernels differ from one CPU to another (with AVX-512 VNNI or
without), so only the fp32 model gives the same vector for a text on every
machine, which short lines that are compared with fixed thresholds need
(phrases.py). Each copy is written into a temporary directory inside the
cache and moved into place with one `os.replace`, so a killed export never
leaves a half-written model that a later run would trust.

This module imports torch; the run-time path (`onnx_runtime.py`) never does.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path

import platformdirs

from paperdesk.core.search.segments import window_of

EXPORT_VERSION = 3  # bump when the export recipe changes, so old caches (and vectors made with them) are not reused
MODEL_FILE = "model-int8.onnx"
FP32_FILE = "model-fp32.onnx"
PRECISIONS = {"int8": MODEL_FILE, "fp32": FP32_FILE}
FAILED_FILE = "export-failed.txt"
MANIFEST = "manifest.json"


def cache_root() -> Path:
    """Where exported models live (the platform's user cache dir; honours XDG_CACHE_HOME)."""
    return Path(platformdirs.user_cache_dir("paperdesk")) / "onnx"


def fingerprint(model_dir: Path) -> str:
    """A short id of the model weights: path, size and mtime of each weight/tokenizer file."""
    digest = hashlib.sha1(f"v{EXPORT_VERSION}:{model_dir.resolve()}".encode())
    for name in ("model.safetensors", "pytorch_model.bin", "tokenizer.json", "config.json"):
        path = model_dir / name
        if path.exists():
            stat = path.stat()
            digest.update(f"{name}:{stat.st_size}:{int(stat.st_mtime)}".encode())
    return digest.hexdigest()[:12]


def export_dir(model_dir: Path, root: Path | None = None, precision: str = "int8") -> Path:
    """The cache directory for this model's export at `precision` ("int8" or "fp32"; may not exist yet)."""
    suffix = "" if precision == "int8" else f"-{precision}"
    return (root or cache_root()) / f"{model_dir.resolve().name}-{fingerprint(model_dir)}{suffix}"


def is_exported(model_dir: Path, root: Path | None = None, precision: str = "int8") -> bool:
    """The model's export at `precision` is in the cache: loading it costs no export."""
    return (export_dir(model_dir, root, precision) / PRECISIONS[precision]).is_file()


def _export_fp32(model_dir: Path, target: Path) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    import torch
    from transformers import AutoModel

    from paperdesk.core.search.hf_quiet import quiet_transformers

    quiet_transformers()  # no "Loading weights" bar on the terminal (doctor's output, the TUI's screen)

    # Eager attention traces as plain MatMul/Softmax, which ONNX Runtime's BERT optimizer fuses into one
    # Attention node (quantized: QAttention). The default SDPA path traces a masked_fill with Where/IsNaN
    # over every attention matrix that nothing fuses: 28% of the run time (ORT profile, fixture chunks).
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True, attn_implementation="eager")
    model.eval()

    class Encoder(torch.nn.Module):
        """The transformer only: pooling and normalising happen in numpy at run time."""

        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    dummy = torch.ones((2, 16), dtype=torch.long)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer warnings about shape-dependent branches: not for the user
        torch.onnx.export(
            Encoder(model), (dummy, dummy, torch.zeros_like(dummy)), str(target),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={name: {0: "batch", 1: "seq"} for name in ("input_ids", "attention_mask", "token_type_ids")}
            | {"last_hidden_state": {0: "batch", 1: "seq"}},
            opset_version=17, dynamo=False, do_constant_folding=True,
        )


def _fuse(fp32: Path, target: Path, model_dir: Path) -> tuple[Path, dict[str, int]]:
    """Fuse attention, GELU and layer norms (ONNX Runtime's BERT optimizer); the plain graph if that fails.

    Heads and hidden size come from the model's config.json: read from the traced graph they were
    not found, and attention stayed unfused. Returns the model to quantize and the fused-op counts.
    """
    try:
        from onnxruntime.transformers import optimizer
        from onnxruntime.transformers.fusion_options import FusionOptions

        config = json.loads((model_dir / "config.json").read_text())
        options = FusionOptions("bert")
        # Residual add + LayerNormalization stay two ops: ONNX Runtime 1.32's CPU SkipLayerNormalization kernel
        # took 16% of the run time, the pair takes 4% (ORT profile, fixture chunks, one thread), which is
        # 28 -> 32 chunks/s on one thread; on a 2-core AMD EPYC, two threads, 93 -> 110 chunks/s. The session
        # keeps them apart too (SKIP_FUSIONS in onnx_runtime.py).
        options.enable_skip_layer_norm = False
        options.enable_bias_skip_layer_norm = False
        model = optimizer.optimize_model(str(fp32), model_type="bert", num_heads=int(config["num_attention_heads"]),
                                         hidden_size=int(config["hidden_size"]), opt_level=0,
                                         optimization_options=options)
        model.save_model_to_file(str(target))
        return target, {k: v for k, v in model.get_fused_operator_statistics().items() if v}
    except Exception:  # fusion is an optimisation only
        return fp32, {}


def export_int8(model_dir: Path, root: Path | None = None, with_fp32: bool = False) -> Path:
    """Export and quantize once; return the directory holding MODEL_FILE and the tokenizer.

    Raises whatever the export raised; the caller falls back to torch and
    records the failure (see `record_failure`). `with_fp32`: write the
    unquantized copy from the same trace too, when it is missing.
    """
    return export(model_dir, root, ("int8", "fp32") if with_fp32 else ("int8",))


def export_fp32(model_dir: Path, root: Path | None = None) -> Path:
    """Export once, unquantized; return the directory holding FP32_FILE and the tokenizer."""
    return export(model_dir, root, ("fp32",))


def export(model_dir: Path, root: Path | None, precisions: tuple[str, ...]) -> Path:
    """The export directory of `precisions[0]`. When that is not in the cache yet, it is made now, and from
    the same trace every other precision listed that is missing too."""
    target = export_dir(model_dir, root, precisions[0])
    if is_exported(model_dir, root, precisions[0]):
        return target
    missing = [p for p in precisions if not is_exported(model_dir, root, p)]
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".export-", dir=target.parent) as tmp:
        work = Path(tmp)
        fp32 = work / "model-traced.onnx"
        _export_fp32(model_dir, fp32)
        source, fused = _fuse(fp32, work / "model-fused.onnx", model_dir)
        for kind in missing:
            stage = work / f"final-{kind}"
            stage.mkdir()
            if kind == "int8":
                _quantize(source, stage / MODEL_FILE)
                quantization = "dynamic int8 (QInt8 weights)"
            else:
                shutil.copyfile(source, stage / FP32_FILE)
                quantization = "none (fp32)"
            shutil.copyfile(model_dir / "tokenizer.json", stage / "tokenizer.json")
            (stage / MANIFEST).write_text(json.dumps({
                "source": str(model_dir.resolve()), "fingerprint": fingerprint(model_dir),
                "max_seq_length": window_of(model_dir), "model_file": PRECISIONS[kind],
                "quantization": quantization, "export_version": EXPORT_VERSION, "fused": fused,
            }, indent=2))
            place = export_dir(model_dir, root, kind)
            try:
                os.replace(stage, place)  # atomic: another process may have won the race, which is fine
            except OSError:
                if not (place / PRECISIONS[kind]).exists():
                    raise
    return target


def _quantize(source: Path, target: Path) -> None:
    import logging

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Per-channel weights: per-tensor int8 drops cosine to torch to ~0.93 on
    # abstracts; per-channel keeps it at ~0.994 (min ~0.99) with AVX-512 VNNI, ~0.989 (min ~0.96) without.
    root_logger, level = logging.getLogger(), logging.getLogger().level
    root_logger.setLevel(logging.ERROR)  # quantize_dynamic logs a "consider pre-processing" hint on root
    try:
        quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8, per_channel=True,
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    finally:
        root_logger.setLevel(level)


def failure_reason(exc: BaseException) -> str:
    """An export or load failure in one short line (the exception's type and its first line), for notices."""
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]


def _failure_file(model_dir: Path, root: Path | None, precision: str = "int8") -> Path:
    target = export_dir(model_dir, root, precision)
    return target.with_name(target.name + ".failed")


def record_failure(model_dir: Path, reason: str, root: Path | None = None, precision: str = "int8") -> None:
    """Remember that this model cannot be exported at `precision`, so later runs do not try again."""
    path = _failure_file(model_dir, root, precision)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(reason + "\n")


def failed_before(model_dir: Path, root: Path | None = None, precision: str = "int8") -> str | None:
    """The recorded reason a previous export at `precision` failed, or None."""
    path = _failure_file(model_dir, root, precision)
    try:
        return path.read_text().strip() or "export failed"
    except OSError:
        return None
