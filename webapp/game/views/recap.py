"""The recap: "previously on..." told from the log (issue #36), and the GM's switch that shows it on the table screen.

Pure. ``story(steps, times, actor)`` reads the log folded once (``steps``: ``(seq, event, game after it)``
for each event, as ``webapp.storage.history.walk`` gives them) and tells each
session (the log split where two events lie more than ``SESSION_GAP`` seconds apart: every stored
event carries the time it was written) and each fight in it: who fought whom, who fell, the biggest
hits, the hand-outs shown, the maps visited, and a small picture of the board as the fight began and
as it ended. An audience other than the GM is told only what it saw then: a token is named only if it
could see the token at that moment (hidden tokens, fog as it was), a hit only if its log line was one
it could read at that moment (the live log's own rule, ``audience.may_read``), a hand-out only if it
was shown to it; its pictures hold only the tokens it saw and the squares it knew. Its counts are of what it saw
(#57, #58): a move of a token it saw at either end, a roll whose line it could read or its own (a secret roll's
line is the GM's), an attack whose line it could read; a fight, and an evening, it saw nothing of is left out.

``show_recap`` / ``hide_recap`` (GM): the table screen shows the recap over the map until the GM hides it
(``game.recap_on``; event ``recap_shown``).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from . import audience, luck
from ..bridge import fighting, fog
from ..board import handouts
from ..core.feature import Feature
from ..core.model import Actor, Event, Game, Rejected
from rules.text import say
from ..core.text import N_

SESSION_GAP = 4 * 3600.0  # seconds between two events that start a new session
TOP_HITS = 3
#: the number an effect on a target counts as harm, by the first of these keys its data holds
HARM_KEYS = ("wounds", "injury", "amount", "stamina", "damage")
PICTURE_PX = 240  # the longer side of a board picture
#: a board picture of a big map is framed on the tokens it shows, FRAME_MARGIN squares around them and FRAME_MIN
#: squares across at least, so they are drawn large (the table screen's recap is read from across the room, #61)
FRAME_MIN = 12
FRAME_MARGIN = 2


# --- the GM's switch ------------------------------------------------------------


class ShowRecap(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["show_recap"]


class HideRecap(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["hide_recap"]


COMMANDS = (ShowRecap, HideRecap)
EVENTS = ("recap_shown",)


def decide(game: Game, cmd: Any, actor: Actor) -> list[Event]:
    shown = isinstance(cmd, ShowRecap)
    if game.recap_on == shown:
        raise Rejected(N_("the recap is already on the table screen") if shown
                       else N_("the recap is already off the table screen"))
    return [Event("recap_shown", {"shown": shown})]


def evolve(game: Game, event: Event, log) -> None:
    game.recap_on = bool(event.data["shown"])
    log(say("the table screen shows the recap") if game.recap_on else say("the table screen is back on the map"), "all", None)


FEATURE = Feature("recap", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=evolve)


# --- the story ---------------------------------------------------------------------


def harm(result: dict, attacker: str) -> float:
    """How much an attack's effects hurt its targets, in its system's own numbers (wounds, injury...)."""
    total = 0.0
    for effect in result.get("effects") or []:
        if not isinstance(effect, dict) or effect.get("target") == attacker:
            continue
        data = effect.get("data") or {}
        for key in HARM_KEYS:
            value = data.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total += max(0.0, float(value))
                break
    return total


def damage_rolled(result: dict) -> float:
    """The damage the rules rolled, where their breakdown says it (``details["damage"]``: a number, or one per
    shot, each a number or ``{"damage": n}``): it orders hits that did the same harm (two hits that wounded no
    one, the bigger roll first)."""
    value = (result.get("details") or {}).get("damage")
    numbers = [v.get("damage") if isinstance(v, dict) else v for v in (value if isinstance(value, list) else [value])]
    found = [float(v) for v in numbers if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return max(found, default=0.0)


def _names(names: list[str]) -> str:
    names = list(dict.fromkeys(names))
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class _Fight:
    def __init__(self, seq: int, time: float | None, picture: str) -> None:
        self.start_seq, self.end_seq = seq, seq
        self.start_time = time
        self.start_picture, self.end_picture = picture, picture
        self.fighters: dict[str, dict] = {}  # token id -> {"name", "side"} (as seen)
        self.fallen: dict[str, str] = {}  # token id -> name
        self.down: set[str] = set()  # fell, whether this audience saw it or not (not counted twice)
        self.hits: list[dict] = []
        self.rounds = 1
        self.attacks: list[int] = []  # the seqs of its attacks
        self.rolls: list[tuple[int, str, str, dict]] = []  # (seq, roller, name, record): the rolls with odds (#59)
        self.ended = False

    def to_dict(self) -> dict:
        pcs = [f["name"] for f in self.fighters.values() if f["side"] == "pc"]
        foes = [f["name"] for f in self.fighters.values() if f["side"] != "pc"]
        hits = sorted(self.hits, key=lambda h: (-h["harm"], -h["damage"], h["seq"]))  # cut to TOP_HITS at the end
        return {"start_seq": self.start_seq, "end_seq": self.end_seq, "rounds": self.rounds, "attacks": list(self.attacks),
                "ended": self.ended, "fighters": list(f["name"] for f in self.fighters.values()),
                "sides": {"pcs": pcs, "foes": foes},
                "who": (f"{_names(pcs)} fought {_names(foes)}" if pcs and foes else
                        f"{_names(pcs or foes)} fought" if pcs or foes else "a fight nobody here could see"),
                "fallen": list(self.fallen.values()), "hits": hits, "luck_rolls": list(self.rolls),
                "start_picture": self.start_picture, "end_picture": self.end_picture}


def _new_session(seq: int, time: float | None) -> dict:
    return {"start_seq": seq, "end_seq": seq, "start": time, "end": time, "events": 0, "maps": [], "handouts": [],
            "fights": [], "moves": 0, "rolls": 0}


def remembering(steps: Iterable[tuple[int, Event, Game]]) -> Iterator[tuple[int, Event, Game]]:
    """The fold's steps with the players' explored memory kept (``fog.remember_if_changed``) for a fold run
    ``fog.without_memory()``: the same memory as the fold's own after every event, with each player's view
    computed again only after an event that changed what it is drawn from (a token moved, a door opened...)."""
    last = None
    for step in steps:
        last = fog.remember_if_changed(step[2], last)
        yield step


def story(steps: Iterable[tuple[int, Event, Game]], times: list[float | None], actor: Actor) -> dict:
    """The recap of a whole log as ``actor`` saw it: ``{"name", "system", "sessions": [...]}``.

    ``steps``: the log folded, ``(seq, event, the game after it)`` from the first event on;
    ``times[seq - 1]`` is when event ``seq`` was written (seconds since the epoch; None where unknown: a log
    with no times is one session)."""
    sessions: list[dict] = []
    session: dict | None = None
    fight: _Fight | None = None
    last_time: float | None = None
    game: Game | None = None
    gm = actor.role == "gm"
    count = 0
    for seq, event, game in steps:
        count = seq
        when = times[seq - 1] if seq - 1 < len(times) else None
        if session is None or (when is not None and last_time is not None and when - last_time > SESSION_GAP):
            if fight is not None:  # a fight left open at the end of an evening is told in that evening
                session["fights"].append(fight.to_dict())
                fight = None
            session = _new_session(seq, when)
            sessions.append(session)
        if when is not None:
            last_time = when
            session["end"] = when
        session["end_seq"] = seq
        session["events"] += 1
        kind = event.type
        if kind == "game_created" or (kind == "map_activated" and game.active_map):
            name = game.maps[game.active_map].name if game.active_map in game.maps else ""
            if name and (not session["maps"] or session["maps"][-1] != name):
                session["maps"].append(name)
        elif kind == "handout_shown":
            h = game.handouts.get(event.data.get("handout_id"))
            if h is not None and (gm or handouts.recipient(actor) in event.data.get("to", [])
                                  or handouts.EVERYONE in event.data.get("to", [])):
                session["handouts"].append(h["title"] or "an untitled hand-out")
        elif kind == "token_moved":
            session["moves"] += int(gm or _move_seen(game, actor, event.data))
        elif kind == "dice_rolled":
            session["rolls"] += int(gm or event.data.get("by") == actor.audience or bool(_lines_read(game, actor, "roll")))
        if kind == "combat_started":
            if fight is not None:
                session["fights"].append(fight.to_dict())
            fight = _Fight(seq, when, board_picture(game, actor))
        if fight is None:
            continue
        fight.end_seq = seq
        if game.combat:
            fight.rounds = max(fight.rounds, int(game.combat.get("round") or 1))
            for tid in game.combat.get("order") or []:
                token = game.tokens.get(tid)
                if token is not None and tid not in fight.fighters and fog.may_see(game, actor, token):
                    fight.fighters[tid] = {"name": token.name, "side": "pc" if (token.kind == "pc" or token.owner)
                                           else "npc"}
        _luck(game, actor, fight, seq, event)
        if kind in ("attack_resolved", "soak_rolled", "sheet_updated", "combat_ended", "undone"):
            _fallen(game, actor, fight)
        if kind == "attack_resolved":
            lines = _lines_read(game, actor, "attack")  # an attack it could read nothing of is none of its story
            if lines:
                fight.attacks.append(seq)
                _hit(fight, seq, event, lines[-1])
        if kind == "combat_ended":
            fight.ended = True
            fight.end_picture = board_picture(game, actor)
            session["fights"].append(fight.to_dict())
            fight = None
    if fight is not None and session is not None:
        fight.end_picture = board_picture(game, actor)
        session["fights"].append(fight.to_dict())
    undone = set(game.undone) if game else set()  # an attack the GM took back is no hit of the story
    for s in sessions:
        s["handouts"] = list(dict.fromkeys(s["handouts"]))
        for f in s["fights"]:
            f["attacks"] = sum(1 for seq in f["attacks"] if seq not in undone)
            f["hits"] = [h for h in f["hits"] if h["seq"] not in undone][:TOP_HITS]
            f["luck"] = fight_luck(f.pop("luck_rolls"), undone)
        if not gm:  # a fight it saw nothing of (no fighter, no attack, no one fall) is no fight of its story
            s["fights"] = [f for f in s["fights"] if f["fighters"] or f["attacks"] or f["fallen"]]
    if not gm:  # nor an evening of which it saw nothing (the GM preparing alone)
        sessions = [s for s in sessions if s["maps"] or s["handouts"] or s["fights"] or s["moves"] or s["rolls"]]
    return {"name": game.name if game else "", "system": game.system if game else "", "sessions": sessions,
            "seq": count, "audience": actor.audience}


def _luck(game: Game, actor: Actor, fight: _Fight, seq: int, event: Event) -> None:
    """The rolls with odds this event made (``luck.rolls_in``), each of a roller this audience could see then."""
    if event.type == "roll_asked":  # a command waiting for the table's dice has rolled nothing yet
        return
    for record in luck.rolls_in(event.data):
        token = game.tokens.get(record["roller"])
        if token is not None and (actor.role == "gm" or fog.may_see(game, actor, token)):
            fight.rolls.append((seq, token.id, token.name, record))


def fight_luck(rolls: list[tuple[int, str, str, dict]], undone: set[int] = frozenset()) -> list[dict]:
    """Each roller's luck over a fight's rolls with odds (``luck.Tally.told``), a roll the GM took back left out."""
    tally = luck.Tally()
    for seq, roller, name, record in rolls:
        if seq not in undone:
            tally.add(roller, name, record)
    return tally.told()


def _fallen(game: Game, actor: Actor, fight: _Fight) -> None:
    for tid in (game.combat or {}).get("order") or list(fight.fighters):
        token = game.tokens.get(tid)
        if token is None or tid in fight.down or not fighting.is_down(game, token):
            continue
        fight.down.add(tid)
        if fog.may_see(game, actor, token):
            fight.fallen[tid] = token.name
            fight.fighters.setdefault(tid, {"name": token.name, "side": "pc" if token.kind == "pc" or token.owner
                                            else "npc"})


def _move_seen(game: Game, actor: Actor, moved: dict) -> bool:
    """Whether this audience saw a move (``token_moved``'s data, ``game`` after it): the token where it went or on
    the square it left, as the live map drew it (a hidden token never; with fog, a token in its view at either end)."""
    token = game.tokens.get(moved.get("token_id"))
    if token is None or token.hidden:
        return False
    start = moved.get("from")
    return fog.may_see(game, actor, token) or (isinstance(start, (list, tuple)) and len(start) == 2 and
                                               fog.may_see_at(game, actor, token, *start))


def _lines_read(game: Game, actor: Actor, key: str) -> list:
    """The newest event's log lines with ``key`` in their details (``"roll"``, ``"attack"``) this audience could read
    then: the live log's own rule (``audience.may_read``: a secret roll is the GM's, a line naming a token out of
    its view is not read)."""
    lines = []
    for e in reversed(game.log):
        if e.seq != game.seq:
            break
        if e.detail and key in e.detail:
            lines.append(e)
    if not lines:
        return []
    may_read = audience.may_read(game, actor)
    return [e for e in reversed(lines) if may_read(e)]


def _hit(fight: _Fight, seq: int, event: Event, line) -> None:
    """The attack's line in the log (``line``: the newest this audience could read then), ranked by the harm it did."""
    d = event.data
    result = d.get("result") or {}
    size = harm(result, d.get("attacker"))
    if size <= 0 and not result.get("hit"):  # a miss is no hit (a hit that harmed no one still is)
        return
    fight.hits.append({"seq": seq, "harm": size, "damage": damage_rolled(result), "text": line.text,
                       "round": fight.rounds})


