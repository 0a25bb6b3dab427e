#!/usr/bin/env bash
# Build llama-cpp-python so it runs on every CPU the build machine can run,
# including x86-64 CPUs that report AMX where the OS does not enable it
# (llama.cpp's -march=native build then compiles AMX kernels that segfault at
# the first matrix multiply).  All other native optimisations stay.
#
# The wheel is built once per (version, flags, python, machine) into our own
# wheelhouse, never taken from pip's cache (a wheel built there earlier without
# the flags would undo the fix), and the installed library is checked: if its
# system info still reports AMX, it is rebuilt from source once more.
#
# usage: scripts/install_llama.sh PYTHON VERSION
set -euo pipefail
PY=${1:?python}
VERSION=${2:?version}
PIP="$PY -m pip --disable-pip-version-check"

flags=""
case "$(uname -m)" in
  x86_64|amd64|i686)
    cc=${CC:-cc}
    if echo 'int main(void){return 0;}' | "$cc" -mno-amx-tile -mno-amx-int8 -mno-amx-bf16 -x c -o /dev/null - 2>/dev/null; then
      flags="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    fi
    ;;
esac
cmake_args="${CMAKE_ARGS:-}"
if [ -n "$flags" ]; then
  cmake_args="$cmake_args -DCMAKE_C_FLAGS='$flags' -DCMAKE_CXX_FLAGS='$flags' -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
fi
pyver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
key=$(printf '%s|%s|%s|%s' "$VERSION" "$cmake_args" "$pyver" "$(uname -sm)" | sha256sum | cut -c1-12)
cache=${PAPERDESK_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/paperdesk/wheels}
house="$cache/llama-cpp-python-$VERSION-$key"

build() {
  echo "paperdesk: building llama-cpp-python $VERSION from source (${flags:-native flags}); 3-8 minutes on 2 cores, once per machine" >&2
  local tmp
  tmp=$(mktemp -d "$cache/.build.XXXXXX")
  start=$(date +%s)
  CMAKE_ARGS="$cmake_args" $PIP wheel -q --no-deps --no-cache-dir --no-binary llama-cpp-python \
      -w "$tmp" "llama-cpp-python==$VERSION"
  rm -rf "$house"
  mv "$tmp" "$house"   # atomic: a killed build never leaves a half wheelhouse
  echo "paperdesk: llama-cpp-python built in $(( $(date +%s) - start )) s -> $house" >&2
}

has_amx() {
  "$PY" - <<'PYEOF'
import sys
import llama_cpp
info = llama_cpp.llama_print_system_info().decode()
sys.exit(0 if ("AMX_INT8 = 1" in info or "AMX = 1" in info) else 1)
PYEOF
}

mkdir -p "$cache"
[ -d "$house" ] && ls "$house"/llama_cpp_python-*.whl >/dev/null 2>&1 || build
install() {
  $PIP install -q --find-links "$house" --only-binary llama-cpp-python "llama-cpp-python[server]==$VERSION"
}
install
if [ -n "$flags" ] && has_amx; then
  echo "paperdesk: the installed llama.cpp still holds AMX kernels; rebuilding" >&2
  build
  $PIP install -q --force-reinstall --no-deps "$house"/llama_cpp_python-*.whl
  if has_amx; then
    echo "paperdesk: llama.cpp was built without AMX flags but still reports AMX; see README 'When something goes wrong'" >&2
    exit 1
  fi
fi
