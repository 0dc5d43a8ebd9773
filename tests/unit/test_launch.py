"""The commands tacmap's messages name are the ones its user has (issue #71, webapp/launch.py): the start script's
(``python3 scripts/tacmap-start``, which serves when no command is named), the ``tacmap`` command's as it was run,
or ``python -m webapp.cli``'s."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from webapp import launch

SCRIPT = "python3 scripts/tacmap-start"


@pytest.fixture
def started(monkeypatch):
    """Start this process as ``argv0`` (and frozen or not), with no $TACMAP_LAUNCHER unless given."""

    def start(argv0: str, launcher: str | None = None, frozen: bool = False):
        monkeypatch.setattr(sys, "argv", [argv0, "serve"])
        if frozen:
            monkeypatch.setattr(sys, "frozen", True, raising=False)
        else:
            monkeypatch.delattr(sys, "frozen", raising=False)
        if launcher is None:
            monkeypatch.delenv(launch.ENV, raising=False)
        else:
            monkeypatch.setenv(launch.ENV, launcher)

    return start


def test_the_start_script_serves_with_options_alone_and_names_the_other_commands(started):
    started("/x/.venv/bin/python", SCRIPT)
    assert launch.by_script()
    assert launch.launcher() == SCRIPT
    assert launch.serve_command() == SCRIPT
    assert launch.serve_command("--port", "5001") == "python3 scripts/tacmap-start --port 5001"
    assert launch.command("serve", "--room") == "python3 scripts/tacmap-start --room"
    assert launch.command("export", "ID", "FILE") == "python3 scripts/tacmap-start export ID FILE"
    assert launch.command("room-password") == "python3 scripts/tacmap-start room-password"
    assert launch.install_command("redis", "pip install redis") == "python3 scripts/tacmap-start --setup redis"


def test_windows_start_script_is_named_as_typed(started):
    started("C:\\Python312\\python.exe", "py -3 scripts\\tacmap-start")
    assert launch.serve_command("--port", "5001") == "py -3 scripts\\tacmap-start --port 5001"


def test_the_tacmap_command_on_the_path_is_tacmap(started, tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tacmap = bin_dir / "tacmap"
    tacmap.write_text("#!/bin/sh\n")
    tacmap.chmod(tacmap.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(bin_dir))
    started(str(tacmap))
    assert not launch.by_script()
    assert launch.serve_command("--port", "5001") == "tacmap serve --port 5001"
    assert launch.command("export", "ID", "FILE") == "tacmap export ID FILE"
    assert launch.install_command("redis", "pip install redis") == "pip install 'tacmap[redis]' (or pip install redis)"


def test_a_tacmap_command_off_the_path_is_named_by_its_path(started, tmp_path, monkeypatch):
    """The venv's own tacmap, run from the checkout: ``.venv/bin/tacmap`` (relative to where it was started)."""
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    monkeypatch.chdir(tmp_path)
    tacmap = tmp_path / ".venv" / "bin" / "tacmap"
    started(str(tacmap))
    assert launch.serve_command("--port", "5001") == f"{Path('.venv/bin/tacmap')} serve --port 5001"
    started(str(tmp_path / "tacmap"), frozen=True)  # the one-file build beside it
    assert launch.command("list") == os.path.join(os.curdir, "tacmap") + " list"


def test_python_m_webapp_cli_is_named_so(started):
    import webapp.cli

    started(webapp.cli.__file__)
    assert launch.launcher().endswith(" -m webapp.cli")
    assert launch.serve_command("--port", "5001").endswith(" -m webapp.cli serve --port 5001")


def test_anything_else_is_tacmap(started):
    started("/usr/lib/python3/site-packages/pytest/__main__.py")
    assert launch.serve_command("--room") == "tacmap serve --room"


@pytest.mark.skipif(os.name == "nt", reason="POSIX quoting")
def test_a_word_with_spaces_is_quoted(started):
    started("x", SCRIPT)
    assert launch.serve_command("--data-dir", "/home/gm/my games") == f"{SCRIPT} --data-dir '/home/gm/my games'"
