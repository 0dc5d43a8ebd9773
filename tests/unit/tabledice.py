"""What the table's own dice tests share (#59): a game built at the game layer (no server), a command played on it,
and the facts of its events to compare with the same command on the app's dice; faces drawn by hypothesis and entered
roll by roll (steered down one branch of the rules where a test needs it) up to the command's settling; refused
entries checked to change nothing; a dice source that notes what each roll asks, for rules called directly."""

from __future__ import annotations

from rules.text import plain
from webapp.game import table
from webapp.game.core.model import GM, Actor, Event

MIRA = Actor("player", "p-mira")


def play(game, payload, actor=GM, dice=None):
    """The events of ``payload`` decided as ``actor`` (the GM by default) and applied to ``game``."""
    events = table.decide(game, table.parse_command(payload), actor, dice)
    for event in events:
        table.evolve(game, event)
    return events


def facts(events):
    """What the events say, less the ids drawn afresh each time a command is decided."""
    out = []
    for e in events:
        data = plain(e.data)
        data.pop("id", None)
        out.append((e.type, data))
    return out


def seated(game_id: str, name: str, system: str, board, tokens, zones=None):
    """A game of ``system`` with Mira seated and ``tokens`` placed: ``(name, where, owner)`` each, ``where`` a
    square's x on row 2, an ``(x, y)`` square or a zone's id, ``owner`` Mira's player id for hers, None for the
    GM's foes. Gives the game and the tokens' ids by name."""
    game = table.empty_game(game_id)
    for event in table.new_game_events(name, system, board, zones):
        table.evolve(game, event)
    table.evolve(game, Event("player_joined", {"player_id": MIRA.player_id, "name": "Mira", "key_hash": "x" * 64}))
    ids = {}
    for token, where, owner in tokens:
        place = ({"zone": where} if isinstance(where, str) else {"x": where[0], "y": where[1]}
                 if isinstance(where, tuple) else {"x": where, "y": 2})
        ev = play(game, {"type": "add_token", "name": token, **place, **({"owner": owner, "kind": "pc"} if owner else {})})
        ids[token] = ev[0].data["token"]["id"]
    return game, ids



def hero_and_brute(system, game_id: str, width: int, hero: dict | None = None, brute: dict | None = None,
                   brute_x: int = 3, weapons: dict | None = None):
    """A ``system`` (the rule system itself) game on a ``width`` x 8 board: Mira's Hero on (2, 2) and the GM's
    Brute (a foe: no owner) on (``brute_x``, 2), each with the system's sample sheet, ``weapons`` added to its
    weapons, and the changes given (``hero``, ``brute``). Gives the game and the tokens' ids by name."""
    from rules.board import Board

    game, ids = seated(game_id, "Fight", system.id, Board(width, 8),
                       (("Hero", 2, MIRA.player_id), ("Brute", brute_x, None)))
    for name, over in (("Hero", hero or {}), ("Brute", brute or {})):
        sheet = {**system.default_sheet(), "name": name, **over}
        if weapons:
            sheet["weapons"] = {**sheet["weapons"], **{key: dict(w) for key, w in weapons.items()}}
        play(game, {"type": "add_character", "name": name, "token_id": ids[name], "sheet": sheet})
    return game, ids

def die_faces(die: dict):
    """A hypothesis strategy for one die's faces as the table rolls it (a ``table_dice.pad`` entry): a face that
    rolls again (an ace, a dT's 9 or 10) is followed by another roll of that die."""
    from hypothesis import strategies as st
    if not die["again"]:
        return st.integers(1, die["sides"]).map(lambda f: [f])
    return st.lists(st.integers(die["again"], die["sides"]), max_size=2).flatmap(
        lambda tops: st.integers(1, die["again"] - 1).map(lambda last: tops + [last]))


def enter_drawn(game, events, data, mine: str, limit: int = 40, draw=None):
    """From a command's ``events``, enter faces drawn with hypothesis's ``data`` for every roll asked, each by its
    roller's player (Mira for her token ``mine``, the GM for the rest), until the command settles: the last events,
    every roll asked and the faces entered in order. ``draw(roll, n)``: a strategy for the faces of the ``n``-th
    roll asked (``roll``: what it asks), to steer a test down one branch of the rules (an attack that hits), or None
    for the dice's own faces."""
    from hypothesis import strategies as st

    from webapp.game.fight import table_dice
    asked, entered = [], []
    for _ in range(limit):
        if events[-1].type != "roll_asked":
            return events, asked, entered
        ask = events[-1].data
        rolls = table_dice.batch(ask)  # rolls made together (#70) are asked at once, and entered in any order
        order = data.draw(st.permutations(rolls)) if len(rolls) > 1 else rolls
        got = {}
        for roll in order:
            n = len(asked) + rolls.index(roll)
            steer = draw(roll, n) if draw is not None else None
            faces = (data.draw(steer) if steer is not None else
                     [f for die in table_dice.pad(roll["dice"]) for f in data.draw(die_faces(die))])
            got[roll["at"]] = faces
            who = MIRA if roll["roller"] == mine else GM
            events = play(game, {"type": "enter_dice", "roll_id": ask["id"], "faces": faces,
                                 **({"at": roll["at"]} if len(rolls) > 1 else {})}, actor=who)
        asked += rolls
        entered += [f for at in sorted(got) for f in got[at]]
    raise AssertionError("more rolls asked than the command makes")


