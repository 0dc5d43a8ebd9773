"""Play the foes on a hex map (#67), in the browser: a 3d6 fight and a Tesseris fight, each on the GM's page, Mira's
phone (joined from the join page at the LAN name, not a secure context; every press a tap) and the table screen.
Two foes with swords only stand some hexes from Ann, Mira's hero, so no attack reaches her at first; the GM turns
"Play the foes" on by its switch and lets three rounds go. Each foe closes in on Ann, hex by hex nearer at each of
its moves, until it stands beside her, and attacks her; Mira ends her turns and answers each defense the fight asks
of her, by tapping on her phone. The table screen follows every foe's move: its token on the new hex within a second
of the move. Screenshots at round 3: test-artifacts/play-foes-hex-<system>-<gm|phone|tv>.png."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

import rules
from rules.grid import Grid
from test_play_the_foes_live import _answer_on_the_phone, quick_foes  # noqa: F401  (quick_foes: a fixture)
from test_table_screens import PHONE
from test_turns_on_phones import SCREEN, state

from conftest import expect_all

pytestmark = pytest.mark.long  # a whole fight or more: run first (tests/conftest.py)

HEX = Grid("hex", "pointy")
FOES = ("Orc", "Gob")
#: Tesseris's sword (a melee weapon of the rules' own kind; its sample sheet has none with a blade)
TESSERIS_SWORD = {"name": "Sword", "kind": "melee", "skill": "melee", "damage": 6, "ap": 1}
#: each system's map and places: the foes start past what one turn's move and attack reach (a 3d6 Move is the
#: Basic Move, 5 hexes; a Tesseris Sprint six times the Speed, 18 hexes), so they must close in first
TABLES = {"gurps_lite": {"map": {"width": 14, "height": 10}, "Ann": (2, 4), "Orc": (11, 3), "Gob": (11, 6)},
          "tesseris_ads": {"map": {"width": 30, "height": 10}, "Ann": (2, 4), "Orc": (27, 3), "Gob": (27, 6)}}
MOVED = re.compile(rf"^({'|'.join(FOES)}) moved to \((\d+), (\d+)\)$")
ATTACKS = re.compile(rf"^({'|'.join(FOES)})\b.*\bAnn\b")


def _melee(system: str, name: str) -> dict:
    """The system's sample sheet with a sword as its only weapon: no attack reaches from afar."""
    sheet = {**rules.get(system).default_sheet(), "name": name}
    sheet["weapons"] = {"sword": TESSERIS_SWORD} if system == "tesseris_ads" else \
        {"Broadsword": sheet["weapons"]["Broadsword"]}
    return sheet


def _table(server, new_page, system: str):
    """The game on a hex map, Mira's phone joined at the LAN name and her Ann on it, the two foes far off, the
    GM's page and the table screen open, the fight started."""
    spec = TABLES[system]
    status, game = server.api("POST", "/api/games", {"name": f"Foes on hexes {system}", "system": system,
                                                      "map": spec["map"] | {"grid": "hex", "orientation": "pointy"}})
    assert status == 201, game
    gm = new_page(viewport={"width": 1280, "height": 900})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    phone = new_page(**PHONE)
    phone.goto(game["urls"]["join"].replace(server.url, server.lan_url, 1))
    assert phone.evaluate("window.isSecureContext") is False
    phone.fill("input[name=name]", "Mira")
    phone.locator("button", has_text="Join").tap()
    expect(phone.locator("#conn.ok")).to_be_visible()
    mira = next(p["id"] for p in state(server, game)["players"] if p["name"] == "Mira")
    ids = {}
    for name in ("Ann", *FOES):
        x, y = spec[name]
        body = {"name": name, "x": x, "y": y, **({"owner": mira, "kind": "pc"} if name == "Ann" else {})}
        status, made = server.api("POST", f"/api/games/{game['id']}/tokens", body, game["gm_token"])
        assert status == 201, made
        ids[name] = made["id"]
    for foe in FOES:
        status, answer = server.api("POST", f"/api/games/{game['id']}/commands",
                                    {"type": "add_character", "name": foe, "token_id": ids[foe],
                                     "sheet": _melee(system, foe)}, game["gm_token"])
        assert status == 200, answer
    screen = new_page(viewport=SCREEN)
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    for page in (gm, phone, screen):
        expect(page.locator("#map")).to_have_attribute("data-grid", "hex")
        expect(page.locator("#layer-tokens .token")).to_have_count(3)
    status, answer = server.api("POST", f"/api/games/{game['id']}/commands",
                                {"type": "start_combat", "token_ids": list(ids.values())}, game["gm_token"])
    assert status == 200, answer
    for page in (gm, phone, screen):
        expect(page.locator("#combat .turn-order li")).to_have_count(3)
    return game, ids, gm, phone, screen