# --- the board picture -----------------------------------------------------------


def board_picture(game: Game, actor: Actor) -> str:
    """A small SVG of the active map as this audience saw it: floor it knew, walls, doors, the tokens it saw; on a
    map more than ``FRAME_MIN`` squares across, the part around those tokens (``_frame``)."""
    board, grid = game.board, game.board.grid
    width, height = grid.extent(board.width, board.height)
    seen = fog.visible_tokens(game, actor)
    x0, y0, w, h = _frame(width, height, [_disc(game, grid, t) for t in seen])
    scale = PICTURE_PX / max(w, h, 1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x0:g} {y0:g} {w:g} {h:g}" '
           f'width="{w * scale:.0f}" height="{h * scale:.0f}" role="img">',
           f'<rect width="{width:g}" height="{height:g}" fill="#1f2937"/>']
    known = fog.known(game, actor)
    if known is None:
        out.append(f'<rect width="{width:g}" height="{height:g}" fill="#f3efe2"/>')
    elif not grid.hex:
        out.append(f'<path d="{fog.cells_path(known, board.width, board.height)}" fill="#f3efe2"/>')
    else:
        for cell in list(known)[:5000]:
            points = " ".join(f"{x:g},{y:g}" for x, y in grid.corners(cell))
            out.append(f'<polygon points="{points}" fill="#f3efe2"/>')
    if game.zones:
        for z in game.zones:  # each zone's box [x, y, w, h] in cells (webapp/game/bridge/zonelayout.py)
            box = z.get("box") if isinstance(z, dict) else None
            if isinstance(box, (list, tuple)) and len(box) == 4 and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in box):
                x, y, w, h = box
                out.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" fill="none" stroke="#6b7280" '
                           f'stroke-width="0.1"><title>{html.escape(str(z.get("name", "")))}</title></rect>')
    for cell in board.blocked:
        if known is None or cell in known:
            points = " ".join(f"{x:g},{y:g}" for x, y in grid.corners(cell))
            out.append(f'<polygon points="{points}" fill="#57534e"/>')
    lines = []
    for w in board.walls.values():
        lines.append((w.a, w.b, "#111827", 0.18))
    for d in board.doors.values():
        lines.append((d.a, d.b, "#b45309" if d.closed else "#fbbf24", 0.22))
    for (ax, ay), (bx, by), colour, stroke in lines:
        if known is not None and not _touches(grid, known, (ax, ay), (bx, by)):
            continue
        out.append(f'<line x1="{ax:g}" y1="{ay:g}" x2="{bx:g}" y2="{by:g}" stroke="{colour}" '
                   f'stroke-width="{stroke:g}" stroke-linecap="round"/>')
    acting = (game.combat or {}).get("current")
    for token in seen:
        cx, cy, r = _disc(game, grid, token)
        down = fighting.is_down(game, token)
        fade = ' opacity="0.45"' if down else ""
        ring = ' stroke="#facc15" stroke-width="0.14"' if token.id == acting else ' stroke="#fff" stroke-width="0.06"'
        name = html.escape(token.name)
        out.append(f'<g><title>{name}</title><circle cx="{cx:.3g}" cy="{cy:.3g}" r="{r:.3g}" '
                   f'fill="{html.escape(token.color)}"{ring}{fade}/>'
                   f'<text x="{cx:.3g}" y="{cy + 0.16 * r / 0.42:.3g}" font-size="{0.5 * r / 0.42:.3g}" '
                   f'text-anchor="middle" fill="#fff" font-family="sans-serif">{html.escape(token.name[:1])}</text>'
                   + (f'<line x1="{cx - r:.3g}" y1="{cy - r:.3g}" x2="{cx + r:.3g}" y2="{cy + r:.3g}" '
                      f'stroke="#111" stroke-width="0.1"/>' if down else "") + "</g>")
    out.append("</svg>")
    return "".join(out)


