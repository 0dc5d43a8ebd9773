"""A merged seat's old command is not done again (#57): a phone whose player the GM merged into another sends a
command again with its id (it did not hear the answer, then reconnected): it is answered with its first answer,
over the socket and over the API, and the log is as it was. The same id from the kept seat's own device is that
device's own command."""

from __future__ import annotations

from tests.helpers import bearer, command, connect, join, new_game, state


def merged_table(client):
    """A game where Mira's phone rolled and moved (with ids), then the GM merged Mira into Theo."""
    g = new_game(client, "plain_grid", name="Merged")
    mira, theo = join(client, g, "Mira"), join(client, g, "Theo")
    token = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1,
                        "owner": mira["player_id"]}, headers=bearer(g["gm_token"])).json["id"]
    return g, mira, theo, token


def test_a_command_sent_again_after_its_seat_was_merged_is_not_done_twice(app, client):
    g, mira, theo, token = merged_table(client)
    phone = connect(app, g["id"], mira["player_token"])
    moved = phone.emit("command", {"type": "move_token", "token_id": token, "x": 2, "y": 1, "cid": "ph.1.7"},
                       callback=True)
    assert moved["ok"], moved
    rolled = command(client, g, {"type": "roll", "expr": "1d20+3", "cid": "ph.1.8"}, mira["player_token"])
    assert rolled.status_code == 200, rolled.json
    assert command(client, g, {"type": "merge_players", "player_id": mira["player_id"],
                               "into": theo["player_id"]}).status_code == 200
    # the GM moves the token on: the phone's old move, sent again, must not move it back
    assert command(client, g, {"type": "move_token", "token_id": token, "x": 5, "y": 5}).status_code == 200
    before = state(client, g)
    again = connect(app, g["id"], mira["player_token"])  # the phone reconnects: its key opens Theo's seat now
    second = again.emit("command", {"type": "move_token", "token_id": token, "x": 2, "y": 1, "cid": "ph.1.7"},
                        callback=True)
    assert second == {**moved, "repeat": True}
    rolled_again = command(client, g, {"type": "roll", "expr": "1d20+3", "cid": "ph.1.8"}, mira["player_token"])
    assert rolled_again.status_code == 200 and rolled_again.json == {**rolled.json, "repeat": True}
    after = state(client, g)
    assert after["seq"] == before["seq"] and after["log"] == before["log"]
    assert [(t["x"], t["y"]) for t in after["tokens"]] == [(5, 5)]
    # a new id from that phone is a new command; Theo's own device's ids are its own
    assert command(client, g, {"type": "roll", "expr": "1d4", "cid": "ph.1.9"}, mira["player_token"]).json["seq"] \
        == before["seq"] + 1
    own = command(client, g, {"type": "roll", "expr": "1d4", "cid": "th.1.1"}, theo["player_token"]).json
    assert "repeat" not in own and own["seq"] == before["seq"] + 2
