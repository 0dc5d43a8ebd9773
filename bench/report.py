"""The one table ``python -m bench`` prints and writes, and the machine it ran on."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

COLUMNS = ("figure", "median", "p99", "reference", "ratio", "target", "met")


@dataclass
class Row:
    figure: str
    median: str = "-"
    p99: str = "-"
    reference: str = "-"
    ratio: str = "-"
    target: str = "-"
    met: str = "-"
    section: bool = False  # a heading row

    def cells(self) -> list[str]:
        if self.section:
            return [f"**{self.figure}**"] + [""] * (len(COLUMNS) - 1)
        return [self.figure, self.median, self.p99, self.reference, self.ratio, self.target, self.met]


def ms(value: float) -> str:
    value = round(value, 6)  # 9.9999999 from CPU clock ticks reads 10.0
    if value >= 100:
        return f"{value:,.0f} ms"
    if value >= 10:
        return f"{value:.1f} ms"
    if value >= 0.1:
        return f"{value:.2f} ms"
    return f"{value:.3f} ms"


def size(n: float) -> str:
    return f"{n / 1024:,.1f} KB" if n >= 1024 else f"{n:,.0f} B"


def ratio(x: float) -> str:
    return f"{x:,.0f}x" if x >= 20 else f"{x:.1f}x" if x >= 1.0 else f"{x:.2f}x"


def met(ok: bool | None) -> str:
    return "-" if ok is None else ("yes" if ok else "no")


def markdown_table(rows: list[Row]) -> str:
    cells = [list(COLUMNS)] + [r.cells() for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLUMNS))]

    def line(c):
        return "| " + " | ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(c, widths))) + " |"

    sep = "|" + "|".join("-" * (w + 1) + (":" if i else "-") for i, w in enumerate(widths)) + "|"
    return "\n".join([line(cells[0]), sep] + [line(c) for c in cells[1:]])


def _cpu_model() -> str:
    try:
        for text in Path("/proc/cpuinfo").read_text().splitlines():
            if text.lower().startswith("model name"):
                return text.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine(started: datetime.datetime, load: tuple[float, float, float], seconds: float, mode: str) -> list[str]:
    repo = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo, capture_output=True, text=True,
                                timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "webapp", "rules", "templates", "bench"],
                               cwd=repo, capture_output=True, text=True, timeout=10).stdout.strip()
        code = commit + (" with local changes" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        code = "unknown"
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    libs = ", ".join(f"{d} {_version(d)}" for d in ("Flask", "Flask-SocketIO", "python-socketio",
                                                     "simple-websocket", "websocket-client", "tcod"))
    return [
        f"- Machine: {_cpu_model()}, {cores} cores ({usable} usable), {platform.system()} {platform.release()}; "
        f"load average at the start {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (a shared machine: expect noise)",
        f"- Python {platform.python_version()} ({platform.python_implementation()}); {libs}",
        f"- Date: {started:%Y-%m-%d %H:%M} UTC; code: {code}; run: `python -m bench{' --quick' if mode == 'quick' else ''}`"
        f" ({mode}), {seconds:.0f} s",
    ]


def document(rows: list[Row], header: list[str]) -> str:
    return "\n".join([
        "# Benchmarks",
        "",
        "Written by `python -m bench` (what each figure means and how it is measured: `bench/README.md`).",
        "Medians and ratios are the figures to quote; no figure is a pass/fail test.",
        "",
        *header,
        "",
        markdown_table(rows),
        "",
    ])
