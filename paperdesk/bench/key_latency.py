"""`paperdesk bench keys`: how long a typed key takes to reach the screen while the model writes.

The real TUI runs headless (Textual's Pilot) with the configured writer over a library holding one paper.
Keys are typed into the command line one every `--interval` seconds, first with nothing running (the
baseline, in the same run), then while the paper's summary is being generated. Each key's latency is from
the key's arrival (queued as a terminal's would be) until the command line holds it and its repaint has
had its turn on the event loop. The
figures: p50 / p95 of each phase, their ratio, and the model's decode rate meanwhile (from the meter
every generation reports to), so a latency bought by starving the model would show.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from paperdesk.bench.common import emit, note
from paperdesk.core.config import Settings

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else 0.0


async def _type_keys(pilot: Any, count: int, interval: float, while_: Any = None) -> list[float]:
    """Type `count` letters into the command line (or fewer, when `while_()` turns false); seconds each."""
    app = pilot.app
    line = app.command_line.input
    line.value = ""
    await pilot.press("colon")  # the command line, whatever pane has the focus
    out: list[float] = []
    for i in range(count):
        if while_ is not None and not while_():
            break
        letter = LETTERS[i % len(LETTERS)]
        expected = line.value + letter
        start = time.perf_counter()
        app.simulate_key(letter)  # as a terminal's key arrives: queued to the app, no waiting for idle
        while line.value != expected:
            await asyncio.sleep(0.0005)
        await asyncio.sleep(0)  # the repaint the change scheduled runs on the next turn of the loop
        out.append(time.perf_counter() - start)
        await asyncio.sleep(max(0.0, interval - out[-1]))
    line.value = ""
    return out


async def _measure(settings: Settings, pdf: Path, keys: int, interval: float) -> dict[str, Any]:
    from paperdesk.core.llm.meter import METER
    from paperdesk.tui.app import PaperDeskApp

    app = PaperDeskApp(settings, cursor_blink=False)
    async with app.run_test(size=(160, 48)) as pilot:
        while app.desk is None or app.busy:
            await pilot.pause(0.1)
        note("adding the paper; keys are typed once its summary's generation runs ...")
        app.submit(f"add {pdf}")  # the paper, then its summary draft: minutes of generation
        deadline = time.monotonic() + 600
        while not (METER.read().live and METER.read().tokens >= 2) and time.monotonic() < deadline:
            await pilot.pause(0.05)  # typing starts once the model decodes (its prompt is read)
        rates: list[float] = []
        live: list[bool] = []

        def generating() -> bool:
            reading = METER.read()
            live.append(reading.live)
            if reading.live and reading.rate > 0:
                rates.append(reading.rate)
            return app.busy

        busy = await _type_keys(pilot, keys, interval, generating)
        note(f"generating: {len(busy)} keys typed; stopping the summary, then the same with nothing running ...")
        await pilot.press("escape", "escape")  # the line first, then the work
        while app.busy:
            await pilot.pause(0.2)
        idle = await _type_keys(pilot, keys, interval)
    return {"idle": idle, "generating": busy, "rates": rates, "live": sum(live[:len(busy)])}


def run(args: argparse.Namespace, settings: Settings) -> int:
    import paperdesk

    pdf = args.pdf or (Path(paperdesk.__file__).resolve().parent.parent / "tests" / "fixtures" / "papers" /
                       "2304.02623v1.pdf")
    with tempfile.TemporaryDirectory(prefix="paperdesk-keys-") as home:
        local = settings.with_overrides(home=home, offline=True)
        figures = asyncio.run(_measure(local, Path(pdf), args.keys, args.interval))
    report: dict[str, Any] = {"keys": args.keys, "interval_s": args.interval}
    lines = []
    for phase in ("idle", "generating"):
        values = [v * 1000 for v in figures[phase]]
        report[phase] = {"keys": len(values), "p50_ms": round(percentile(values, 0.5), 1),
                         "p95_ms": round(percentile(values, 0.95), 1), "max_ms": round(max(values, default=0), 1)}
        r = report[phase]
        lines.append(f"{phase:>10}: {r['keys']} keys, key to screen p50 {r['p50_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms,"
                     f" max {r['max_ms']:.1f} ms")
    if report["idle"]["p95_ms"]:
        report["p95_ratio"] = round(report["generating"]["p95_ms"] / report["idle"]["p95_ms"], 2)
        lines.append(f"generating / idle p95: {report['p95_ratio']:.2f}x")
    report["keys_while_model_ran"] = figures["live"]
    lines.append(f"keys typed while a generation was under way: {figures['live']} of {report['generating']['keys']}")
    rates = figures["rates"]
    report["decode_tok_s"] = round(statistics.median(rates), 1) if rates else None
    lines.append(f"model decode meanwhile: {report['decode_tok_s'] or '-'} tok/s (median of the meter's readings)")
    emit(report, args.json, lines)
    return 0
