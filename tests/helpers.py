"""What the app and browser tests share: an app made for a test, the API's keys, a game made through the API (with
a player, tokens, characters, a fight started: ``game_with``), a command posted with a key (to the app, or to a
live server) and the state read back, a live link, and a free port. Import it as ``from tests.helpers import ...``
(the repository's root is on the path: scripts/test runs ``python -m pytest`` there)."""

from __future__ import annotations

import json
import os
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path

from webapp import create_app
from webapp.live.foes import forecasting

GAMES = "/api/games"

#: the ``tacmap`` command as a user has it: the console script pyproject.toml installs beside this Python (what
#: scripts/tacmap-start runs, through the same webapp.entry). Tests that start a server start it with this, so
#: a start-up difference between the user's command and the tests' (gevent's patch, issue #71) cannot hide.
TACMAP = str(Path(sys.executable).with_name("tacmap.exe" if os.name == "nt" else "tacmap"))


def make_app(data_dir: str | Path, **config):
    """An app for one test, its data in ``data_dir``; ``config`` adds to or overrides the test defaults (``DEMO``
    False for no demo game, ``DICE_SEED`` for known rolls, ``ROOM``, ``DATABASE`` a PostgreSQL URL or None...).
    A wrong password or PIN is answered at once (``WRONG_GUESS_PAUSE`` 0: the limits are what the tests count);
    test_room_lockouts checks the half second a server waits."""
    return create_app({"DATA_DIR": str(data_dir), "TESTING": True, "SECRET_KEY": "test", "WRONG_GUESS_PAUSE": 0,
                       **config})


def let_go(app) -> None:
    """A test's app let go: its forecasts stopped. The app tests run gevent's loop unpatched (``ASYNC_MODE`` gevent by
    default), so a forecast an app started (test_fuzz.py's random requests start 500-run ones) is a greenlet
    that waits for the next test that yields to the loop, and played there: one of test_gevent_serving.py's took
    65 s instead of 1 in a suite's run."""
    forecasting.of(app.extensions["tacmap"]).stop_all()


def bearer(key: str, **more) -> dict:
    """The headers that send a key (the GM's, a player's or the screen's) to the JSON API, with ``more`` headers."""
    return {"Authorization": f"Bearer {key}", **more}


def new_game(client, system: str = "plain_grid", board: dict | None = None, name: str = "Test", **more) -> dict:
    """A game made through the API (its id, keys, join code and links), on ``board`` (the API's ``map``: a size,
    walls...) or the system's default map; ``more`` goes into the request as it is."""
    shape = {"map": board} if board is not None else {}
    r = client.post(GAMES, json={"name": name, "system": system, **shape, **more})
    assert r.status_code == 201, r.get_data(as_text=True)
    return r.json


def join(client, game: dict, name: str) -> dict:
    """A player who joined ``game`` with its join code (their player id and key; 200 when the name was there)."""
    r = client.post(f"{GAMES}/{game['id']}/players", json={"join_code": game["join_code"], "name": name})
    assert r.status_code in (200, 201), r.get_data(as_text=True)
    return r.json


def put_token(client, game: dict, name: str, at, owner: str | None = None, **more) -> str:
    """A token the GM puts on ``game`` (its id): ``at`` a cell ``(x, y)`` or a zone's id; ``owner`` a player's id
    makes it that player's PC; ``more`` goes into the request as it is."""
    where = {"zone": at} if isinstance(at, str) else {"x": at[0], "y": at[1]}
    body = {"name": name, **where, **({"owner": owner, "kind": "pc"} if owner else {}), **more}
    r = client.post(f"{GAMES}/{game['id']}/tokens", json=body, headers=bearer(game["gm_token"]))
    assert r.status_code == 201, r.get_data(as_text=True)
    return r.json["id"]


