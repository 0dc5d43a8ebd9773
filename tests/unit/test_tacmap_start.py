"""scripts/tacmap-start, the README's first command: it stops with a clear sentence on a Python older than 3.11,
before it makes or installs anything (tests/e2e/test_readme_first_command.py runs it whole with Debian's Python, to the first drags)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "tacmap-start"


def _run_as(version: tuple, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """The script run by a Python that says it is VERSION, with its venv in tmp_path."""
    code = (f"import runpy, sys; sys.version_info = {version!r}; sys.argv = ['tacmap-start', *{list(args)!r}]; "
            f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "TACMAP_VENV": str(tmp_path / "venv")})


@pytest.mark.parametrize("args", [(), ("--setup", "test"), ("list",)])
def test_an_older_python_is_told_what_to_do_and_nothing_is_made(tmp_path, args):
    done = _run_as((3, 10, 12, "final", 0), tmp_path, *args)
    assert done.returncode == 1
    assert "tacmap needs Python 3.11 or newer; this is Python 3.10" in done.stderr
    assert "run this script with it" in done.stderr
    assert not (tmp_path / "venv").exists()


def test_the_script_reads_on_old_pythons_up_to_its_version_check():
    """No syntax newer than Python 3.6 before the check can speak (no f-strings' = or walrus), so a 3.8 or 3.9
    says "needs 3.11" rather than a SyntaxError: compiled here with the feature_version of 3.6."""
    import ast

    ast.parse(SCRIPT.read_text(), feature_version=(3, 6))


def test_a_python_without_venv_support_is_told_the_package_to_install(tmp_path):
    """Debian and Ubuntu's python3 without python3-venv has no ensurepip: the script stops with the exact apt line
    (as root with Debian's own /usr/bin/python3 it installs the package instead; this Python is not that one)."""
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "ensurepip.py").write_text("raise ImportError('no ensurepip here, as on Debian without python3-venv')\n")
    done = subprocess.run([sys.executable, str(SCRIPT), "--setup"], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(fake), "TACMAP_VENV": str(tmp_path / "venv")})
    assert done.returncode == 1
    assert "cannot make a virtual environment" in done.stderr
    version = "{}.{}".format(*sys.version_info[:2])
    if Path("/etc/debian_version").exists():
        assert f"sudo apt install python{version}-venv" in done.stderr
    else:
        assert "install a Python that includes it" in done.stderr
    assert not (tmp_path / "venv").exists()


def test_a_folder_that_is_not_a_virtual_environment_is_left_alone(tmp_path):
    """TACMAP_VENV naming a folder of something else: the script says so and removes nothing."""
    other = tmp_path / "papers"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    done = subprocess.run([sys.executable, str(SCRIPT), "--setup"], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "TACMAP_VENV": str(other)})
    assert done.returncode == 1 and "is not a virtual environment" in done.stderr
    assert (other / "notes.txt").read_text() == "keep me"


def _script_functions() -> dict:
    import runpy

    return runpy.run_path(str(SCRIPT), run_name="tacmap_start")


def test_the_script_names_itself_as_its_user_typed_it():
    """What it tells tacmap ($TACMAP_LAUNCHER, webapp/launch.py): "python3 scripts/tacmap-start" on POSIX,
    "py -3 scripts\\tacmap-start" on Windows (#71)."""
    script = _script_functions()
    posix = script["launcher"]("scripts/tacmap-start", windows=False)
    assert posix.startswith("python") and posix.endswith(" scripts/tacmap-start"), posix
    assert script["launcher"]("scripts/tacmap-start", windows=True) == "py -3 scripts\\tacmap-start"
    assert script["launcher"]("my tacmap/scripts/tacmap-start", windows=False).endswith(
        " 'my tacmap/scripts/tacmap-start'")


def test_the_script_runs_every_command_of_tacmap():
    """Each subcommand of webapp/cli.py goes to it as a command (not as serve's options), so every command its
    messages name works through the script (#71)."""
    import argparse

    from webapp import cli

    parser = argparse.ArgumentParser()
    cli.add_data_commands(parser.add_subparsers())
    names = {"serve", "import-map", *parser._subparsers._group_actions[0].choices}
    assert set(_script_functions()["COMMANDS"]) == names


def test_the_script_tells_tacmap_how_it_was_started(tmp_path):
    """The script run as a README user runs it: tacmap (here a stand-in for the venv's Python) gets
    $TACMAP_LAUNCHER, serve before options alone, and a command as it is."""
    import hashlib

    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text('#!/bin/sh\necho "$TACMAP_LAUNCHER|$*"\n')
    python.chmod(0o755)
    digest = hashlib.sha256((SCRIPT.parents[1] / "pyproject.toml").read_bytes()).hexdigest()
    (venv / "tacmap-installed").write_text(digest + "\n")  # installed already: no pip here
    env = {"PATH": "/usr/bin:/bin", "TACMAP_VENV": str(venv)}
    for args, then in [(["--port", "5001"], "serve --port 5001"), (["room-password"], "room-password"),
                       (["migrate-data", "a", "b"], "migrate-data a b")]:
        done = subprocess.run([sys.executable, "scripts/tacmap-start", *args], cwd=SCRIPT.parents[1],
                              capture_output=True, text=True, timeout=60, env=env)
        assert done.returncode == 0, done.stderr
        launcher, argv = done.stdout.strip().split("|")
        assert launcher.startswith("python") and launcher.endswith(" scripts/tacmap-start"), launcher
        assert argv.endswith("sys.exit(main()) " + then), argv
