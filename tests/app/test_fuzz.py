"""Random and malformed input at every command type and every route: never a 500, never a crash, a
clear error every time, and a refused command leaves the state (as the GM reads it) byte for byte
as it was. Bounded (a few hundred examples in all) so it runs in well under a minute."""

from __future__ import annotations

import pytest

import json
import re
import tempfile
import typing

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webapp import create_app
from webapp.game.table import COMMAND_MODELS, COMMAND_TYPES

from tests.helpers import let_go

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
INTERNAL = "the server could not do that"  # the socket handler's words for an exception it caught


class Table:
    """One game to fuzz: a GM, a player with a token and a character, a hidden token, a fight-free grid."""

    def __init__(self) -> None:
        self.app = create_app({"DATA_DIR": tempfile.mkdtemp(prefix="tacmap-fuzz-"), "TESTING": True,
                               "SECRET_KEY": "t", "DEMO": False})
        self.client = self.app.test_client()
        g = self.client.post("/api/games", json={"name": "Fuzz", "system": "savage_worlds"}).json
        self.g = g
        self.player = self.client.post(f"/api/games/{g['id']}/players",
                                       json={"join_code": g["join_code"], "name": "Mira"}).json
        self.tokens = [self.add("Aria", 1, 1, owner=self.player["player_id"]), self.add("Goblin", 3, 1),
                       self.add("Nightblade", 9, 9, hidden=True)]
        self.command(g["gm_token"], {"type": "add_character", "name": "Aria", "token_id": self.tokens[0]})
        self.ids = self.tokens + [self.player["player_id"], self.state()["characters"][0]["id"], "door-1"]
        self.keys = [g["gm_token"], self.player["player_token"], g["screen_token"]]
        self.sockets: dict[str, typing.Any] = {}
        self.gm_page, self.player_page = self.app.test_client(), self.app.test_client()
        self.gm_page.get(g["urls"]["gm"])
        self.player_page.get(f"/games/{g['id']}/play?key={self.player['player_token']}")

    def pages_render(self) -> bool:
        """The GM's and the player's pages still load (a stored bad text used to break them for good)."""
        return (self.gm_page.get(f"/games/{self.g['id']}/gm").status_code == 200
                and self.player_page.get(f"/games/{self.g['id']}/play").status_code in (200, 302))

    def add(self, name, x, y, **extra):
        r = self.client.post(f"/api/games/{self.g['id']}/tokens", json={"name": name, "x": x, "y": y, **extra},
                             headers={"Authorization": f"Bearer {self.g['gm_token']}"})
        return r.json["id"]

    def command(self, key, payload, **kw):
        return self.client.post(f"/api/games/{self.g['id']}/commands", headers={"Authorization": f"Bearer {key}"},
                                json=payload, **kw)

    def state(self) -> dict:
        return self.client.get(f"/api/games/{self.g['id']}/state",
                               headers={"Authorization": f"Bearer {self.g['gm_token']}"}).json

    def state_bytes(self) -> bytes:
        return self.client.get(f"/api/games/{self.g['id']}/state",
                               headers={"Authorization": f"Bearer {self.g['gm_token']}"}).data

    def socket(self, key):
        sock = self.sockets.get(key)
        if sock is None or not sock.is_connected():
            sock = self.app.extensions["tacmap_socketio"].test_client(self.app, auth={"game": self.g["id"],
                                                                                      "token": key})
            self.sockets[key] = sock
        return sock


# --- values -----------------------------------------------------------------------------------------------

ODD_TEXT = st.sampled_from(["", " ", "\ud800", "a\udfffb", "\u202eevil", "\u2066x", "\x00", "\x1b[31m", "\n",
                            "<script>alert(1)</script>", "é", "🂡", "x" * 41, "y" * 20_000, "0", "true",
                            "null", "NaN", "1e999", "-1", "t1", "p1", "c1", "%s%n", "../../etc/passwd"])