#: the table screen's watch on its tokens: each time a token's hex (its data-x, data-y) changes, the token, the hex
#: and the time (the page's clock, the test's clock: one machine) are noted in ``window.tvMoves``
WATCH_TOKENS = """() => {
  window.tvMoves = [];
  const last = {};
  const note = () => {
    for (const t of document.querySelectorAll("#layer-tokens .token")) {
      const hex = `${t.dataset.x},${t.dataset.y}`;
      if (last[t.id] !== hex) {
        last[t.id] = hex;
        window.tvMoves.push([t.id, Number(t.dataset.x), Number(t.dataset.y), Date.now() / 1000]);
      }
    }
  };
  note();
  new MutationObserver(note).observe(document.body, {subtree: true, childList: true, attributes: true,
                                                     attributeFilter: ["data-x", "data-y"]});
}"""
#: the first of the table screen's noted moves of a token to a hex, from a place in the list on: its place and time
FIND_MOVE = """([id, x, y, from]) => {
  const i = window.tvMoves.findIndex((m, n) => n >= from && m[0] === id && m[1] === x && m[2] === y);
  return i < 0 ? null : [i, window.tvMoves[i][3]];
}"""


def _tv_follows(screen, token_id: str, to: tuple[int, int], start: int, seen_at: float) -> int:
    """The table screen drew the token on hex ``to`` (a move after its noted move ``start``) within a second of
    the time the test saw the move in the game's state (or before it), by the screen's own note of when it drew it
    (a test slow to ask on a busy machine does not count against the screen); the place of that move in its list."""
    arg = [f"token-{token_id}", to[0], to[1], start]
    try:
        found = screen.wait_for_function(FIND_MOVE, arg=arg, polling=50, timeout=5000).json_value()
    except Exception:  # noqa: BLE001 (never drawn there: where the screen drew it instead, in the failure)
        drawn = screen.locator(f"#token-{token_id}")
        raise AssertionError(f"the table screen never drew {token_id} on {to}: it is at "
                             f"{drawn.get_attribute('data-x')},{drawn.get_attribute('data-y')}") from None
    place, drawn_at = found
    assert drawn_at <= seen_at + 1, f"the table screen drew {token_id} on {to} {drawn_at - seen_at:.2f} s late"
    return place + 1


def _taken(server, game: dict, phone, s: dict) -> None:
    """Wait until the game has moved on from the state ``s`` (the tap's command is in)."""
    for _ in range(50):
        if state(server, game)["seq"] > s["seq"]:
            return
        phone.wait_for_timeout(100)
    raise AssertionError(f"Mira's tap was not taken: {s['log'][-3:]}")