def settled_from_drawn(game, first_events, data, mine: str, limit: int = 40, draw=None):
    """:func:`enter_drawn` up to the command's settling, checked: the ``roll_settled`` event holds the faces entered,
    in order, as the table's. Gives the events, the rolls asked, and every face the command was decided with (the
    table's and the app's own, for rolls nobody was asked), to script the app's dice with."""
    events, asks, entered = enter_drawn(game, first_events, data, mine, limit, draw)
    assert events[-1].type == "roll_settled", events[-1].type
    settled = events[-1].data
    assert entered == [f for faces, by_table in zip(settled["made"], settled["entered"]) if by_table for f in faces]
    return events, asks, [f for faces in settled["made"] for f in faces]


def unchanged_after_refusals(game, ask: dict, actor, refused) -> None:
    """Each of ``refused`` (``(faces, words of the reason)``) entered for the waiting roll ``ask`` is refused with
    that reason, and leaves the game as it was: its state, its log and its sequence number."""
    import copy

    import pytest

    from webapp.game.core.model import Rejected
    before = (game.seq, copy.deepcopy(game.to_dict()))
    for faces, said in refused:
        with pytest.raises(Rejected) as refusal:
            table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": ask["id"], "faces": faces}), actor)
        assert said in str(refusal.value), (faces, str(refusal.value))
        assert (game.seq, game.to_dict()) == before, faces


class Watched:
    """A dice source that rolls as ``inner`` does and notes each roll: its expression, purpose, roller and what it
    must show (for rules called directly, outside a game)."""

    def __init__(self, inner) -> None:
        self.inner, self.seen = inner, []

    def roll(self, expr, purpose="", roller=None, needs=None, chance=None):
        self.seen.append((expr, str(purpose), roller, str(needs or "")))
        return self.inner.roll(expr, purpose, roller=roller, chance=chance)


def words(packed) -> str:
    """Words an event keeps packed (a roll's purpose or needs) as an English reader reads them."""
    from rules.text import translate
    from webapp.game.fight import table_dice
    return translate(table_dice.words(packed), None)


def both_ways(game, payload, data, mine: str, actor=MIRA):
    """``payload`` played on ``game`` with the table rolling, every roll asked entered from faces hypothesis's
    ``data`` draws (:func:`enter_drawn`), and on a copy of ``game`` as it was with the app's dice scripted with
    the faces the settled command made: the rolls asked, and the two commands' events' facts (the table's less
    the settling ``roll_settled``), which are the same when the table's faces go through the same rules."""
    import copy

    from rules.dice import ScriptedDice
    app_game = copy.deepcopy(game)
    play(game, {"type": "set_dice", "mode": "table"})
    events, asked, entered = enter_drawn(game, play(game, payload, actor=actor), data, mine)
    assert asked and events[-1].type == "roll_settled", events[-1].type
    settled = events[-1].data
    assert entered == [f for faces, by_table in zip(settled["made"], settled["entered"]) if by_table for f in faces]
    made = [f for faces in settled["made"] for f in faces]  # entered, and the app's own for rolls nobody is asked
    return asked, facts(events[:-1]), facts(play(app_game, payload, actor=actor, dice=ScriptedDice(made)))


_MADE: dict = {}


def made_once(key, build):
    """A fresh copy of the game and the ids ``build()`` makes, built once for ``key`` in the calling test module
    (hypothesis runs a test many times; building a fight each time would be most of the run)."""
    import copy
    import inspect

    key = (inspect.stack()[1].frame.f_globals.get("__name__"), key)
    if key not in _MADE:
        _MADE[key] = build()
    game, ids = _MADE[key]
    return copy.deepcopy(game), dict(ids)


def turned_to(game, ids: dict, first: str, seeds: int = 20):
    """``game`` with a fight of its tokens started on the app's seeded dice and passed on until ``first`` acts."""
    from rules.dice import SeededDice
    play(game, {"type": "start_combat", "token_ids": list(ids.values())}, dice=SeededDice(4))
    for seed in range(seeds):
        if game.combat["current"] == ids[first]:
            break
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    assert game.combat["current"] == ids[first]
    return game, ids