NUMBERS = st.one_of(st.integers(-3, 30), st.integers(-10**30, 10**30), st.sampled_from([10**18, -10**18, 2**63]),
                    st.floats(allow_nan=False, allow_infinity=False), st.just(2.0))
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, ODD_TEXT, st.text(max_size=30))


def nested(depth: int):
    value: typing.Any = 1
    for i in range(depth):
        value = [value] if i % 2 else {"a": value}
    return value


DEEP = st.integers(10, 200).map(nested)
JSONISH = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                       max_leaves=12)
ANY_VALUE = st.one_of(SCALARS, JSONISH, DEEP)


def field_value(table: Table, annotation) -> st.SearchStrategy:
    """Something for a field: often of its own kind (a real id, a small number), often anything at all."""
    kinds = {a for a in re.findall(r"\b(int|bool|str|list|dict)\b", str(annotation))}
    own = []
    if "str" in kinds:
        own.append(st.sampled_from(table.ids + ["Aria", "2d6", "hold", "nope"]))
    if "int" in kinds:
        own.append(st.integers(-2, 30))
    if "bool" in kinds:
        own.append(st.booleans())
    if "list" in kinds:
        own.append(st.lists(st.sampled_from(table.ids), max_size=4))
    if "dict" in kinds:
        own.append(st.dictionaries(st.sampled_from(["notes", "skills.fighting", "attributes.agility", "x",
                                                    # option keys the rule systems read
                                                    "modifiers", "defense", "called", "aim", "mode", "rof",
                                                    "location", "maneuver", "template", "target", "shots"]),
                                   st.one_of(SCALARS, JSONISH), max_size=3))
    return st.one_of(*own, ANY_VALUE) if own else ANY_VALUE


def payloads(table: Table) -> st.SearchStrategy:
    @st.composite
    def build(draw):
        kind = draw(st.sampled_from(COMMAND_TYPES))
        model = COMMAND_MODELS[kind]
        fields = {name: info for name, info in model.model_fields.items() if name != "type"}
        chosen = draw(st.lists(st.sampled_from(sorted(fields)), unique=True)) if fields else []
        payload = {"type": kind}
        for name in chosen:
            payload[name] = draw(field_value(table, fields[name].annotation))
        extra = draw(st.dictionaries(st.one_of(st.text(max_size=10), ODD_TEXT), ANY_VALUE, max_size=2))
        payload.update({k: v for k, v in extra.items() if k != "type"})
        mangle = draw(st.integers(0, 9))
        if mangle == 0:
            payload.pop("type")
        elif mangle == 1:
            payload["type"] = draw(ANY_VALUE)
        elif mangle == 2:
            return draw(ANY_VALUE)  # not an object at all
        return payload

    return build()


def clear_error(message) -> bool:
    return isinstance(message, str) and message.strip() != "" and INTERNAL not in message


# --- commands over the API and the socket ---------------------------------------------------------------


JUNK = ["\ud800", "\u202e", "<script>", 10**18, -(10**18), "2", True, 2.5, None, [], {}, nested(100), "x" * 20_000]


def check_refusal_or_success(table: Table, payload, answer_status: int, answer: dict, before: bytes) -> bytes:
    """A refusal says why and leaves the state byte for byte as ``before``; a change leaves the pages loading. The
    state as the GM reads it now (the next payload's ``before``: it is read once between two payloads)."""
    assert answer_status in (200, 400, 401, 413, 422), (payload, answer_status, answer)
    now = table.state_bytes()
    if answer_status != 200:
        assert clear_error(answer.get("error")), (payload, answer)
        assert now == before, payload
    elif now != before:
        assert table.pages_render(), payload
    return now


@pytest.fixture(scope="module")
def sweep_table() -> Table:
    """One table for the whole sweep on a test worker, as when the sweep was one test: a new app per command
    type would compile every page template again."""
    return Table()


