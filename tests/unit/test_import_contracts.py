"""The architecture as import rules, checked by import-linter (contracts in pyproject.toml): no import circles
between sibling modules or packages at any depth, the faces above the core (the core never imports Textual or a
face), the benchmarks above the CLI they drive. A circle or an upward import fails here with the import named."""

from __future__ import annotations

from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[2]


def test_every_import_contract_is_kept(monkeypatch, capsys) -> None:
    monkeypatch.chdir(ROOT)
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert code == 0, report
    assert "0 broken" in report
