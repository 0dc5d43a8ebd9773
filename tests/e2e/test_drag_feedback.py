"""A move from the dragging hand's side: a drop shows at once as pending and the
server's answer settles it; previews go out at most once per frame of the
dragging screen and the last cell always arrives.

A slow server is made honestly: the page's real WebSocket runs through
Playwright's `route_web_socket`, which forwards every frame both ways unchanged
and, while `hold` is on, keeps the page's `move_token` commands back (the
server gets them late, so its update and its answer come late, exactly as from
a busy server). The server is the real `tacmap serve` subprocess."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_live_table import at, cell_center, open_table


class Link:
    """One page's Socket.IO WebSocket, forwarded by the test; move commands can be held."""

    def __init__(self) -> None:
        self.hold = False
        self.kinds = ("move_token",)  # the commands held back while `hold` is on
        self.held: list[str] = []
        self.upgraded = False
        self.server = None

    def route(self, ws) -> None:
        server = ws.connect_to_server()
        self.server = server

        def to_server(message) -> None:
            if message == "5":
                self.upgraded = True  # engine.io moved from polling onto this socket
            if (self.hold and isinstance(message, str) and message.startswith("42")
                    and any(f'"{kind}"' in message for kind in self.kinds)):
                self.held.append(message)
                return
            server.send(message)

        ws.on_message(to_server)
        server.on_message(lambda message: ws.send(message))

    def release(self) -> None:
        self.hold = False
        held, self.held = self.held, []
        for message in held:
            self.server.send(message)


def routed(new_page, links: list[Link]):
    """new_page whose pages talk to the server through a Link each (in the order opened)."""

    def make(*args, **kw):
        page = new_page(*args, **kw)
        link = Link()
        page.route_web_socket(re.compile(r"/socket\.io/"), link.route)
        links.append(link)
        return page

    return make


def wait_for(page, check, failure: str) -> None:
    """Until ``check()`` holds (5 s), waiting inside Playwright's calls: its sync API runs a routed socket's
    callbacks (``Link.route``) only while the test is in one of them."""
    for _ in range(100):
        if check():
            return
        page.wait_for_timeout(50)
    raise AssertionError(failure)


def wait_upgraded(page, link: Link) -> None:
    wait_for(page, lambda: link.upgraded, "the page's Socket.IO never moved onto its WebSocket")


def drop(page, token_id: str, frm: tuple[int, int], to: tuple[int, int]) -> None:
    sx, sy = cell_center(page, *frm)
    tx, ty = cell_center(page, *to)
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move(tx, ty, steps=6)
    page.mouse.up()


def shown_cell(page, token_id: str) -> list[float]:
    return page.evaluate(
        """(id) => {
            const m = /translate\\(\\s*(-?[\\d.]+)[ ,]+(-?[\\d.]+)/.exec(document.getElementById('token-' + id).getAttribute('transform'));
            return [parseFloat(m[1]), parseFloat(m[2])];
        }""",
        token_id,
    )


def is_pending(page, token_id: str) -> bool:
    return page.evaluate("(id) => document.getElementById('token-' + id).classList.contains('pending')", token_id)


def opacity(page, token_id: str) -> float:
    return float(page.evaluate("(id) => getComputedStyle(document.getElementById('token-' + id)).opacity", token_id))


def wait_opacity(page, token_id: str, below: bool, level: float) -> None:
    page.wait_for_function(
        "([id, below, level]) => { const o = parseFloat(getComputedStyle(document.getElementById('token-' + id)).opacity);"
        " return below ? o < level : o > level; }",
        arg=[token_id, below, level],
    )