def start_fight(client, game: dict, ids) -> dict:
    """The fight of the tokens ``ids`` started by the GM; the state's ``combat`` after it (its order, who acts)."""
    r = command(client, game, {"type": "start_combat", "token_ids": list(ids)})
    assert r.status_code == 200, r.get_data(as_text=True)
    return state(client, game)["combat"]


def game_with(client, system: str, board: dict | None, tokens, name: str = "Test", player: str = "Mira",
              sheets: dict | None = None, start: bool = False) -> tuple[dict, dict, dict]:
    """A ``system`` game on ``board`` (``new_game``) that ``player`` joined, with ``tokens`` on it, each
    ``(name, at, theirs)`` (``put_token``'s ``at``; ``theirs`` True for the player's PC) and, when ``sheets`` has
    its name, given that sheet as a character right after (the player's for their PC); the fight of them all
    started with ``start``. (The game, the player, ``{name: token id}``.)"""
    g = new_game(client, system, board, name=name)
    p = join(client, g, player)
    ids = {}
    for token_name, at, theirs in tokens:
        owner = p["player_id"] if theirs else None
        ids[token_name] = put_token(client, g, token_name, at, owner)
        if sheets and token_name in sheets:
            r = command(client, g, {"type": "add_character", "name": token_name, "token_id": ids[token_name],
                                    "sheet": sheets[token_name], **({"owner": owner} if owner else {})})
            assert r.status_code == 200, r.get_data(as_text=True)
    if start:
        start_fight(client, g, ids.values())
    return g, p, ids


def command(client, game: dict, body: dict, key: str | None = None):
    """The answer (a test client's response) to ``body`` posted as a command to ``game`` with ``key``, the GM's
    when none is given."""
    return client.post(f"{GAMES}/{game['id']}/commands", json=body, headers=bearer(key or game["gm_token"]))


def state(client, game: dict, key: str | None = None) -> dict:
    """The game's state as the API gives it to ``key`` (the GM's when none is given)."""
    return client.get(f"{GAMES}/{game['id']}/state", headers=bearer(key or game["gm_token"])).json


def connect(app, game_id: str, key: str, **extra):
    """A live link (Flask-SocketIO's test client) to ``game_id`` with ``key``, as a page opens it; ``extra`` goes
    into its auth (``lang``, ``since``...)."""
    return app.extensions["tacmap_socketio"].test_client(app, auth={"game": game_id, "token": key, **extra})


def live_command(server, game: dict, body: dict, key: str | None = None) -> dict:
    """The answer to ``body`` posted as a command to ``game`` on a live server (tests/e2e's ``LiveServer``) with
    ``key``, the GM's when none is given; the server must accept it."""
    status, answer = server.api("POST", f"{GAMES}/{game['id']}/commands", body, key or game["gm_token"])
    assert status == 200, (body, answer)
    return answer


def api_call(url: str, method: str, path: str, body=None, token: str | None = None, timeout: float = 10,
             headers: dict | None = None):
    """One JSON API request to a served tacmap at ``url`` (a Bearer ``token``, more ``headers``): (status, the JSON
    answer, or its text where it is not JSON)."""
    req = urllib.request.Request(url + path, method=method,
                                 data=json.dumps(body).encode() if body is not None else None, headers=headers or {})
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        answer = e.read()
        try:
            return e.code, json.loads(answer)
        except ValueError:
            return e.code, answer.decode(errors="replace")


def free_port() -> int:
    """A loopback TCP port that was free a moment ago (for a server a test starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def in_another_thread(noted: list, note=lambda work, args, other: (work, other)):
    """A runner for the work sent off the loop (``install(runner)``) that runs it in another native thread, as
    gevent's pool does, and puts ``note(work, args, whether it ran off the caller's thread)`` in ``noted``."""
    import threading

    def runner(work, *args):
        out = []
        t = threading.Thread(target=lambda: out.append(work(*args)))
        t.start()
        t.join()
        noted.append(note(work, args, t.ident != threading.get_ident()))
        return out[0]
    return runner
