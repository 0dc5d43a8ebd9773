"""The README's first command, on a fresh copy, with Debian's own Python, played as a new GM plays it (issues #34
and #71): `python3 scripts/tacmap-start` makes a .venv (Debian's Python refuses `pip install` into itself, PEP
668), installs tacmap into it and serves; then a real browser takes the user's path. The GM opens the GM link the
console printed, a phone (touch, at a LAN name: not a secure context) joins with the join code the console
printed, the TV opens the table screen from the GM page; the GM drags a token and every screen has it within a
second, the GM's token never "not answered"; the GM gives the phone a token and the phone drags it; Ctrl-C stops
the server and the same command starts it again, the moves still there, with no new install.

Every other browser test starts its servers through the same entry (tests/e2e/conftest.py); this one is the
user's whole path, from the README's words to the last drag: before #71 the script served without gevent's patch,
every Socket.IO answer took 10 s, and only this kind of test could see it. pip's cache is used (the registry is
reachable)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect
from test_live_table import cell_center, drag
from test_table_screens import touch_drag

from conftest import LAN_NAME, SERVER_GONE
from tests.helpers import free_port

REPO = Path(__file__).resolve().parents[2]
DEBIAN_PYTHON = "/usr/bin/python3"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
SOON = 1000  # ms: a move on every screen within a second

pytestmark = [
    pytest.mark.serial,  # pip installs for ~30 s: alone, after the other browser tests
    pytest.mark.timeout(420),
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


def _env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME") and not k.startswith("TACMAP_")}
    env["PATH"] = "/usr/bin:/bin:/usr/sbin:/sbin"  # a fresh Debian: its own python3, none of pyenv's
    env["XDG_DATA_HOME"] = str(home / "share")  # should tacmap fall back to the user's folder: not the real one
    return env


class Started:
    """The README's first command in the copy, as README writes it, on a free port; what it printed."""

    def __init__(self, app: Path, port: int, log: Path, env: dict) -> None:
        first = re.search(r"```sh\n([^#\n]+?)\s+#", (app / "README.md").read_text()).group(1).split()
        assert first == ["python3", "scripts/tacmap-start"], first
        # the README's command with Debian's python3; a phone reaches the laptop by a LAN name (tests/e2e/conftest)
        self.command = [DEBIAN_PYTHON, *first[1:], "--port", str(port), "--allowed-host", LAN_NAME]
        self.log, self.port = log, port
        self.skip = log.stat().st_size if log.exists() else 0
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(self.command, cwd=app, env=env, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        deadline = time.time() + 240
        while "Players join at" not in self.text():
            assert self.proc.poll() is None and time.time() < deadline, self.text()
            time.sleep(0.3)

    def text(self) -> str:
        return self.log.read_bytes()[self.skip:].decode(errors="replace")

    def banner(self) -> list[tuple[str, str, str]]:
        """(name, join code, GM link) of each "GM link for ..." line."""
        return re.findall(r"^GM link for '([^']+)' \(join code (\w+)\): (\S+)$", self.text(), re.M)

    def ctrl_c(self) -> int:
        os.killpg(self.proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends: the script became tacmap itself
        return self.proc.wait(30)

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


def _on(origin: str, link: str) -> str:
    """LINK's path and query at ORIGIN (the console's links name the laptop's LAN address, which a test may not
    reach: the GM's browser on the laptop opens it at localhost, a phone and the TV at the LAN name)."""
    parts = urlsplit(link)
    return f"{origin}{parts.path}" + (f"?{parts.query}" if parts.query else "")


def _settled(page, token: str, x: int, y: int):
    """The token at (x, y) and answered (no longer pending), on PAGE's map."""
    return expect(page.locator(f'#map #token-{token}[data-x="{x}"][data-y="{y}"]:not(.pending)'))


@pytest.mark.console_errors(*SERVER_GONE, why="the test stops the server it started while its pages are still open")
def test_readme_first_command_serves_a_table_that_answers(tmp_path, new_page, shot):
    assert Path(DEBIAN_PYTHON).exists(), "Debian's python3 package is not installed"
    app = tmp_path / "tacmap"
    _fresh_copy(app)
    assert (app / "scripts" / "tacmap-start").is_file() and not (app / ".venv").exists()
    assert not (app / "tacmap-data").exists()
    env = _env(tmp_path)

    # the premise: Debian's Python will not take packages itself
    refused = subprocess.run([DEBIAN_PYTHON, "-m", "pip", "install", "--dry-run", "flask"], cwd=app, env=env,
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "externally-managed-environment" in refused.stderr + refused.stdout

    port = free_port()
    log = tmp_path / "start.log"
    served = Started(app, port, log, env)
    try:
        text = served.text()
        assert "making a virtual environment" in text and "tacmap is serving" in text
        assert f"http://localhost:{port}/" in text  # the laptop's own address, among those printed
        # the server runs from the copy, in the copy's own .venv, on Debian's Python, its data in the copy
        venv_python = app / ".venv" / "bin" / "python"
        where = subprocess.run([str(venv_python), "-c", "import sys, webapp; print(webapp.__file__); "
                                "print(sys.base_prefix)"], cwd=tmp_path, capture_output=True, text=True, check=True)
        module, base = where.stdout.split()
        assert Path(module).resolve().is_relative_to(app.resolve()) and base == "/usr"
        assert (app / "tacmap-data").is_dir()

        name, code, gm_link = served.banner()[0]  # the first game the console names: the demo outpost
        laptop, lan = f"http://localhost:{port}", f"http://{LAN_NAME}:{port}"

        # the GM opens the GM link the console printed, on the laptop
        gm = new_page({"width": 1440, "height": 900})
        gm.goto(_on(laptop, gm_link))
        expect(gm.locator("#conn.ok")).to_be_visible()
        expect(gm.locator("h1.game-name")).to_contain_text(name)

        # a phone on the Wi-Fi opens the address, types the join code the console printed and a name
        phone = new_page(**PHONE)
        phone.goto(lan + "/")
        assert phone.evaluate("window.isSecureContext") is False  # as at a real table over plain HTTP
        phone.get_by_role("textbox", name="Join code").fill(code)
        phone.get_by_role("textbox", name="Your name").fill("Mira")
        phone.get_by_role("button", name="Join").tap()
        expect(phone.locator("#conn.ok")).to_be_visible()
        expect(gm.locator("#players .player.online")).to_contain_text("Mira")

        # the TV opens the table screen from the GM page's link
        tv = new_page({"width": 1920, "height": 1080})
        tv.goto(_on(lan, gm.locator("#screen-link").get_attribute("href")))
        expect(tv.locator("#conn.ok")).to_be_attached()

        key = re.search(r"key=([\w-]+)", gm_link).group(1)
        game_id = re.search(r"/games/(\w+)/gm", gm_link).group(1)

        def state() -> dict:
            request = urllib.request.Request(f"{laptop}/api/games/{game_id}/state",
                                             headers={"Authorization": f"Bearer {key}"})
            with urllib.request.urlopen(request, timeout=10) as r:
                return __import__("json").loads(r.read())

        tokens = {t["name"]: t for t in state()["tokens"]}
        goblin, aria = tokens["Goblin"]["id"], tokens["Aria"]["id"]
        for page in (gm, phone, tv):
            expect(page.locator(f"#map #token-{goblin}")).to_be_attached()

        # the GM drags the goblin one square: every screen has it within a second, and the GM's drop is answered
        before = (tokens["Goblin"]["x"], tokens["Goblin"]["y"])
        to = (before[0] + 1, before[1] + 1)
        drag(gm, goblin, to)
        for page in (gm, tv, phone):
            _settled(page, goblin, *to).to_be_attached(timeout=SOON)
        expect(gm.locator("#flash")).not_to_contain_text("did not answer")

        # the GM gives Aria to the phone: the phone may move it at once
        row = gm.locator(f"#row-{aria}")
        row.locator("select[name=owner]").select_option(label="Mira")
        row.locator("button", has_text="Save").click()
        expect(phone.locator(f"#map #token-{aria}.movable")).to_be_attached(timeout=SOON)
        expect(gm.locator("#flash")).not_to_contain_text("did not answer")

        # the phone drags it with a finger: the GM and the TV have it within a second
        phone.locator(f"#map #token-{aria}").scroll_into_view_if_needed()
        start = (tokens["Aria"]["x"], tokens["Aria"]["y"])
        there = (start[0] + 2, start[1])
        touch_drag(phone, cell_center(phone, *start), cell_center(phone, *there))
        for page in (phone, gm, tv):
            _settled(page, aria, *there).to_be_attached(timeout=SOON)
        expect(phone.locator("#flash")).not_to_contain_text("did not answer")
        shot(gm, "readme-first-command-gm")
        shot(phone, "readme-first-command-phone")
        shot(tv, "readme-first-command-tv")

        # Ctrl-C stops it
        assert served.ctrl_c() == 0, served.text()
    finally:
        served.kill()

    # the same command again: no new install, the moves still there, the pages back to a live table
    again = Started(app, port, log, env)
    try:
        assert "installing" not in again.text() and "making a virtual environment" not in again.text()
        assert again.banner()[0][2] == gm_link  # the same game, the same GM link
        kept = {t["name"]: (t["x"], t["y"]) for t in state()["tokens"]}
        assert kept["Goblin"] == to and kept["Aria"] == there, kept
        gm.reload()
        expect(gm.locator("#conn.ok")).to_be_visible()
        _settled(gm, aria, *there).to_be_attached()
        expect(tv.locator("#conn.ok")).to_be_attached(timeout=15000)  # the TV came back by itself
        _settled(tv, goblin, *to).to_be_attached()
        assert again.ctrl_c() == 0, again.text()
    finally:
        again.kill()

    # and the other commands go through the same script, with no new install
    listed = subprocess.run([DEBIAN_PYTHON, "scripts/tacmap-start", "list"], cwd=app, env=env, capture_output=True,
                            text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert "installing" not in listed.stderr and "making a virtual environment" not in listed.stderr
    assert all(game in listed.stdout for game, _code, _link in again.banner()), listed.stdout