def test_a_slow_answer_shows_the_drop_pending_at_once_and_the_answer_settles_it(server, game, new_page, shot):
    gm_key = game["gm_token"]
    api = lambda payload: server.api("POST", f"/api/games/{game['id']}/commands", payload, gm_key)  # noqa: E731
    scout = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Scout", "x": 2, "y": 2}, gm_key)[1]["id"]
    ogre = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Ogre", "x": 8, "y": 1}, gm_key)[1]["id"]
    links: list[Link] = []
    gm, player, screen = open_table(server, game, routed(new_page, links))
    gm_link, phone_link = links[0], links[2]
    mira = next(p["id"] for p in server.api("GET", f"/api/games/{game['id']}/state", token=gm_key)[1]["players"]
                if p["name"] == "Mira")
    fighter = server.api("POST", f"/api/games/{game['id']}/tokens",
                         {"name": "Mira's fighter", "x": 1, "y": 4, "owner": mira, "kind": "pc"}, gm_key)[1]["id"]
    expect(player.locator(f"#token-{fighter}.movable")).to_be_visible()
    wait_upgraded(gm, gm_link)
    wait_upgraded(player, phone_link)

    # the GM drops the scout while the server is slow: at once it stands on its new square, pending
    gm_link.hold = True
    drop(gm, scout, (2, 2), (6, 4))
    now = gm.evaluate(  # read in one go right after the drop, no waiting
        """(id) => { const el = document.getElementById('token-' + id), cs = getComputedStyle(el);
                     return {pending: el.classList.contains('pending'), transform: el.getAttribute('transform'),
                             opacity: parseFloat(cs.opacity), delay: parseFloat(cs.animationDelay)}; }""", scout)
    assert now["pending"] and now["transform"] == "translate(6 4)", now
    # ...but the dimmed look waits 250 ms (a CSS delay): an answer that comes in a blink never flickers it
    assert now["opacity"] == 1 and 0.15 <= now["delay"] <= 0.25, now  # computed delays are in seconds
    at(gm, scout, 2, 2).to_be_attached()  # the server has not moved it (its data-x/y are the server's)
    wait_opacity(gm, scout, below=True, level=0.7)  # the answer is slow: the dimmed look has come in
    assert gm.locator(f'#layer-labels .label.pending[data-for="{scout}"]').count() == 1
    shot(gm, "drag-pending-gm")

    # an update that does not contain the drop (the scout itself redrawn: a new colour from the
    # GM's API, and someone else's move) leaves the pending scout where it was dropped
    assert api({"type": "update_token", "token_id": scout, "color": "#2563eb"})[0] == 200
    assert api({"type": "move_token", "token_id": ogre, "x": 9, "y": 1})[0] == 200
    at(gm, ogre, 9, 1).to_be_visible()
    expect(gm.locator(f'#token-{scout}[data-color="#2563eb"]')).to_be_attached()
    assert is_pending(gm, scout) and shown_cell(gm, scout) == [6, 4]
    assert opacity(gm, scout) < 0.7  # the fresh copy keeps the look without flickering back in
    at(player, scout, 2, 2).to_be_visible()  # nobody else has it moved yet

    # dropped again before the answer: it goes to the newest square, still pending
    drop(gm, scout, (6, 4), (7, 5))
    assert is_pending(gm, scout) and shown_cell(gm, scout) == [7, 5]
    assert len(gm_link.held) == 1  # the second move waits for the first one's answer

    # the server answers: the look goes, the server's updates own the position, everywhere
    gm_link.release()
    for page in (gm, player, screen):
        at(page, scout, 7, 5).to_be_visible()
    expect(gm.locator(f"#token-{scout}.pending")).to_have_count(0)
    wait_opacity(gm, scout, below=False, level=0.95)
    assert shown_cell(gm, scout) == [7, 5]
    state = server.api("GET", f"/api/games/{game['id']}/state", token=gm_key)[1]
    assert [(t["x"], t["y"]) for t in state["tokens"] if t["id"] == scout] == [(7, 5)]

    # the player's own token, dropped on the phone while the server is slow: pending there too
    phone_link.hold = True
    drop(player, fighter, (1, 4), (3, 5))
    assert is_pending(player, fighter) and shown_cell(player, fighter) == [3, 5]
    wait_opacity(player, fighter, below=True, level=0.7)
    shot(player, "drag-pending-phone")
    phone_link.release()
    for page in (gm, player, screen):
        at(page, fighter, 3, 5).to_be_visible()
    expect(player.locator(f"#token-{fighter}.pending")).to_have_count(0)

    # a refused drop: the scout is not the player's; pending at once, then back with the reason
    phone_link.hold = True
    drop(player, scout, (7, 5), (5, 7))
    assert is_pending(player, scout) and shown_cell(player, scout) == [5, 7]
    phone_link.release()
    expect(player.locator("#flash")).to_contain_text("not yours to move")
    expect(player.locator(f"#token-{scout}.pending")).to_have_count(0)
    player.wait_for_function(
        "(id) => /translate\\(7[ ,]+5\\)/.test(document.getElementById('token-' + id).getAttribute('transform'))", arg=scout)
    for page in (gm, player, screen):
        at(page, scout, 7, 5).to_be_visible()


