"""Every command a README user is told to type is one they have (issue #71): the README's only command is
``python3 scripts/tacmap-start`` (Windows: ``py -3 scripts\\tacmap-start``), which runs tacmap from the checkout's
.venv and puts no ``tacmap`` on the PATH. So no README line, page, catalog message or ``--help`` text names a bare
``tacmap serve ...`` / ``tacmap export ...``: the messages name the command that started the server
(webapp/launch.py), and the docs the script."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from tests.helpers import GAMES, make_app
from webapp import cli, launch

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = "python3 scripts/tacmap-start"
SUBCOMMANDS = ("serve", "list", "export", "import-map", "import", "backup", "repair", "room-password", "migrate-data")
#: ``tacmap <subcommand>`` as a command to type: not a path's end (``.venv/bin/tacmap serve``, ``./tacmap list``), not
#: the program's name before a colon (``tacmap import-map: no file x``, as ``grep:`` prefixes its complaints)
BARE = re.compile(r"(?<![\w/\\.-])tacmap (?:" + "|".join(SUBCOMMANDS) + r")\b(?![-:])")


def bare(text: str) -> list[str]:
    """The bare commands ``text`` names, each with its words around it (lines joined: a command may wrap)."""
    text = " ".join(text.split())
    return [text[max(0, m.start() - 40):m.end() + 20] for m in BARE.finditer(text)]


def test_the_check_finds_a_bare_command_and_passes_the_ones_a_user_has():
    assert bare("start it with `tacmap serve --open-lobby`")
    assert bare("use tacmap export and\ntacmap import")
    assert bare("run tacmap import-map GAME FILE")
    for fine in ("python3 scripts/tacmap-start --open-lobby", "python3 scripts/tacmap-start export ID FILE",
                 ".venv/bin/tacmap serve --port 5001", "./tacmap list", "tacmap import-map: no file x.dd2vtt",
                 "every tacmap server", "tacmap is serving"):
        assert not bare(fine), fine


def test_the_readme_names_no_bare_command():
    assert bare((ROOT / "README.md").read_text(encoding="utf-8")) == []


def test_no_template_names_a_bare_command():
    found = {str(p.relative_to(ROOT)): bare(p.read_text(encoding="utf-8")) for p in (ROOT / "templates").rglob("*.html")}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_no_message_of_the_catalogs_names_a_bare_command():
    """The msgids of webapp/, templates/ and the scripts, in every domain (what the pages, the console and the
    refusals say, in every language: a translation says what its msgid says)."""
    found = []
    for pot in sorted((ROOT / "translations").glob("*.pot")):
        with pot.open("rb") as f:
            catalog = read_po(f)
        for message in catalog:
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            if any(where.startswith(("webapp/", "templates/", "static/js/")) for where, _line in message.locations):
                found += [(pot.name, hit) for text in ids if text for hit in bare(text)]
    assert found == []


def helps(monkeypatch, capsys) -> dict[str, str]:
    """``--help`` of the command and of each subcommand, unwrapped."""
    monkeypatch.setenv("COLUMNS", "1000")
    out = {}
    for args in [[], *([name] for name in SUBCOMMANDS)]:
        with pytest.raises(SystemExit):
            cli.main([*args, "--help"])
        out[" ".join(args) or "tacmap"] = capsys.readouterr().out
    return out


def test_help_names_the_start_script_when_it_started_tacmap(monkeypatch, capsys):
    monkeypatch.setenv(launch.ENV, SCRIPT)
    texts = helps(monkeypatch, capsys)
    assert {name: bare(text) for name, text in texts.items() if bare(text)} == {}
    assert texts["tacmap"].startswith(f"usage: {SCRIPT} ")
    assert f"({SCRIPT} --port 5001)" in texts["tacmap"] and f"({SCRIPT} list)" in texts["tacmap"]
    assert f"add a game from a file made by {SCRIPT} export" in texts["tacmap"]
    assert f"the game's id ({SCRIPT} list)" in texts["export"]


def test_help_names_the_tacmap_command_as_it_was_run(monkeypatch, capsys, tmp_path):
    """The venv's tacmap, not on the PATH, run from the checkout: its help names it by that path."""
    monkeypatch.delenv(launch.ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    monkeypatch.setattr("sys.argv", [str(tmp_path / ".venv" / "bin" / "tacmap"), "--help"])
    texts = helps(monkeypatch, capsys)
    assert {name: bare(text) for name, text in texts.items() if bare(text)} == {}
    venv_tacmap = str(Path(".venv/bin/tacmap"))
    assert texts["tacmap"].startswith(f"usage: {venv_tacmap} ")
    assert f"{venv_tacmap} serve starts the server" in texts["tacmap"]
    assert texts["serve"].startswith(f"usage: {venv_tacmap} serve ")


def test_the_pages_name_the_start_script_when_it_started_the_server(monkeypatch, tmp_path):
    """Another device's refusal in the lobby (a page and the JSON API), the GM page's 403, the bad-host answer and
    room mode's 404 and login page, from a server the start script started."""
    monkeypatch.setenv(launch.ENV, SCRIPT)
    app = make_app(tmp_path / "data")
    phone = app.test_client()
    phone.environ_base["REMOTE_ADDR"] = "192.168.1.77"
    r = phone.post(GAMES, json={"name": "Mine"})
    assert r.status_code == 403 and r.json["error"].endswith(f"start the server with: {SCRIPT} --open-lobby"), r.json
    r = phone.post("/games", data={"name": "Mine"})
    assert r.status_code == 403 and f"start the server with: {SCRIPT} --open-lobby" in r.get_data(as_text=True)
    game = app.extensions["tacmap"].store.games()[0]
    r = phone.get(f"/games/{game.id}/gm?key=forged")
    assert r.status_code == 403 and f"open it with the GM link that {SCRIPT} printed." in r.get_data(as_text=True)
    r = phone.get("/", headers={"Host": "evil.example"})
    assert r.status_code == 400 and f"Open it at the address {SCRIPT} printed.".encode() in r.get_data()
    r = phone.get("/room")
    assert r.status_code == 404 and f"start it with `{SCRIPT} --room`" in r.get_data(as_text=True)
    room = make_app(tmp_path / "room", ROOM=True).test_client().get("/room").get_data(as_text=True)
    assert f'open the setup link <code translate="no">{SCRIPT} --room</code> printed' in room
