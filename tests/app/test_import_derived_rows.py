"""What `tacmap import` derives from the log rather than takes from the file (#57): the command ids (a row of the
file for no event of its log, or dated in the future, would answer that seat's command with the file's JSON and
never do it) and the replay's checkpoints (a short game's, not folded again on import, were the replay's truth)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
import zipfile

from tests.helpers import bearer, join, new_game
from webapp import create_app
from webapp.cli import main as tacmap
from webapp.game.views import replay_view
from webapp.storage import history as kept_folds

FUTURE = 4102444800.0  # 2100


def new_app(folder):
    return create_app({"DATA_DIR": str(folder), "TESTING": True, "SECRET_KEY": "test", "DEMO": False})


def rewrite(game_file, change) -> None:
    """The game file with ``change(manifest, members)`` applied (members: name -> bytes), its checksums and
    counts made right again, as a forger would."""
    with zipfile.ZipFile(game_file) as z:
        members = {name: z.read(name) for name in z.namelist()}
    manifest = json.loads(members.pop("manifest.json"))
    change(manifest, members)
    manifest["tables"] = {name[len("tables/"):-len(".jsonl")]: len(data.decode().splitlines())
                          for name, data in members.items() if name.startswith("tables/")}
    manifest["files"] = [{"path": name[len("files/"):], "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
                         for name, data in members.items() if name.startswith("files/")]
    with zipfile.ZipFile(game_file, "w") as z:
        z.writestr("manifest.json", json.dumps(manifest))
        for name, data in members.items():
            z.writestr(name, data)


def test_the_files_command_ids_are_only_those_of_its_log_and_none_is_newer_than_the_import(tmp_path):
    there, here = tmp_path / "there", tmp_path / "here"
    first = new_app(there)
    c = first.test_client()
    g = new_game(c, "plain_grid", name="Forged ids")
    mira = join(c, g, "Mira")
    url, phone = f"/api/games/{g['id']}/commands", bearer(mira["player_token"])
    rolled = c.post(url, json={"type": "roll", "expr": "1d20", "cid": "ph.1.1"}, headers=phone)
    assert rolled.status_code == 200, rolled.json
    game_file = tmp_path / "game.tacmap"
    assert tacmap(["export", g["id"], str(game_file), "--data-dir", str(there)]) == 0
    seat = f"player:{mira['player_id']}"

    def forge(manifest, members):
        rows = [json.loads(line) for line in members["tables/commands.jsonl"].decode().splitlines()]
        assert [r["cid"] for r in rows] == ["ph.1.1"]
        rows += [{"seat": seat, "cid": "ph.1.2", "seq": 999, "answer": json.dumps({"forged": True}),
                  "created_at": FUTURE},  # no such event: the phone's next roll would never be rolled
                 {"seat": seat, "cid": "ph.1.0", "seq": rolled.json["seq"], "answer": json.dumps({"forged": True}),
                  "created_at": FUTURE}]  # an event of the log, dated in 2100: kept for ever
        members["tables/commands.jsonl"] = "".join(json.dumps(r) + "\n" for r in rows).encode()

    rewrite(game_file, forge)
    assert tacmap(["import", str(game_file), "--data-dir", str(here)]) == 0
    app = new_app(here)
    c = app.test_client()
    head = app.extensions["tacmap"].store.last_seq(g["id"])
    again = c.post(url, json={"type": "roll", "expr": "1d20", "cid": "ph.1.1"}, headers=phone)
    assert again.json == {**rolled.json, "repeat": True}  # the log's own: still a repeat
    new = c.post(url, json={"type": "roll", "expr": "1d20", "cid": "ph.1.2"}, headers=phone)
    assert new.status_code == 200 and "forged" not in new.json and new.json["seq"] == head + 1  # rolled
    db = sqlite3.connect(here / "tacmap.sqlite3")
    try:
        dates = db.execute("SELECT cid, created_at FROM commands WHERE game_id = ?", (g["id"],)).fetchall()
    finally:
        db.close()
    assert all(at <= time.time() for _cid, at in dates), dates  # the one dated 2100 is as old as its event


def test_a_short_games_replay_is_folded_from_its_log_not_taken_from_the_file(tmp_path, monkeypatch):
    there, here = tmp_path / "there", tmp_path / "here"
    first = new_app(there)
    c = first.test_client()
    g = new_game(c, "plain_grid", name="Forged replay")
    gm = bearer(g["gm_token"])
    aria = c.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1}, headers=gm).json["id"]
    for i in range(8):
        assert c.post(f"/api/games/{g['id']}/commands", json={"type": "move_token", "token_id": aria, "x": 2 + i,
                                                              "y": 1}, headers=gm).status_code == 200
    store = first.extensions["tacmap"].store
    head = store.last_seq(g["id"])
    assert head < replay_view.CHECKPOINT_EVERY  # a short game: an import folds nothing of its own
    with monkeypatch.context() as m:  # checkpoints every 5 events there (a genuine kept fold, to forge)
        m.setattr(replay_view, "CHECKPOINT_EVERY", 5)
        assert kept_folds.fold_and_keep(there, g["id"], store.events(g["id"])) == 5 * (head // 5)
    at = 5 * (head // 5)
    game_file = tmp_path / "game.tacmap"
    assert tacmap(["export", g["id"], str(game_file), "--data-dir", str(there)]) == 0

    def forge(manifest, members):
        name = f"files/replay/{at}.json"
        kept = json.loads(members[name])
        for token in kept["state"]["tokens"]:
            token["x"], token["y"], token["name"] = 20, 12, "Forged"
        members[name] = json.dumps(kept).encode()

    rewrite(game_file, forge)
    assert tacmap(["import", str(game_file), "--data-dir", str(here)]) == 0
    assert kept_folds.load_checkpoints(here, g["id"]) is None  # nothing of the file's fold is kept
    app = new_app(here)
    hub = app.extensions["tacmap"]
    r = app.test_client().post(f"/api/games/{g['id']}/commands", json={"type": "replay", "at": at}, headers=gm)
    assert r.status_code == 200, r.json
    state = hub.replays.history(g["id"]).state_at(at).to_dict()
    assert state == kept_folds.game_at(g["id"], hub.store.events(g["id"]), at).to_dict()
    assert [(t["name"], t["x"]) for t in state["tokens"]] == [("Aria", at - 1)]
