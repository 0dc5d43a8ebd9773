"""The demo encounter a new user finds on the first start."""

from __future__ import annotations

from rules.board import Board

import rules

from .game.board import mapdata
from .game.core.model import FOE_COLOR, GM
from .game.table import decide, empty_game, evolve, new_game_events, parse_command
from .game.board.tokens import token_added

DEMO_NAME = "Demo: the ruined outpost"


def demo_board() -> Board:
    """24 x 16: a guard room with a door, a hall with an opening, a pillar and crates."""
    board = Board(24, 16)
    # the guard room (west), its door in the east wall
    for a, b in [((2, 2), (10, 2)), ((2, 2), (2, 9)), ((2, 9), (10, 9)), ((10, 2), (10, 5)), ((10, 6), (10, 9))]:
        board.add_wall(a, b)
    board.add_door((10, 5), (10, 6), closed=True)
    # the hall (north-east), open to the south at x 18..19
    for a, b in [((14, 2), (22, 2)), ((22, 2), (22, 8)), ((14, 2), (14, 8)), ((14, 8), (18, 8)), ((19, 8), (22, 8))]:
        board.add_wall(a, b)
    board.block((17, 11))  # a pillar
    board.block((6, 12))
    board.add_cover((12, 11), "wood_thick")  # crates
    board.add_cover((12, 12), "wood_thick")
    for cell in [(4, 13), (5, 13), (4, 14), (5, 14), (3, 14)]:
        board.set_terrain(cell, 2)  # rubble
    return board


def create_demo(hub):
    """The demo games: each system's own sample fight, where it has one, then the ruined outpost (newest)."""
    for system in rules.systems():
        sample = system.sample_encounter() if hasattr(system, "sample_encounter") else None
        if sample:
            create_sample(hub, system.id, sample)
    return create_outpost(hub)


def create_sample(hub, system_id: str, sample: dict):
    """A system's sample encounter as a game: its map, a token and a character for each combatant."""
    if "zones" in sample["map"]:
        board, zones = mapdata.zone_map(sample["map"])
    else:
        board, zones = mapdata.grid_board(sample["map"]), None
    game = empty_game("sample")
    for event in new_game_events(sample["name"], system_id, board, zones):
        evolve(game, event)
    setup = []

    def run(payload: dict) -> None:
        for event in decide(game, parse_command(payload), GM):
            evolve(game, event)
            setup.append(event)

    for c in sample["combatants"]:
        where = {"zone": c["position"]} if isinstance(c["position"], str) else {"x": c["position"][0], "y": c["position"][1]}
        run({"type": "add_token", "name": c["name"], "kind": "pc" if c["side"] == "pc" else "npc", **where})
        token_id = setup[-1].data["token"]["id"]
        run({"type": "add_character", "name": c["name"], "token_id": token_id, "sheet": c["sheet"]})
    return hub.create_game(sample["name"], system_id, board, setup=setup, zones=zones)


def create_outpost(hub):
    game = empty_game("demo")
    events = new_game_events(DEMO_NAME, "plain_grid", demo_board())
    for event in events:
        evolve(game, event)
    setup, pictures = [], {}
    for name, x, y, kind, color in [
        ("Aria", 4, 4, "pc", "#2563eb"),
        ("Brann", 5, 6, "pc", "#16a34a"),
        ("Cyra", 3, 7, "pc", "#9333ea"),
        ("Goblin", 17, 4, "npc", FOE_COLOR),
        ("Goblin archer", 20, 6, "npc", FOE_COLOR),
        ("Ogre", 15, 12, "npc", "#b91c1c"),
    ]:
        event = token_added(game, name, x, y, kind=kind, color=color)
        evolve(game, event)
        setup.append(event)
        pictures[event.data["token"]["id"]] = DEMO_PICTURES.get(name)
    record = hub.create_game(DEMO_NAME, "plain_grid", demo_board(), setup=setup)
    give_pictures(hub, record.id, pictures)
    return record


#: the demo's token pictures, drawn by scripts/draw_demo_pictures.py (static/demo/)
DEMO_PICTURES = {"Aria": "aria.png", "Brann": "brann.png", "Cyra": "cyra.png", "Goblin": "goblin.png",
                 "Goblin archer": "goblin.png", "Ogre": "ogre.png"}


def give_pictures(hub, game_id: str, pictures: dict[str, str | None]) -> None:
    """Each token its picture, uploaded as the GM would (a picture used twice is uploaded once)."""
    from .live.uploads import add_token_picture
    from .web.assets import STATIC

    uploaded: dict[str, str] = {}
    for token_id, file in pictures.items():
        if not file:
            continue
        if file in uploaded:
            hub.execute(game_id, GM, {"type": "update_token", "token_id": token_id, "picture": uploaded[file]})
            continue
        done = add_token_picture(hub, game_id, GM, (STATIC / "demo" / file).read_bytes(), file, token_id)
        uploaded[file] = done["picture_id"]