def _disc(game: Game, grid, token) -> tuple[float, float, float]:
    """A token's disc in the picture: its centre and radius, in squares."""
    cells = game.cells_of(token)
    xs = [grid.centre(c)[0] for c in cells]
    ys = [grid.centre(c)[1] for c in cells]
    return sum(xs) / len(xs), sum(ys) / len(ys), 0.42 * (token.size if not grid.hex else (1 if token.size == 1 else 1.6))


def _frame(width: float, height: float, discs: list[tuple[float, float, float]]) -> tuple[float, float, float, float]:
    """The box of the board a picture shows (x, y, width, height): the discs with ``FRAME_MARGIN`` around them,
    widened to ``FRAME_MIN`` squares each way and kept on the board; the whole board when it is no bigger, or
    when no token is seen."""
    if not discs or max(width, height) <= FRAME_MIN:
        return 0.0, 0.0, width, height
    box = []
    for lo, hi, size in ((min(x - r for x, _, r in discs), max(x + r for x, _, r in discs), width),
                         (min(y - r for _, y, r in discs), max(y + r for _, y, r in discs), height)):
        lo, hi = max(0.0, lo - FRAME_MARGIN), min(size, hi + FRAME_MARGIN)
        if hi - lo < min(FRAME_MIN, size):  # widened evenly on both sides, then kept on the board
            grow = min(FRAME_MIN, size) - (hi - lo)
            lo = min(max(0.0, lo - grow / 2), size - min(FRAME_MIN, size))
            hi = lo + min(FRAME_MIN, size)
        box.append((lo, hi))
    (x0, x1), (y0, y1) = box
    return x0, y0, x1 - x0, y1 - y0


def _touches(grid, known, a, b) -> bool:
    """Whether a wall from ``a`` to ``b`` borders a known cell (the fog keeps the walls of squares not seen)."""
    for t in (0.25, 0.5, 0.75):
        px, py = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
        for dx, dy in ((0.2, 0.2), (-0.2, -0.2), (0.2, -0.2), (-0.2, 0.2)):
            if grid.cell_at((px + dx, py + dy)) in known:
                return True
    return False
