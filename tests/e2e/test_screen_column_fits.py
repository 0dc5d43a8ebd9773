"""The table screen's column at 1920 x 1080 in a long fight (issue #33): the turn order's acting row and the
rows after it stay in view while the column also holds the join banner, a fresh result card and a long list
of rolls; the rolls give way first, and a roll line is never cut in half."""

from __future__ import annotations

from playwright.sync_api import expect

TV = {"width": 1920, "height": 1080}
FIGHTERS = ["Mira's fighter", "Theo's ranger", "Goblin archer", "Goblin spearman", "Goblin shaman", "Orc chief",
            "Grey wolf", "Black wolf", "Cave troll", "Bandit captain"]

#: where the acting row, the row after it, the turn order's box and the rolls list are drawn, and which of
#: the roll lines are shown in part only
MEASURE = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  const combat = document.querySelector('#combat');
  const rows = [...combat.querySelectorAll('.turn-order li')];
  const i = rows.findIndex((li) => li.classList.contains('current'));
  const feed = document.querySelector('#screen-feed');
  const feedBox = box(feed);
  const cut = [...feed.querySelectorAll('li')].filter((li) => getComputedStyle(li).visibility !== 'hidden'
      && li.getClientRects().length).map(box).filter((b) => b.top < feedBox.bottom - 0.5 && b.bottom > feedBox.bottom + 0.5);
  return {combat: box(combat), current: rows[i] ? box(rows[i]) : null, next: rows[i + 1] ? box(rows[i + 1]) : null,
          card: box(document.querySelector('#result-card')), cut: cut.length, index: i, rows: rows.length};
}"""


def inside(inner: dict, outer: dict, slack: float = 1.0) -> bool:
    return inner["top"] >= outer["top"] - slack and inner["bottom"] <= outer["bottom"] + slack


def test_the_acting_row_and_the_next_stay_in_view_beside_a_result_card_and_a_long_log(server, new_page, shot):
    status, g = server.api("POST", "/api/games", {"name": "The long night at Harrow", "system": "savage_worlds",
                                                  "map": {"width": 24, "height": 14}})
    assert status == 201, g
    gid, gm = g["id"], g["gm_token"]
    status, mira = server.api("POST", f"/api/games/{gid}/players", {"join_code": g["join_code"], "name": "Mira"})
    ids = []
    for i, name in enumerate(FIGHTERS):
        body = {"name": name, "x": 2 + 2 * (i % 5), "y": 2 + 3 * (i // 5)}
        if i == 0:
            body |= {"owner": mira["player_id"], "kind": "pc"}
        status, made = server.api("POST", f"/api/games/{gid}/tokens", body, gm)
        assert status == 201, made
        ids.append(made["id"])
    command = lambda body, key=gm: server.api("POST", f"/api/games/{gid}/commands", body, key)  # noqa: E731
    # a new group: the join code stays up beside the fight (its default)
    assert command({"type": "start_combat", "token_ids": ids})[0] == 200
    for _ in range(12):  # a long evening's rolls, some of them two lines long
        assert command({"type": "roll", "expr": "1d6!+1d6!+1d8!+2"}, mira["player_token"])[0] == 200
    for _ in range(len(FIGHTERS) - 2):  # the turn far down the order
        assert command({"type": "next_turn"})[0] == 200

    screen = new_page(viewport=TV)
    screen.goto(g["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    expect(screen.locator("#screen-feed li")).to_have_count(4)
    expect(screen.locator(".join-banner.shown")).to_be_visible()
    state = server.api("GET", f"/api/games/{gid}/state", token=gm)[1]
    acting = state["combat"]["current"]
    target = next(t for t in state["tokens"] if t["id"] in ids and t["id"] != acting)
    status, ack = command({"type": "move_token", "token_id": acting, "x": target["x"] + 1, "y": target["y"], "force": True})
    assert status == 200, ack  # within reach of its blade
    target = target["id"]
    status, ack = command({"type": "attack", "attacker": acting, "target": target, "force": True})
    assert status == 200, ack
    expect(screen.locator("#result-card.shown")).to_be_visible()
    screen.wait_for_timeout(300)
    shot(screen, "screen-column-long-fight-1920")
    seen = screen.evaluate(MEASURE)
    assert seen["current"] is not None and seen["index"] >= len(FIGHTERS) - 3, seen
    view = {"top": 0, "bottom": TV["height"]}
    for row in ("current", "next"):
        if seen[row] is not None:
            assert inside(seen[row], seen["combat"]) and inside(seen[row], view), (row, seen)
    assert seen["cut"] == 0, seen  # no roll line shown in half
    assert seen["card"]["bottom"] <= TV["height"] + 1, seen
