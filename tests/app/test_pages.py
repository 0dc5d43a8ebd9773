"""The pages as a browser without JavaScript gets them, and the package."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import rules

ROOT = Path(__file__).resolve().parents[2]


def test_demo_game_is_ready_on_first_start(hub, demo):
    game = hub.game(demo.id)
    assert (game.board.width, game.board.height) == (24, 16)
    kinds = sorted(t.kind for t in game.tokens.values())
    assert kinds == ["npc"] * 3 + ["pc"] * 3
    assert game.board.doors and game.board.walls and game.board.blocked and game.board.cover_pieces


def test_gm_link_is_remembered_and_dropped_from_the_address(client, hub, demo):
    r = client.get(f"/games/{demo.id}/gm?key={demo.gm_key}")
    assert r.status_code == 302 and r.location.endswith(f"/games/{demo.id}/gm")
    page = client.get(r.location).get_data(as_text=True)
    aria = next(t.id for t in hub.game(demo.id).tokens.values() if t.name == "Aria")
    assert 'id="map"' in page and f'data-token-id="{aria}"' in page and demo.join_code in page


def test_pages_refuse_the_wrong_key(client, demo):
    assert client.get(f"/games/{demo.id}/gm").status_code == 403
    assert client.get(f"/games/{demo.id}/gm?key={demo.screen_key}").status_code == 403
    assert client.get(f"/games/{demo.id}/screen?key={demo.gm_key}").status_code == 403
    assert client.get(f"/games/{demo.id}/play").status_code == 302
    assert client.get("/games/nosuch/gm").status_code == 404


def test_joining_with_a_wrong_code_says_so(client):
    r = client.post("/join", data={"code": "ZZZZZZ", "name": "Mira"})
    assert r.status_code == 404 and "No game has that join code" in r.get_data(as_text=True)


def test_joining_without_a_name_says_so(client, demo):
    r = client.post("/join", data={"code": demo.join_code, "name": "   "})
    assert r.status_code == 400 and "a name is needed" in r.get_data(as_text=True)


def test_table_screen_has_a_qr_code_and_no_controls(client, demo):
    page = client.get(f"/games/{demo.id}/screen?key={demo.screen_key}", follow_redirects=True).get_data(as_text=True)
    assert "<svg" in page and "join?code=" + demo.join_code in page
    assert "<form" not in page and "<button" not in page


def test_form_commands_need_a_seat_at_the_table(client, demo):
    r = client.post(f"/games/{demo.id}/commands", data={"type": "show_join", "show": "false"})
    assert r.status_code == 403
    client.get(f"/games/{demo.id}/gm?key={demo.gm_key}")
    assert client.post(f"/games/{demo.id}/commands", data={"type": "show_join", "show": "false"}).status_code == 204
    r = client.post(f"/games/{demo.id}/commands", data={"type": "show_join", "show": "false"})
    assert r.status_code == 422 and "already hidden" in r.get_data(as_text=True)


@pytest.mark.timeout(180)
@pytest.mark.long
def test_a_regular_install_carries_templates_and_static_files(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(ROOT)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("tacmap-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "webapp/_templates/gm.html" in names
    assert "webapp/_templates/help/_layout.html" in names
    assert "webapp/_static/vendor/htmx-2.0.11.min.js" in names
    assert "webapp/_static/js/map.js" in names
    assert "rules/tesseris_ads/__init__.py" in names
    assert "webapp/_translations/de/LC_MESSAGES/messages.po" in names  # the catalogs (#37), compiled at start
    # and the installed app serves them at /static and renders pages
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    check = (
        "import webapp, sys; assert webapp.__file__.startswith(sys.argv[1]), webapp.__file__\n"
        "app = webapp.create_app({'DATA_DIR': sys.argv[2]}); c = app.test_client()\n"
        "for url in ('/static/vendor/htmx-2.0.11.min.js', '/static/js/live.js', '/', '/help/savage_worlds'):\n"
        "    assert c.get(url).status_code == 200, url\n"
        "assert 'Einem Spiel beitreten' in c.get('/?lang=de').get_data(as_text=True)\n"
    )
    subprocess.run([sys.executable, "-c", check, str(site), str(tmp_path / "data")], check=True, cwd=tmp_path,
                   env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})


GRID_SYSTEMS = [s.id for s in rules.systems() if s.board == "grid" and s.id != "plain_grid"]


@pytest.mark.parametrize("system_id", GRID_SYSTEMS)
def test_every_grid_system_sheet_renders_in_the_app_and_escapes_names(client, system_id):
    g = client.post("/api/games", json={"name": "Sheets", "system": system_id}).json
    auth = {"Authorization": f"Bearer {g['gm_token']}"}
    tid = client.post(f"/api/games/{g['id']}/tokens", json={"name": "<script>x</script>", "x": 1, "y": 1},
                      headers=auth).json["id"]
    client.get(g["urls"]["gm"])
    page = client.get(f"/games/{g['id']}/tokens/{tid}/sheet").get_data(as_text=True)
    assert f'id="sheet-{tid}"' in page and "example character" in page
    assert "<script>x</script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page


def test_a_sheet_is_private_to_the_gm_and_the_tokens_player(client, hub, demo):
    aria = next(t.id for t in hub.game(demo.id).tokens.values() if t.name == "Aria")
    assert client.get(f"/games/{demo.id}/tokens/{aria}/sheet").status_code == 404
    client.get(f"/games/{demo.id}/gm?key={demo.gm_key}")
    assert client.get(f"/games/{demo.id}/tokens/{aria}/sheet").status_code == 200
