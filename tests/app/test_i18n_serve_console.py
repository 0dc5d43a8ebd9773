"""`tacmap serve` speaks the system's language where a catalog has it (issue #37): the real command, started under
a German locale (LANG=de_DE.UTF-8), prints every line of its start in German (the addresses, links and names
are data); under the C locale the same lines are English."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.helpers import free_port

ROOT = Path(__file__).resolve().parents[2]


def serve_lines(tmp_path: Path, locale: str, until: str, seconds: float = 60.0) -> list[str]:
    """The lines `tacmap serve --room` prints at its start under ``LANG=locale``, up to the one holding
    ``until``; the server is stopped then."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update({"LANG": locale, "PYTHONUNBUFFERED": "1"})
    cmd = [sys.executable, "-m", "webapp.entry", "serve", "--host", "127.0.0.1", "--port", str(free_port()),
           "--data-dir", str(tmp_path / f"data-{locale}"), "--room"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    done = threading.Event()

    def read():
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if until in line:
                done.set()
        done.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert done.wait(seconds), f"no {until!r} within {seconds} s: {lines}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return lines


def words(line: str) -> str:
    """A console line without its data: addresses, quoted game names, join codes."""
    line = re.sub(r"https?://\S+", " ", line)
    line = re.sub(r"'[^']*'|/\S+", " ", line)
    return re.sub(r"\b[A-Z0-9]{6}\b", " ", line)


@pytest.mark.long
def test_tacmap_serve_prints_its_start_in_german_under_a_german_locale_and_in_english_under_c(tmp_path):
    german = serve_lines(tmp_path, "de_DE.UTF-8", "Orga-Passwort")
    text = "\n".join(german)
    assert german[0].startswith("tacmap läuft (Daten in "), german
    assert "SL-Link für " in text and "(Beitrittscode " in text
    assert "Spieler treten unter den Adressen oben mit dem Beitrittscode des Spiels bei." in german
    assert any(line.startswith("Raummodus: Die Seite der Orga ist http://127.0.0.1:") for line in german)
    # no English sentence left in what it says (the demo games' names, the addresses and codes are data)
    english = re.compile(r"\b(?:is serving|GM link|join code|Players join|Room mode|organiser|password)\b")
    assert not [line for line in german if english.search(words(line))], german
    c = serve_lines(tmp_path, "C", "organiser password")
    assert c[0].startswith("tacmap is serving (data in ") and "Players join at the addresses above with the game's " \
        "join code." in c, c


def test_the_other_commands_say_their_refusals_in_the_systems_language_too(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env["LANG"] = "de_DE.UTF-8"
    out = subprocess.run([sys.executable, "-m", "webapp.entry", "import-map", "--data-dir", str(tmp_path / "data"),
                          "Nirgendwo", "README.md"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip() == f"tacmap import-map: kein Spiel 'Nirgendwo' in {tmp_path / 'data'} (gib seine ID " \
        "oder seinen Namen an)", out.stderr


def test_import_map_says_why_a_map_is_refused_in_the_systems_language(app, client, tmp_path, monkeypatch, capsys):
    from webapp import cli

    g = client.post("/api/games", json={"name": "Karte", "system": "plain_grid"}).json
    broken = tmp_path / "broken.dd2vtt"
    broken.write_text('{"format": 0.3}')  # a map file with no resolution
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    said = {}
    for lang in ("C", "de_DE.UTF-8"):
        monkeypatch.setenv("LANG", lang)
        monkeypatch.setattr(cli, "_console", None)
        rc = cli.main(["import-map", g["id"], str(broken), "--data-dir", app.config["DATA_DIR"]])
        said[lang] = capsys.readouterr().err.strip()
        assert rc == 1, said
    assert said["C"] == ("tacmap import-map: broken.dd2vtt: not imported: not a Universal VTT file: no resolution "
                         "(map_origin, map_size, pixels_per_grid)"), said
    # the file's own field names (resolution, map_origin...) are data
    assert said["de_DE.UTF-8"].startswith("tacmap import-map: broken.dd2vtt: nicht importiert: keine Universal-VTT-Datei: "), said
