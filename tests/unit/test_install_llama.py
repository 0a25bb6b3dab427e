"""scripts/install_llama.sh: the AMX flags really switch AMX off, and the script's decisions.

This machine may have no AMX, so the flags are proven on the compiler: with
-march=sapphirerapids (a CPU with AMX) the AMX macros that gate llama.cpp's AMX
kernels (`__AMX_INT8__`, `__AMX_TILE__`) must vanish, and AVX-512 must stay.
"""

from __future__ import annotations

import os
import platform
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "install_llama.sh"
NO_AMX = ["-mno-amx-tile", "-mno-amx-int8", "-mno-amx-bf16"]
X86 = platform.machine().lower() in ("x86_64", "amd64")


def _macros(*flags: str) -> set[str]:
    cc = os.environ.get("CC", "cc")
    out = subprocess.run([cc, *flags, "-dM", "-E", "-x", "c", "-"], input="", capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip(f"{cc} does not accept {' '.join(flags)}: {out.stderr.strip()[:120]}")
    return {line.split()[1] for line in out.stdout.splitlines() if line.startswith("#define ")}


@pytest.mark.skipif(not X86, reason="the AMX flags exist only for x86-64 compilers")
@pytest.mark.parametrize("order", ["flags_first", "march_first"])
def test_no_amx_flags_remove_amx_but_keep_avx512(order):
    plain = _macros("-march=sapphirerapids")
    assert {"__AMX_INT8__", "__AMX_TILE__"} <= plain  # the check below can fail
    # llama.cpp puts CMAKE_C_FLAGS before its own -march=native; both orders must work.
    flags = [*NO_AMX, "-march=sapphirerapids"] if order == "flags_first" else ["-march=sapphirerapids", *NO_AMX]
    macros = _macros(*flags)
    assert not {"__AMX_INT8__", "__AMX_TILE__", "__AMX_BF16__"} & macros
    assert {"__AVX512F__", "__AVX512VNNI__", "__AVX2__"} <= macros


# --- the script's decisions, via --plan (changes nothing) ---------------------------------------


def _stub(directory: Path, name: str, body: str) -> None:
    path = directory / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _plan(tmp_path: Path, uname: tuple[str, str] | None = None, cc: str | None = None,
          cmake_args: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CMAKE_ARGS", "CC")}
    env["PAPERDESK_WHEELHOUSE"] = str(tmp_path / "wheels")
    if uname is not None:  # pretend to be another machine: uname -m / uname -sm
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir(exist_ok=True)
        machine, system = uname
        _stub(bin_dir, "uname", f'case "$1" in -m) echo {machine};; -sm) echo "{system} {machine}";; *) echo {system};; esac\n')
        env["PATH"] = f"{bin_dir}:{env['PATH']}"
    if cc is not None:
        env["CC"] = cc
    if cmake_args is not None:
        env["CMAKE_ARGS"] = cmake_args
    out = subprocess.run(["bash", str(SCRIPT), "--plan", sys.executable, "0.3.36"], env=env,
                         capture_output=True, text=True, check=True)
    return dict(line.split("=", 1) for line in out.stdout.splitlines())


@pytest.mark.skipif(not X86 or shutil.which("cc") is None, reason="needs an x86-64 C compiler")
def test_x86_plan_passes_each_flag_list_as_one_cmake_value(tmp_path):
    plan = _plan(tmp_path)
    assert plan["flags"].split() == NO_AMX
    # scikit-build-core splits CMAKE_ARGS with shlex: each -D must stay one argument.
    args = shlex.split(plan["cmake_args"])
    assert "-DCMAKE_C_FLAGS=" + " ".join(NO_AMX) in args
    assert "-DCMAKE_CXX_FLAGS=" + " ".join(NO_AMX) in args
    assert {"-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"} <= set(args)
    assert plan["action"] == "build"


@pytest.mark.parametrize("machine,system", [("aarch64", "Linux"), ("arm64", "Darwin")])
def test_arm_and_apple_silicon_get_no_flags(tmp_path, machine, system):
    plan = _plan(tmp_path, uname=(machine, system), cmake_args="-DGGML_METAL=ON")
    assert plan["flags"] == ""
    assert plan["cmake_args"].strip() == "-DGGML_METAL=ON"  # the user's own args pass through untouched
    assert "amx" not in plan["cmake_args"].lower()


@pytest.mark.skipif(not X86, reason="x86-64 only")
def test_compiler_without_the_flags_gets_none(tmp_path):
    bin_dir = tmp_path / "ccbin"
    bin_dir.mkdir()
    _stub(bin_dir, "oldcc", "echo 'unrecognized option' >&2; exit 1\n")
    plan = _plan(tmp_path, cc=str(bin_dir / "oldcc"))
    assert plan["flags"] == "" and "mno-amx" not in plan["cmake_args"]


@pytest.mark.skipif(not X86 or shutil.which("cc") is None, reason="needs an x86-64 C compiler")
def test_wheelhouse_is_keyed_by_build_args_and_reused(tmp_path):
    plain = _plan(tmp_path)
    other = _plan(tmp_path, cmake_args="-DGGML_BLAS=ON")
    assert plain["house"] != other["house"]  # other CMAKE_ARGS never reuse this wheel
    assert other["cmake_args"].startswith("-DGGML_BLAS=ON ")
    house = Path(plain["house"])
    house.mkdir(parents=True)
    (house / "llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl").write_bytes(b"")
    assert _plan(tmp_path)["action"] == "reuse"
    assert _plan(tmp_path, cmake_args="-DGGML_BLAS=ON")["action"] == "build"