def test_previews_go_out_once_a_frame_and_the_last_cell_always_arrives(server, game, new_page, shot):
    gm_key = game["gm_token"]
    scout = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Scout", "x": 1, "y": 2}, gm_key)[1]["id"]
    gm, player, screen = open_table(server, game, new_page)

    # a burst of previews (fifty in one go, as after a stall of the network) is drawn once:
    # the ghost jumps to the newest square instead of replaying the trail behind the drag
    writes = screen.evaluate(
        """(id) => new Promise((resolve) => {
            let writes = 0;
            const seen = new MutationObserver((records) => { writes += records.filter((r) => r.attributeName === 'transform').length; });
            seen.observe(document.getElementById('layer-preview'), {subtree: true, attributes: true});
            for (let i = 0; i < 50; i++) {
                document.dispatchEvent(new CustomEvent('tacmap:preview', {detail: {token_id: id, x: i % 20, y: 1 + (i % 3)}}));
            }
            requestAnimationFrame(() => requestAnimationFrame(() => { seen.disconnect(); resolve(writes); }));
        })""", scout)
    expect(screen.locator('#layer-preview .ghost[transform="translate(9 2)"]')).to_have_count(1)  # the 50th
    assert writes == 1, writes
    screen.evaluate("(id) => document.dispatchEvent(new CustomEvent('tacmap:preview', {detail: {token_id: id, x: 9, y: 2, done: true}}))", scout)
    expect(screen.locator("#layer-preview .ghost")).to_have_count(0)

    # count what the GM's page sends, and the frames it draws
    gm.evaluate(
        """() => {
            window.__frames = 0;
            const tick = () => { window.__frames++; requestAnimationFrame(tick); };
            requestAnimationFrame(tick);
            window.__sent = [];
            const send = window.tacmap.preview;
            window.tacmap.preview = (p) => { window.__sent.push({frame: window.__frames, x: p.x, y: p.y, done: !!p.done}); send(p); };
        }"""
    )
    sx, sy = cell_center(gm, 1, 2)
    gm.mouse.move(sx, sy)
    gm.mouse.down()
    # a slow drag across eleven squares, then the hand stops on (12, 2) and holds
    for x in range(2, 13):
        tx, ty = cell_center(gm, x, 2)
        gm.mouse.move(tx, ty, steps=5)
    ghost = '#layer-preview .ghost[transform="translate(12 2)"]'
    expect(player.locator(ghost)).to_have_count(1)  # the last square arrived without a drop
    expect(screen.locator(ghost)).to_have_count(1)
    shot(screen, "drag-ghost-screen")

    # five squares in one go (one task, one frame): only the newest goes out, on the next frame
    gm.evaluate(
        """(points) => {
            const frame = document.getElementById('map-frame');
            for (const [x, y] of points) {
                frame.dispatchEvent(new PointerEvent('pointermove', {pointerId: 1, pointerType: 'mouse', isPrimary: true,
                                                                      clientX: x, clientY: y, bubbles: true, cancelable: true}));
            }
        }""",
        [cell_center(gm, 12, y) for y in range(3, 8)],
    )
    expect(player.locator('#layer-preview .ghost[transform="translate(12 7)"]')).to_have_count(1)
    expect(screen.locator('#layer-preview .ghost[transform="translate(12 7)"]')).to_have_count(1)
    sent = gm.evaluate("window.__sent")
    assert sent and not any(p["done"] for p in sent)
    frames = [p["frame"] for p in sent]
    assert len(frames) == len(set(frames)), f"two previews in one frame: {sent}"
    cells = [(p["x"], p["y"]) for p in sent]
    assert all(a != b for a, b in zip(cells, cells[1:])), f"a cell sent twice in a row: {cells}"
    assert (12, 2) in cells and cells[-1] == (12, 7)
    assert not any(c in cells for c in [(12, 3), (12, 4), (12, 5), (12, 6)]), cells  # skipped in the burst
    assert len(cells) <= 12  # never more than the squares crossed

    gm.mouse.up()
    for page in (gm, player, screen):
        at(page, scout, 12, 7).to_be_visible()
    expect(player.locator("#layer-preview .ghost")).to_have_count(0)
    expect(screen.locator("#layer-preview .ghost")).to_have_count(0)
    last = gm.evaluate("window.__sent[window.__sent.length - 1]")
    assert last["done"] and (last["x"], last["y"]) == (12, 7)