@pytest.mark.parametrize("kind", COMMAND_TYPES)
def test_every_field_of_every_command_with_each_kind_of_junk(kind, sweep_table):
    """The systematic sweep: each field of each command type set to each kind of junk, over the API and the
    socket as the GM (a player's junk is parsed the same way before the access matrix; the random tests
    below send as players too). One test per command type, so the sweep's 60-odd types spread over the
    test workers instead of taking four minutes on one."""
    table = sweep_table
    sock = table.socket(table.keys[0])
    aria, goblin, _hidden = table.tokens
    mira, character = table.ids[3], table.ids[4]
    valid = {  # a command of each type that could go through: one field at a time is spoilt
        "move_token": {"token_id": aria, "x": 2, "y": 2}, "add_token": {"name": "Imp", "x": 5, "y": 5},
        "update_token": {"token_id": goblin, "name": "Gob"}, "duplicate_token": {"token_id": goblin},
        "remove_token": {"token_id": goblin}, "set_door": {"door_id": "door-1", "closed": False},
        "show_join": {"show": False}, "remove_player": {"player_id": mira},
        "merge_players": {"player_id": mira, "into": mira}, "allow_reclaim": {"allow": False},
        "roll": {"expr": "1d6"}, "set_settings": {"settings": {}}, "start_combat": {"token_ids": [aria, goblin]},
        "set_order": {"order": [aria, goblin]}, "act": {"token_id": aria, "action": "hold"},
        "reach": {"token_id": aria}, "preview_attack": {"attacker": aria, "target": goblin},
        "attack": {"attacker": aria, "target": goblin}, "add_character": {"name": "Cyra"},
        "update_sheet": {"character_id": character, "changes": {"notes": "x"}},
    }
    model = COMMAND_MODELS[kind]
    before = table.state_bytes()
    for name in [n for n in model.model_fields if n != "type"] + ["unknown_field"]:
        for junk in JUNK:
            payload = {"type": kind, **valid.get(kind, {}), name: junk}
            r = table.command(table.keys[0], payload)
            before = check_refusal_or_success(table, payload, r.status_code, r.json or {}, before)
            ack = sock.emit("command", payload, callback=True)
            assert isinstance(ack, dict), (payload, ack)
            before = check_refusal_or_success(table, payload, 200 if ack.get("ok") else 422, ack, before)


def test_random_commands_over_the_api_never_break_the_table():
    table = Table()

    @FUZZ
    @given(data=st.data())
    def run(data):
        payload = data.draw(payloads(table))
        key = data.draw(st.sampled_from(table.keys))
        before = table.state_bytes()
        r = table.command(key, payload)
        check_refusal_or_success(table, payload, r.status_code, r.json or {}, before)

    run()


def test_random_commands_and_previews_over_the_socket_never_break_the_table():
    table = Table()

    @FUZZ
    @given(data=st.data())
    def run(data):
        key = data.draw(st.sampled_from(table.keys))
        sock = table.socket(key)
        if data.draw(st.booleans()):
            event = "command"
            payload = data.draw(payloads(table))
        else:
            event = "preview"
            payload = data.draw(st.one_of(
                st.fixed_dictionaries({"token_id": st.sampled_from(table.ids), "x": field_value(table, int),
                                       "y": field_value(table, int)},
                                      optional={"done": ANY_VALUE, "extra": ANY_VALUE}),
                ANY_VALUE))
        before = table.state_bytes()
        ack = sock.emit(event, payload, callback=True)
        assert isinstance(ack, dict) and isinstance(ack.get("ok"), bool), (event, payload, ack)
        if not ack["ok"]:
            assert clear_error(ack.get("error")), (event, payload, ack)
            assert table.state_bytes() == before, (event, payload)
        if event == "preview":
            assert table.state_bytes() == before  # a preview is never stored

    run()


# --- every route --------------------------------------------------------------------------------------------


@pytest.fixture
def fuzz_table():
    table = Table()
    yield table
    let_go(table.app)  # the forecasts its requests started go no further