@pytest.mark.parametrize("system", ["gurps_lite", "tesseris_ads"])
def test_play_the_foes_on_hexes_closes_in_and_attacks_for_three_rounds(quick_foes, server, new_page, shot,  # noqa: F811
                                                                       system):
    game, ids, gm, phone, screen = _table(server, new_page, system)
    names = {v: k for k, v in ids.items()}
    ann = TABLES[system]["Ann"]
    seen = state(server, game)["seq"]  # the log's lines are read by seq (the state keeps its last 50)
    screen.evaluate(WATCH_TOKENS)
    tv = {foe: 0 for foe in FOES}  # where in the screen's noted moves each foe's next move is looked for
    # the GM turns the switch on, from the GM's page
    switch = gm.locator("#play-foes")
    expect(switch).to_be_visible()
    expect(gm.get_by_label("Play the foes")).not_to_be_checked()
    switch.check()
    expect(gm.locator("#foe-play .foe-play-status")).to_contain_text("each foe plays its best plan", timeout=10000)
    where = {foe: TABLES[system][foe] for foe in FOES}
    steps = {foe: [HEX.steps(ann, where[foe])] for foe in FOES}  # each foe's hexes to Ann, at each of its moves
    assert all(d[0] > 1 for d in steps.values())
    attacked: dict[str, int] = {}  # each foe's first attack on Ann: how many moves it had made before
    answered: list[str] = []
    ended = 0
    shots = struck = False  # a foe's blow struck in round 3; the screenshots taken then
    deadline = time.monotonic() + 150  # (some 10 s alone; a busy machine is slower)
    while True:
        assert time.monotonic() < deadline, f"three rounds were not played: {state(server, game)['log'][-8:]}"
        s = state(server, game)
        seen_at = time.time()
        assert s["combat"], s["log"][-6:]
        assert s["foe_play"]["on"], (s["foe_play"], [e["text"] for e in s["log"][-6:]])
        for entry in (e for e in s["log"] if e["seq"] > seen):
            text = entry["text"]
            moved = MOVED.match(text)
            if moved:
                foe, to = moved.group(1), (int(moved.group(2)), int(moved.group(3)))
                before, after = steps[foe][-1], HEX.steps(ann, to)
                # a foe not yet beside Ann comes nearer with every move; one beside her stays beside her
                assert after < before or after == before == 1, (foe, where[foe], to, steps[foe])
                where[foe] = to
                steps[foe].append(after)
                # the table screen shows the foe on its new hex within a second
                tv[foe] = _tv_follows(screen, ids[foe], to, tv[foe], seen_at)
            elif (entry.get("detail") or {}).get("attack") and ATTACKS.match(text):  # a blow rolled
                foe = ATTACKS.match(text).group(1)
                struck = struck or s["combat"]["round"] == 3
                attacked.setdefault(foe, len(steps[foe]) - 1)
                assert steps[foe][-1] == 1, (foe, text, steps[foe])  # a sword reaches from the next hex only
        seen = max([seen, *(e["seq"] for e in s["log"])])
        # every hex a foe stands on came by a move the log tells
        here = {names[t["id"]]: (t["x"], t["y"]) for t in s["tokens"] if names.get(t["id"]) in FOES}
        assert here == where, (here, where)
        round_ = s["combat"]["round"]
        if round_ > 3:
            break
        if struck and not shots:
            shots = True  # round 3, a foe's blow just struck: what the GM, Mira and the table see
            phone.wait_for_timeout(300)
            slug = system.replace("_", "-")
            for who, page in (("gm", gm), ("phone", phone), ("tv", screen)):
                shot(page, f"play-foes-hex-{slug}-{who}")
        if _answer_on_the_phone(phone, s, answered, lambda: _taken(server, game, phone, s)):
            continue
        if s["combat"]["current"] == ids["Ann"]:
            bar = phone.locator("#turn-bar button", has_text="End my turn")
            expect(bar).to_be_visible(timeout=10000)
            bar.tap()
            ended += 1
            _taken(server, game, phone, s)
            continue
        gm.wait_for_timeout(100)
    # every foe closed in first (a move that left it short of Ann), then struck her; Mira played her part by taps
    for foe in FOES:
        assert len(steps[foe]) >= 3 and steps[foe][1] > 1, (foe, steps[foe])
        assert foe in attacked and attacked[foe] >= 1, (foe, attacked, steps[foe])
    assert "defense" in answered and ended >= 2, (answered, ended)
    assert shots
    # the blows are on the table screen's feed and on the phone's log; the foes where they stand on every page
    blow = re.compile(rf"({'|'.join(FOES)}).*Ann")
    expect(screen.locator("#screen-feed")).to_contain_text(blow)
    expect(phone.locator("#log")).to_contain_text(blow)
    for page in (gm, phone, screen):
        expect_all(page, [("attached", f'#token-{ids[f]}[data-x="{x}"][data-y="{y}"]', None)
                          for f, (x, y) in where.items()])
    assert state(server, game)["foe_play"]["on"] is True