def test_template_previews_go_out_once_a_frame_and_the_last_place_always_arrives(server, game, new_page, shot):
    gm_key = game["gm_token"]
    status, r = server.api("POST", f"/api/games/{game['id']}/commands",
                           {"type": "place_template", "shape": "circle", "x": 3.5, "y": 3.5, "size": 1,
                            "label": "Fire"}, gm_key)
    assert status == 200, r
    scout = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Scout", "x": 1, "y": 1}, gm_key)[1]["id"]
    links: list[Link] = []
    gm, player, screen = open_table(server, game, routed(new_page, links))
    gm_link = links[0]
    gm_link.kinds = ("move_template",)
    for page in (gm, player, screen):
        expect(page.locator("#layer-templates .area-template")).to_have_count(1)
    gm.evaluate("() => { document.querySelector('#layer-templates .area-template').__before = true; }")
    gm.evaluate(
        """() => {
            window.__frames = 0;
            const tick = () => { window.__frames++; requestAnimationFrame(tick); };
            requestAnimationFrame(tick);
            window.__sent = [];
            const socket = window.tacmap.socket, emit = socket.emit.bind(socket);
            socket.emit = (name, p, ...rest) => {
                if (name === 'template_preview') window.__sent.push({frame: window.__frames, dx: p.dx, dy: p.dy, done: !!p.done});
                return emit(name, p, ...rest);
            };
        }"""
    )
    sx, sy = cell_center(gm, 3, 3)
    gm.mouse.move(sx, sy)
    gm.mouse.down()
    for x in range(4, 10):  # a slow drag six squares to the right, then the hand stops and holds
        tx, ty = cell_center(gm, x, 3)
        gm.mouse.move(tx, ty, steps=5)
    shape = "#layer-templates .area-template .template-shape"
    for page in (player, screen):
        expect(page.locator(shape)).to_have_attribute("transform", "translate(6 0)")
    # an update in the middle of the drag (someone moves a token; the templates are drawn afresh):
    # the dragged template stays under the hand
    status, r = server.api("POST", f"/api/games/{game['id']}/commands",
                           {"type": "move_token", "token_id": scout, "x": 2, "y": 1}, gm_key)
    assert status == 200, r
    at(gm, scout, 2, 1).to_be_visible()
    assert not gm.evaluate("document.querySelector('#layer-templates .area-template').__before")  # drawn afresh
    expect(gm.locator(shape)).to_have_attribute("transform", "translate(6 0)")
    expect(gm.locator("#layer-templates .area-template.dragging")).to_have_count(1)
    # four places in one go (one task): only the newest goes out, on the next frame
    gm.evaluate(
        """(points) => {
            const frame = document.getElementById('map-frame');
            for (const [x, y] of points) {
                frame.dispatchEvent(new PointerEvent('pointermove', {pointerId: 1, pointerType: 'mouse', isPrimary: true,
                                                                      clientX: x, clientY: y, bubbles: true, cancelable: true}));
            }
        }""",
        [cell_center(gm, 9, y) for y in range(4, 8)],
    )
    for page in (player, screen):
        expect(page.locator(shape)).to_have_attribute("transform", "translate(6 4)")
    shot(screen, "template-preview-screen")
    sent = gm.evaluate("window.__sent")
    frames = [p["frame"] for p in sent]
    assert sent and len(frames) == len(set(frames)), f"two previews in one frame: {sent}"
    moves = [(p["dx"], p["dy"]) for p in sent]
    assert all(a != b for a, b in zip(moves, moves[1:])), moves
    assert (6, 0) in moves and moves[-1] == (6, 4)
    assert not any(m in moves for m in [(6, 1), (6, 2), (6, 3)]), moves
    # dropped while the server is slow, and another update comes before the answer: it stays where it fell
    wait_upgraded(gm, gm_link)
    gm_link.hold = True
    gm.mouse.up()
    status, r = server.api("POST", f"/api/games/{game['id']}/commands",
                           {"type": "move_token", "token_id": scout, "x": 3, "y": 1}, gm_key)
    assert status == 200, r
    at(gm, scout, 3, 1).to_be_visible()
    expect(gm.locator("#layer-templates .area-template")).to_have_attribute("data-x", "3.5")  # not moved yet
    expect(gm.locator(shape)).to_have_attribute("transform", "translate(6 4)")
    assert len(gm_link.held) == 1
    gm_link.release()
    for page in (gm, player, screen):
        expect(page.locator("#layer-templates .area-template")).to_have_attribute("data-x", "9.5")
        expect(page.locator("#layer-templates .area-template")).to_have_attribute("data-y", "7.5")
    expect(gm.locator(shape)).not_to_have_attribute("transform", re.compile("."))  # landed: no shift left
    assert gm.evaluate("window.__sent[window.__sent.length - 1].done")


