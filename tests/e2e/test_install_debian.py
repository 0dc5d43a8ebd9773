"""The README's first command on a fresh copy with Debian's own Python (issue #34): /usr/bin/python3 refuses
`pip install` into itself (PEP 668), so scripts/tacmap-start makes a .venv, installs tacmap into it and serves the
lobby; a second run starts at once from the same .venv. pip's cache is used (the registry is reachable)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import free_port

REPO = Path(__file__).resolve().parents[2]
DEBIAN_PYTHON = "/usr/bin/python3"

pytestmark = [
    pytest.mark.serial,  # pip installs for ~30 s: alone, after the other browser tests
    pytest.mark.timeout(300),
    pytest.mark.skipif(not Path("/etc/debian_version").exists(), reason="checks Debian's own Python"),
]


def _fresh_copy(dest: Path) -> None:
    """The repository's files as a clone has them (tracked, plus new files not ignored), without .venv or data."""
    names = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, names):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = "/usr/bin:/bin:/usr/sbin:/sbin"  # a fresh Debian: its own python3, none of pyenv's
    return env


def test_readme_first_command_installs_and_serves_with_debians_python(tmp_path):
    assert Path(DEBIAN_PYTHON).exists(), "Debian's python3 package is not installed"
    app = tmp_path / "tacmap"
    _fresh_copy(app)
    assert (app / "scripts" / "tacmap-start").is_file() and not (app / ".venv").exists()

    # the premise: Debian's Python will not take packages itself
    refused = subprocess.run([DEBIAN_PYTHON, "-m", "pip", "install", "--dry-run", "flask"], cwd=app, env=_env(),
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "externally-managed-environment" in refused.stderr + refused.stdout

    port = free_port()
    data = tmp_path / "data"
    log = tmp_path / "start.log"
    # the README's first command, as it stands there, with Debian's python3
    first = re.search(r"```sh\n([^#\n]+?)\s+#", (app / "README.md").read_text()).group(1).split()
    assert first[0] == "python3", first
    command = [DEBIAN_PYTHON, *first[1:], "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data)]
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, cwd=app, env=_env(), stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        status = None
        deadline = time.time() + 240
        while time.time() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    status, lobby = r.status, r.read().decode()
                break
            except OSError:
                time.sleep(0.5)
        text = log.read_text()
        assert status == 200, text
        assert "<title>" in lobby and "tacmap" in lobby
        assert "making a virtual environment" in text and "GM link for" in text
        # the server runs from the copy, in the copy's own .venv, on Debian's Python
        venv_python = app / ".venv" / "bin" / "python"
        where = subprocess.run([str(venv_python), "-c", "import sys, webapp; print(webapp.__file__); "
                                "print(sys.base_prefix)"], cwd=tmp_path, capture_output=True, text=True, check=True)
        module, base = where.stdout.split()
        assert Path(module).resolve().is_relative_to(app.resolve()) and base == "/usr"
        proc.send_signal(signal.SIGINT)  # the script became tacmap itself: Ctrl-C stops the server
        assert proc.wait(30) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)

    # again: no new install, and the other commands go through the same script
    again = subprocess.run([DEBIAN_PYTHON, "scripts/tacmap-start", "list", "--data-dir", str(data)], cwd=app,
                           env=_env(), capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "installing" not in again.stderr and "making a virtual environment" not in again.stderr
    served = re.findall(r"^GM link for '([^']+)'", log.read_text(), re.M)
    assert served and all(name in again.stdout for name in served), again.stdout  # the games it served
