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


# --- the install flow, with pip and llama_cpp stubbed (no build, no network) ---------------------

FAKE_LLAMA = '''
import os
from pathlib import Path

def llama_print_system_info():
    """Reports AMX for the first FAKE_AMX_CALLS calls (one per check), then not."""
    counter = Path(os.environ["FAKE_COUNTER"])
    n = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(n + 1))
    amx = "AMX_INT8 = 1 | " if n < int(os.environ["FAKE_AMX_CALLS"]) else ""
    return ("CPU : SSE3 = 1 | AVX2 = 1 | AVX512 = 1 | " + amx + "LLAMAFILE = 1 | ").encode()
'''


def _install(tmp_path: Path, amx_calls: int, have_wheel: bool = True) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run the real script with a python whose `-m pip` only logs, and a llama_cpp that reports AMX n times."""
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "llama_cpp.py").write_text(FAKE_LLAMA)
    log = tmp_path / "pip.log"
    _stub(fake, "python", f'''if [ "$1" = -m ] && [ "$2" = pip ]; then
  shift 2; echo "CMAKE_ARGS=$CMAKE_ARGS pip $*" >> {log}
  prev=""; for a in "$@"; do [ "$prev" = -w ] && touch "$a/llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"; prev="$a"; done
  exit 0
fi
PYTHONPATH={fake} exec {sys.executable} "$@"
''')
    env = {k: v for k, v in os.environ.items() if k not in ("CMAKE_ARGS", "CC")}
    env.update(PAPERDESK_WHEELHOUSE=str(tmp_path / "wheels"), FAKE_AMX_CALLS=str(amx_calls),
               FAKE_COUNTER=str(tmp_path / "counter"))
    if have_wheel:
        house = Path(_plan(tmp_path)["house"])
        house.mkdir(parents=True)
        (house / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl").write_bytes(b"")
    out = subprocess.run(["bash", str(SCRIPT), str(fake / "python"), "0.3.36"], env=env, capture_output=True, text=True)
    calls = log.read_text().splitlines() if log.exists() else []
    return out, calls


def _kinds(calls: list[str]) -> list[str]:
    kinds = []
    for call in calls:
        args = call.split(" pip ", 1)[1].split()
        kinds.append("build" if "wheel" in args[:2] else "reinstall" if "--force-reinstall" in args else "install")
    return kinds


needs_x86_cc = pytest.mark.skipif(not X86 or shutil.which("cc") is None, reason="needs an x86-64 C compiler")


@needs_x86_cc
def test_clean_wheel_is_installed_once_as_the_exact_file(tmp_path):
    out, calls = _install(tmp_path, amx_calls=0)
    assert out.returncode == 0, out.stderr
    assert _kinds(calls) == ["install"]
    assert "/llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl[server]" in calls[0]  # a file, not a version to find


@needs_x86_cc
def test_missing_wheel_is_built_with_the_flags_in_cmake_args(tmp_path):
    out, calls = _install(tmp_path, amx_calls=0, have_wheel=False)
    assert out.returncode == 0, out.stderr
    assert _kinds(calls) == ["build", "install"]
    assert "--no-binary llama-cpp-python" in calls[0] and "--no-cache-dir" in calls[0]
    assert "-DCMAKE_C_FLAGS='-mno-amx-tile -mno-amx-int8 -mno-amx-bf16'" in calls[0].split(" pip ")[0]


@needs_x86_cc
@pytest.mark.parametrize("amx_calls,expected,code", [
    (1, ["install", "reinstall"], 0),                                   # an older AMX build of the same version was kept
    (2, ["install", "reinstall", "build", "reinstall"], 0),            # the wheelhouse copy itself had AMX
    (9, ["install", "reinstall", "build", "reinstall"], 1),            # flags ignored: stop with a message
])
def test_amx_left_in_the_library_is_reinstalled_then_rebuilt(tmp_path, amx_calls, expected, code):
    out, calls = _install(tmp_path, amx_calls=amx_calls)
    assert _kinds(calls) == expected
    assert out.returncode == code
    if code:
        assert "still reports AMX" in out.stderr


@needs_x86_cc
def test_llama_cpp_that_does_not_import_fails_the_install(tmp_path):
    out, calls = _install(tmp_path, amx_calls=0)
    assert out.returncode == 0
    (tmp_path / "fake" / "llama_cpp.py").write_text("raise ImportError('libllama.so: cannot open shared object')\n")
    (tmp_path / "pip.log").unlink()
    env = {k: v for k, v in os.environ.items() if k not in ("CMAKE_ARGS", "CC")}
    env.update(PAPERDESK_WHEELHOUSE=str(tmp_path / "wheels"), FAKE_AMX_CALLS="0", FAKE_COUNTER=str(tmp_path / "c2"))
    out = subprocess.run(["bash", str(SCRIPT), str(tmp_path / "fake" / "python"), "0.3.36"], env=env,
                         capture_output=True, text=True)
    assert out.returncode == 1 and "does not import" in out.stderr
