#!/usr/bin/env bash
# Build llama-cpp-python so it runs on every CPU the build machine can run,
# including x86-64 CPUs that report AMX where the OS does not enable it
# (llama.cpp's -march=native build then compiles AMX kernels that segfault at
# the first matrix multiply).  All other native optimisations stay.
#
# The wheel is built once per (version, flags, python, machine, CPU) into our
# own wheelhouse, never taken from pip's cache or an index (a wheel built
# earlier without the flags would undo the fix): the exact wheel file is
# installed.  Then the installed library is checked: if its system info still
# reports AMX, it is reinstalled from the wheelhouse, then rebuilt once more.
#
# usage: scripts/install_llama.sh [--plan] PYTHON VERSION
#   --plan  print the decisions (flags, CMAKE_ARGS, wheelhouse, build or reuse)
#           and change nothing; tests/unit/test_install_llama.py reads it.
set -euo pipefail
plan=0
if [ "${1:-}" = "--plan" ]; then plan=1; shift; fi
PY=${1:?python}
VERSION=${2:?version}
pip_() { "$PY" -m pip --disable-pip-version-check "$@"; }

# Only x86-64 compilers know (and need) these; Arm and Apple Silicon get none.
flags=""
case "$(uname -m)" in
  x86_64|amd64|i686|i386)
    cc=${CC:-cc}
    if echo 'int main(void){return 0;}' | "$cc" -mno-amx-tile -mno-amx-int8 -mno-amx-bf16 -x c -o /dev/null - 2>/dev/null; then
      flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    fi
    ;;
esac
# scikit-build-core splits CMAKE_ARGS with shlex, so the single quotes keep each
# flags list one -D value (checked in the build's CMakeCache.txt).  The flags
# come before llama.cpp's own -march=native; GCC and Clang both let an explicit
# -mno-X win over -march regardless of order (tests/unit/test_install_llama.py).
cmake_args="${CMAKE_ARGS:-}"
if [ -n "$flags" ]; then
  cmake_args="$cmake_args -DCMAKE_C_FLAGS='$flags' -DCMAKE_CXX_FLAGS='$flags' -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
fi
# -march=native ties the wheel to this CPU: a home directory shared with an
# older machine must not hand it a wheel that dies there with SIGILL.
cpu=$(grep -m1 -E '^(flags|Features)' /proc/cpuinfo 2>/dev/null || sysctl -n machdep.cpu.brand_string 2>/dev/null || true)
key=$("$PY" - "$VERSION" "$cmake_args" "$(uname -sm)" "$cpu" <<'PYEOF'
import hashlib, sys
parts = sys.argv[1:] + ["%d.%d" % sys.version_info[:2]]
print(hashlib.sha256("|".join(parts).encode()).hexdigest()[:12])
PYEOF
)
cache=${PAPERDESK_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/paperdesk/wheels}
house="$cache/llama-cpp-python-$VERSION-$key"

wheel() { ls "$house"/llama_cpp_python-*.whl 2>/dev/null | head -n1; }

if [ "$plan" = 1 ]; then
  echo "flags=$flags"
  echo "cmake_args=$cmake_args"
  echo "house=$house"
  if [ -n "$(wheel)" ]; then echo "action=reuse"; else echo "action=build"; fi
  exit 0
fi

build() {
  echo "paperdesk: building llama-cpp-python $VERSION from source (${flags:-native flags}); 3-8 minutes on 2 cores, once per machine" >&2
  local tmp start
  tmp=$(mktemp -d "$cache/.build.XXXXXX")
  start=$(date +%s)
  CMAKE_ARGS="$cmake_args" pip_ wheel -q --no-deps --no-cache-dir --no-binary llama-cpp-python \
      -w "$tmp" "llama-cpp-python==$VERSION"
  rm -rf "$house"
  mv "$tmp" "$house"   # atomic: a killed build never leaves a half wheelhouse
  echo "paperdesk: llama-cpp-python built in $(( $(date +%s) - start )) s -> $house" >&2
}

# "amx" when the installed library was compiled with AMX kernels (its system
# info lists "AMX_INT8 = 1", from __AMX_INT8__), "clean" otherwise; an import
# failure is an error, never a silent "clean".
amx_state() {
  "$PY" - <<'PYEOF'
import llama_cpp
info = llama_cpp.llama_print_system_info().decode()
print("amx" if "AMX_INT8 = 1" in info else "clean")
PYEOF
}
# (an if-condition suspends set -e, so the import failure is caught by hand)
amx_in() {
  local state
  state=$(amx_state) || { echo "paperdesk: llama_cpp does not import after installing it (see above)" >&2; exit 1; }
  [ "$state" = amx ]
}

mkdir -p "$cache"
[ -n "$(wheel)" ] || build
# The wheel file itself, not a version for pip to find: pip's cache, PIP_FIND_LINKS
# or an index can never substitute another build.  [server] pulls the extras' deps.
pip_ install -q --no-compile "$(wheel)[server]"
if [ -n "$flags" ] && amx_in; then
  # Same version already installed from an older build: pip kept it.
  pip_ install -q --force-reinstall --no-deps "$(wheel)"
  if amx_in; then
    echo "paperdesk: the wheelhouse copy of llama.cpp still holds AMX kernels; rebuilding" >&2
    build
    pip_ install -q --force-reinstall --no-deps "$(wheel)"
    if amx_in; then
      echo "paperdesk: llama.cpp was built with AMX switched off but still reports AMX; see README 'When something goes wrong'" >&2
      exit 1
    fi
  fi
fi