def test_every_route_answers_random_input_without_a_server_error(fuzz_table):
    table = fuzz_table
    app = table.app
    rules = [r for r in app.url_map.iter_rules()]
    assert len(rules) > 10
    client = app.test_client()
    client.get(table.g["urls"]["gm"])  # a seat at the table, so the game's routes go past the key check
    game_id = table.g["id"]

    def url_for_rule(data, rule) -> str:
        url = rule.rule
        for arg in rule.arguments:
            value = data.draw(st.one_of(st.just(game_id) if arg == "game_id" else st.sampled_from(table.ids),
                                        st.sampled_from(table.ids + ["help", "x" * 300]),
                                        st.text(alphabet="abcXYZ09-_.%~", min_size=1, max_size=20)))
            url = re.sub(rf"<(?:[^:<>]+:)?{arg}>", value, url)
        return url

    # first each route with each kind of hostile input, then random ones
    hostile = [
        {"data": "[" * 5000 + "]" * 5000, "content_type": "application/json"},
        {"data": '{"name": "\\ud800", "type": "roll", "expr": "\\ud800"}', "content_type": "application/json"},
        {"headers": {"Authorization": "Bearer \u00e9\u00e9"}},
        {"headers": {"Authorization": "Bearer " + "x" * 5000}},
        {"data": {"name": "A\u202eB", "type": "add_token", "x": "1", "y": "1", "code": "\x00"}},
        {"data": b"\xff\xfe" * 10, "content_type": "application/json"},
        {"data": "x" * 300_000, "content_type": "application/json"},
        {"json": {"name": "<script>", "type": "<script>", "map": {"width": 10**9}}},
    ]
    for rule in rules:
        for method in sorted(m for m in rule.methods if m not in ("HEAD", "OPTIONS")):
            url = re.sub(r"<(?:[^:<>]+:)?game_id>", game_id, rule.rule)
            url = re.sub(r"<(?:[^:<>]+:)?\w+>", table.tokens[0], url)
            for kw in hostile:
                r = client.open(url, method=method, **kw)
                assert r.status_code < 500, (method, url, kw.get("headers"), r.status_code, r.data[:300])

    @FUZZ
    @given(data=st.data())
    def run(data):
        rule = data.draw(st.sampled_from(rules))
        methods = sorted(m for m in rule.methods if m not in ("HEAD", "OPTIONS"))
        method = data.draw(st.sampled_from(methods))
        url = url_for_rule(data, rule)
        query = data.draw(st.dictionaries(st.sampled_from(["key", "code", "since", "x"]),
                                          st.text(max_size=20), max_size=2))
        kind = data.draw(st.sampled_from(["none", "json", "form", "raw", "deep"]))
        kw: dict = {"query_string": query}
        if data.draw(st.booleans()):
            kw["headers"] = {"Authorization": f"Bearer {data.draw(st.sampled_from(table.keys + ['', 'é', 'x']))}",
                             "HX-Request": "true"}
        if kind == "json":
            kw["json"] = data.draw(st.one_of(JSONISH, payloads(table)))
        elif kind == "form":
            kw["data"] = data.draw(st.dictionaries(st.sampled_from(["type", "name", "x", "y", "token_id", "expr",
                                                                    "hidden", "code", "system", "notes"]),
                                                   st.one_of(st.text(max_size=20), ODD_TEXT.filter(
                                                       lambda s: "\ud800" not in s and "\udfff" not in s)),
                                                   max_size=5))
        elif kind == "raw":
            kw["data"] = data.draw(st.binary(max_size=200))
            kw["content_type"] = data.draw(st.sampled_from(["application/json", "text/plain",
                                                            "application/x-www-form-urlencoded"]))
        elif kind == "deep":
            kw["data"] = "[" * 5000 + "]" * 5000
            kw["content_type"] = "application/json"
        r = client.open(url, method=method, **kw)
        assert r.status_code < 500, (method, url, kind, r.status_code, r.data[:300])
        if r.status_code >= 400 and r.mimetype == "application/json":
            assert clear_error(r.json.get("error")), (method, url, r.json)

    run()
    # and the table still plays
    assert table.command(table.keys[0], {"type": "roll", "expr": "1d6"}).status_code == 200
    assert json.loads(table.state_bytes())["name"] == "Fuzz"