def test_a_slow_reach_answer_draws_the_ruler_where_the_token_stopped_and_one_after_the_drop_draws_nothing(
        server, new_page, shot):
    """The squares a picked-up token can reach come from the server. An answer that comes after the pointer has
    stopped (a busy server: a fresh-clone CI run caught it) still puts the ruler by the token, for the square it is
    over; one that comes after the drop leaves no shading on the map."""
    status, game = server.api("POST", "/api/games", {"name": "Slow reach", "system": "savage_worlds"})
    assert status == 201, game
    gm_key = game["gm_token"]
    scout = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Scout", "x": 2, "y": 2}, gm_key)[1]["id"]
    assert server.api("POST", f"/api/games/{game['id']}/commands", {"type": "start_combat", "token_ids": [scout]},
                      gm_key)[0] == 200
    links: list[Link] = []
    gm = routed(new_page, links)(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    link = links[0]
    wait_upgraded(gm, link)
    link.kinds = ("reach",)
    answered = "() => !window.tacmap.waiting().includes('reach')"

    # picked up and moved three squares while the server holds the answer: no ruler yet, then the answer puts it
    # over the square the token stopped on
    link.hold = True
    sx, sy = cell_center(gm, 2, 2)
    tx, ty = cell_center(gm, 2, 5)
    gm.mouse.move(sx, sy)
    gm.mouse.down()
    gm.mouse.move(tx, ty, steps=6)
    wait_for(gm, lambda: len(link.held) == 1, "the reach command never went out")
    assert gm.locator("#reach-ruler").count() == 0
    link.release()
    gm.wait_for_function(answered)
    expect(gm.locator("#reach-ruler")).to_have_text('3" of 6"')
    assert gm.locator("#reach-ruler").get_attribute("x") == "2.5"
    assert gm.locator("#layer-reach .reach-cell").count() > 0
    shot(gm, "drag-slow-reach-ruler")
    gm.mouse.up()
    expect(gm.locator("#layer-reach > *")).to_have_count(0)

    # picked up and dropped before the answer: the late answer draws neither shading nor ruler
    at(gm, scout, 2, 5).to_be_attached()
    link.hold = True
    drop(gm, scout, (2, 5), (3, 5))
    wait_for(gm, lambda: len(link.held) == 1, "the reach command never went out")
    at(gm, scout, 3, 5).to_be_attached()
    link.release()
    gm.wait_for_function(answered)
    gm.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    expect(gm.locator("#layer-reach > *")).to_have_count(0)
