"""Pings are limited per player, not per connection: a player who opens ten sockets (tabs, a script: the most a
seat holds, #72) and pings from each at once flashes the table screen a few times, not ten (issue #33)."""

from __future__ import annotations

import pytest

from webapp.live.server.keyless import PER_SEAT
from tests.helpers import connect

pytestmark = pytest.mark.app_config(DEMO=False)


def flashes(screen) -> list[dict]:
    return [m["args"][0] for m in screen.get_received() if m["name"] == "map_ping"]


def test_ten_sockets_of_one_player_flash_the_screen_a_few_times_and_another_player_still_pings(app):
    client = app.test_client()
    g = client.post("/api/games", json={"name": "Pings", "system": "plain_grid"}).json
    mira, theo = (client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": n}).json
                  for n in ("Mira", "Theo"))
    screen = connect(app, g["id"], g["screen_token"])
    tabs = [connect(app, g["id"], mira["player_token"]) for _ in range(PER_SEAT)]  # the most one seat holds (#72)
    assert all(tab.is_connected() for tab in tabs)
    screen.get_received()
    acks = [tab.emit("map_ping", {"x": 1 + i % 5, "y": 1}, callback=True) for i, tab in enumerate(tabs)]
    assert sum(a["ok"] for a in acks) == 3, acks  # the same 3 a second as one connection gets
    refused = [a for a in acks if not a["ok"]]
    assert all("a few pings a second" in a["error"] for a in refused)
    shown = flashes(screen)
    assert len(shown) == 3 and {m["by"] for m in shown} == {"Mira"}
    # Mira's limit is hers: Theo pings at once, and so does the GM
    theo_phone, gm = connect(app, g["id"], theo["player_token"]), connect(app, g["id"], g["gm_token"])
    assert theo_phone.emit("map_ping", {"x": 2, "y": 2}, callback=True) == {"ok": True}
    assert gm.emit("map_ping", {"x": 3, "y": 2}, callback=True) == {"ok": True}
    assert [m["by"] for m in flashes(screen)] == ["Theo", "GM"]
