"""A fresh ``tacmap serve`` compiles every page template in the background, on a native thread, right after it
starts (webapp/live/screens/templating.py ``precompile``): a table's first fog, first attack or first GM page then
finds them compiled, where each first use compiled its template on the loop (20-120 ms each on a small machine,
every table waiting: #69's other table's moves beside a big map's first fog on).

Against a real server with a compiled-templates folder of its own, empty at the start: it fills with every
template the app has, with no page asked for, and the server answers a page meanwhile."""

from __future__ import annotations

import time
import urllib.request

import pytest

from conftest import LiveServer
from tests.helpers import make_app

pytestmark = pytest.mark.own_server  # a folder of compiled templates of its own, empty at the start


def test_a_fresh_server_compiles_every_template_before_any_page_asks(tmp_path, monkeypatch):
    folder = tmp_path / "compiled"
    monkeypatch.setenv("TACMAP_COMPILED_TEMPLATES", str(folder))
    names = make_app(tmp_path / "app", DEMO=False).jinja_env.list_templates()
    live = LiveServer(tmp_path / "data", demo=False)
    live.start()  # (its start asks /help/ once: that page's templates are compiled by it, the rest are not)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(list(folder.glob("*.jinja"))) < len(names):
            with urllib.request.urlopen(live.url + "/help/", timeout=10) as r:
                assert r.status == 200
            time.sleep(0.2)
        assert len(list(folder.glob("*.jinja"))) == len(names) > 50
    finally:
        live.kill()
