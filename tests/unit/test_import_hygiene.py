"""The core stays headless: importing all of it must not pull in Textual or load models."""

import subprocess
import sys

CHECK = """
import pkgutil, importlib, sys
import paperdesk.core
for mod in pkgutil.walk_packages(paperdesk.core.__path__, "paperdesk.core."):
    importlib.import_module(mod.name)
import paperdesk.cli
bad = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "sentence_transformers", "torch", "llama_cpp"))
print(",".join(bad))
"""


def test_core_imports_no_textual_and_loads_no_model():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
