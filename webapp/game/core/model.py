"""The game's model: who asks, what is on the table, and the two things every command deals in.

The bottom of ``webapp.game``: plain data and nothing above it. An
:class:`Event` is a fact in the log, :class:`Rejected` a refusal with a message
for the sender; :class:`Game` is the state the events build. The feature
modules (moves, combat, attacks, maps...) import this; this imports none of them.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from rules.board import Board
from rules.cellmask import sorted_pairs
from rules.copying import copied
from rules.grid import SQUARE, Grid
from rules.text import SAY_KEY, Say, plain, revive, settle, unpack

#: whether the events and log lines made here keep their words packed for storage (``settle``): False on a copy of a
#: game nothing of which is stored or shown (a forecast's runs, a plan's sandbox: #68, a fifth of a duel's run went
#: into packing words nobody reads). A context variable: a thread's or greenlet's own, never the loop's by accident.
_PACKED: contextvars.ContextVar[bool] = contextvars.ContextVar("tacmap_words_packed", default=True)


@contextlib.contextmanager
def unstored():
    """Within it, events and log lines keep their words unpacked (no ``"_say"``): for copies never stored or shown.
    The words themselves (``Say``, English as a string) are the same."""
    token = _PACKED.set(False)
    try:
        yield
    finally:
        _PACKED.reset(token)


class Rejected(Exception):
    """A command the table refuses; the message goes back to the sender.

    ``code`` names the kind of refusal for clients that offer a way out
    (``"no_way"``: walls or closed doors are in the way; ``"fight_rules"``: the fight's rules
    refuse the GM's move, out of turn or past its allowance; either way the GM may force the move).
    """

    #: how a refusal in the rules' words (a ``rules.text.Say``) reads: English here; webapp/live/screens/language.py
    #: puts it in the reader's language (the request's, the socket's handshake's), so ``str(exc)`` answers
    #: the sender in their language wherever it is read
    speak: Callable[[Say], str] = staticmethod(str)

    def __init__(self, message: str, code: str | None = None, **params: Any) -> None:
        # a message id with its parameters (``Rejected(N_("%(name)s is full"), name=...)``): said in English
        # here, in the sender's language by webapp/live/screens/language.py's ``refusal_text``
        super().__init__(message % params if params else message)
        self.code = code
        self.msgid, self.params = (message, params) if params else (None, None)

    def __str__(self) -> str:
        message = self.args[0] if self.args else ""
        if isinstance(message, Say):
            return type(self).speak(message)
        return super().__str__()


@dataclass(frozen=True)
class Event:
    type: str
    data: dict

    def __post_init__(self) -> None:
        # the rules' words (rules/text.py): stored as English with their message ids beside them ("_say"),
        # read back as words a reader's page translates (not on a copy nothing stores: ``unstored``)
        if _PACKED.get():
            settle(self.data)

    def to_dict(self) -> dict:
        return {"type": self.type, "data": self.data}

    @classmethod
    def stored(cls, type: str, data: dict, text: str) -> "Event":
        """An event read back from the log, ``data`` parsed from its JSON ``text``: its packed words
        (``"_say"``) made words again (``revive``), and a text with none (most of a long log: moves, rolls) is
        not walked at all, one with some only until they are all found."""
        packed = text.count(f'"{SAY_KEY}"')
        if packed:
            revive(data, packed)  # its words back as words; nothing to pack (JSON holds no Say)
        event = object.__new__(cls)
        object.__setattr__(event, "type", type)
        object.__setattr__(event, "data", data)
        return event


MAX_TOKENS = 2_000
#: cells on a side of any map, squares or hexes: made, imported, blank or resized (#32: the worst map the
#: limits let in still plays, bench/bench_big_maps.py: a move's ack under 250 ms, fog on under 2 s)
MAX_BOARD = 300
MAX_SEGMENTS = 40_000  # wall and door segments on one map, together
MAX_PLAYERS = 50
PALETTE = ("#2563eb", "#16a34a", "#9333ea", "#ea580c", "#dc2626", "#0891b2", "#ca8a04", "#db2777")
FOE_COLOR = "#dc2626"


# --- who is asking ---------------------------------------------------------


@dataclass(frozen=True)
class Actor:
    role: Literal["gm", "player", "screen"]
    player_id: str | None = None
    #: the runner that plays the GM's foes (#60, webapp/game/planning/foeplay.py) sends its steps as the GM with its id here;
    #: None for anyone's own command. Not compared: it is the GM still, for every rule
    by: str | None = field(default=None, compare=False)

    @property
    def audience(self) -> str:
        return f"player:{self.player_id}" if self.role == "player" else self.role


GM = Actor("gm")
SCREEN = Actor("screen")


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


# --- state -------------------------------------------------------------------


@dataclass
class Token:
    id: str
    name: str
    x: int
    y: int
    color: str = PALETTE[0]
    owner: str | None = None
    hidden: bool = False
    kind: Literal["pc", "npc"] = "npc"
    sheet: dict = field(default_factory=dict)
    size: int = 1  # squares on a side: 1 one square, 2 Large (2 x 2), 3 Huge (3 x 3); on hexes 1, 3 or 7 hexes
    light: int = 0  # the light it carries: squares it lights around it (webapp/game/board/lighting.py)
    picture: str | None = None  # a token picture's id (game.pictures, webapp/game/board/handouts.py), cropped to the disc
    yielded: bool = False  # the GM's foe has surrendered in this fight: out of it (webapp/game/planning/morale.py, #67)

    def to_dict(self) -> dict:
        """As ``dataclasses.asdict`` gives it, 3x cheaper (a fogged game's checkpoint and snapshot take every
        token's): the fields are plain values but the sheet, copied deep."""
        out = dict(self.__dict__)
        out["sheet"] = copy.deepcopy(self.sheet)
        return out

    def cells(self, x: int | None = None, y: int | None = None, size: int | None = None,
              grid: Grid = SQUARE) -> list[tuple[int, int]]:
        """The cells the token covers (at its place, or at another one) on ``grid`` (the board's:
        ``Grid.footprint``, a size x size block of squares or 1, 3 or 7 hexes)."""
        return cells_at(self.x if x is None else x, self.y if y is None else y, size or self.size, grid)


def cells_at(x: int, y: int, size: int, grid: Grid = SQUARE) -> list[tuple[int, int]]:
    """The cells a token of ``size`` at (x, y) covers on ``grid`` (its anchor cell first)."""
    if grid.hex:
        return grid.footprint((x, y), size)
    return [(x + i, y + j) for j in range(size) for i in range(size)]


@dataclass
class Player:
    id: str
    name: str
    key_hash: str
    other_keys: list[str] = field(default_factory=list)  # devices of a player merged into this one
    merged: list[str] = field(default_factory=list)  # ids of the seats merged into this one (for their command ids)

    def holds(self, digest: str) -> bool:
        return any(hmac.compare_digest(digest, k) for k in [self.key_hash, *self.other_keys])


@dataclass
class LogEntry:
    seq: int
    text: str  # the line in English (all an old game's line holds)
    audience: str = "all"  # "all", "gm", or "player:<id>": that player alone (audience._reader, #58)
    detail: dict | None = None  # a roll's or an attack's breakdown
    # the line as a message id and its parameters (rules/text.py), rendered in each reader's language;
    # None: a line logged before lines had one (an old game, an archive), read in English as it was written
    message: dict | None = None

    def __post_init__(self) -> None:
        if isinstance(self.text, Say):
            self.message = self.text.pack()
        elif self.message is not None:
            try:
                said = unpack(self.message)
            except (KeyError, IndexError, ValueError, AttributeError, TypeError):
                said = None  # a damaged record: the English stays
            if isinstance(said, Say):
                self.text = said
        if self.detail and _PACKED.get():
            settle(self.detail)

    def to_dict(self) -> dict:
        """As a client reads it: the English ``text``, its ``message`` (id and parameters), the details
        without the messages kept for storage (``"_say"``). Built by :func:`plain`, which makes every dict and list
        anew (the leaves are strings, numbers and Says: immutable), not by ``asdict``, whose deep copy took each
        Say apart and back through pickling's reduce (1.4 ms a line of an attack: 70 ms of the loop for a state of
        50 lines)."""
        return plain({f.name: getattr(self, f.name) for f in fields(self)})

    def record(self) -> dict:
        """As the game's snapshot keeps it: every field, ``"_say"`` included, its dicts and lists copied (the same
        walk as :meth:`to_dict`, for the same reason)."""
        return {f.name: copied(getattr(self, f.name)) for f in fields(self)}


@dataclass
class Character:
    id: str
    name: str
    owner: str | None = None
    token_id: str | None = None
    sheet: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


FIRST_MAP = "map-1"


def lights_with_ids(lights: list[dict]) -> list[dict]:
    """A map's lights, each with an id (``light-1``... by its place; one it has already is kept): an import's
    lights, and those of a log or snapshot written before lights had ids."""
    return [{"id": f"light-{i + 1}", **light} for i, light in enumerate(lights)]


def saved_waits(d: dict) -> list:
    """What the table waits for (``Game.waits``) from the fields a saved game or an undo has (``pending_defense``,
    ``pending_soak``, ``pending_roll``)."""
    out: list = []
    if d.get("pending_defense"):
        out.append(["defense", d["pending_defense"]])
    out += [["soak", o] for o in d.get("pending_soak") or []]
    if d.get("pending_roll"):
        out.append(["roll", d["pending_roll"]])
    return out


@dataclass
class GameMap:
    id: str
    name: str
    board: Board | None  # None for the active map: its board is game.board
    zones: list[dict] | None = None
    picture: dict | None = None  # {"name": "<sha256>.<ext>", "content_type", "width", "height"} (pixels)
    align: dict = field(default_factory=lambda: {"cell_px": 64.0, "offset_x": 0.0, "offset_y": 0.0})
    fog: bool = False  # dynamic fog of war on this map (read by the fog module)
    # light sources ({"id", "x", "y", "range", "intensity", "color", "shadows"}: an import's, the GM's) and
    # the ambient light, "bright", "dim" or "dark" (webapp/game/board/lighting.py)
    lights: list[dict] = field(default_factory=list)
    ambient: str = "bright"
    tokens: dict = field(default_factory=dict)  # token id -> Token, while the map is not the active one

    def to_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "board": self.board.to_dict() if self.board else None,
                "zones": self.zones, "picture": self.picture, "align": dict(self.align), "fog": self.fog,
                "lights": self.lights, "ambient": self.ambient, "tokens": [t.to_dict() for t in self.tokens.values()]}

    @classmethod
    def from_dict(cls, d: dict) -> "GameMap":
        return cls(id=d["id"], name=d["name"], board=Board.from_dict(d["board"]) if d.get("board") else None,
                   zones=d.get("zones"), picture=d.get("picture"), align=dict(d["align"]), fog=d.get("fog", False),
                   lights=lights_with_ids(d.get("lights", [])), ambient=d.get("ambient", "bright"),
                   tokens={t["id"]: Token(**t) for t in d.get("tokens", [])})


@dataclass
class Game:
    id: str
    name: str
    system: str
    board: Board
    seq: int = 0
    tokens: dict[str, Token] = field(default_factory=dict)
    players: dict[str, Player] = field(default_factory=dict)
    show_join: bool = True
    # a player may take their seat back on a new device with the join code and their name, without asking the
    # GM first (off: the GM is asked, webapp/game/tableside/seats.py; an old log that never said is asked too)
    allow_reclaim: bool = False
    seat_requests: dict[str, dict] = field(default_factory=dict)  # id -> {"player_id", "key_hash"}: asked
    counter: int = 0  # the last number used for a token or player id
    log: list[LogEntry] = field(default_factory=list)
    settings: dict = field(default_factory=dict)  # the GM's choices over the system's default_settings()
    combat: dict | None = None  # {"state", "round", "order", "current", "phase"} while a fight is on
    undone: list[int] = field(default_factory=list)  # the seqs of the events the GM has undone
    characters: dict[str, Character] = field(default_factory=dict)
    zones: list[dict] | None = None  # a zone map: [{"id", "name", "adjacent", "cover", "box"}], areas of the board
    # the game's maps by id (webapp/game/board/maps.py): board, zones and tokens above are the active map's
    maps: dict[str, GameMap] = field(default_factory=dict)
    active_map: str = FIRST_MAP
    gm_view: str | None = None  # the map the GM's screen shows while preparing it (None: the active one)
    templates: dict[str, dict] = field(default_factory=dict)  # area templates on the map (webapp/game/board/templates.py)
    # what the table waits for (#66, webapp/game/core/waits.py): an attack's defense, Soak rolls, a roll made at the
    # table, as [kind, entry] pairs; pending_defense, pending_soak and pending_roll below are read from it
    waits: list = field(default_factory=list)
    pending_reroll: dict | None = None  # a Benny reroll offered after a missed attack (webapp/game/fight/reroll.py)
    dice: dict = field(default_factory=dict)  # who rolls the dice: the app or the table (webapp/game/fight/table_dice.py)
    gm_password: str | None = None  # a salted hash (webapp/game/tableside/keys.py), never the password; never sent
    fog_on: bool = False  # dynamic fog of war on the active map (webapp/game/bridge/fog.py)
    revealed: set = field(default_factory=set)  # squares the GM revealed to every player by hand
    explored: dict = field(default_factory=dict)  # player id -> the squares their tokens have seen
    # token id -> name of the tokens removed lately: with fog, the log lines naming them stay unread by players
    removed: dict = field(default_factory=dict)
    # the same for those removed while no player and not the table screen saw them (#62): their names stay unread
    # by players even once the fog is off (the lines written while they stood unseen say "all": the fog hid them)
    removed_unseen: dict = field(default_factory=dict)
    screen_touch: bool = False  # the table screen takes touches: it moves tokens (webapp/game/tableside/touch.py)
    screen_view: dict | None = None  # what the GM has the table screen show (webapp/game/tableside/screenview.py)
    recap_on: bool = False  # the table screen shows the recap over the map (webapp/game/views/recap.py)
    # uploaded token pictures and hand-outs by id (webapp/game/board/handouts.py)
    pictures: dict[str, dict] = field(default_factory=dict)
    handouts: dict[str, dict] = field(default_factory=dict)
    # the GM's foes' tactics (#60, webapp/game/planning/suggestions.py): token id -> {"tactic", "anchor"}; the GM's alone
    tactics: dict[str, dict] = field(default_factory=dict)
    # the GM's "play the foes" switch (#60, webapp/game/planning/foeplay.py): {"on", "runner"} or {"on": False, "why"...}
    foe_play: dict = field(default_factory=dict)
    # what the GM's foes do once their side has lost most of its number (#67, webapp/game/planning/morale.py):
    # {"setting": "off" | "fall_back" | "surrender", "started": the foes' ids as the fight began}; the GM's alone
    morale: dict = field(default_factory=dict)
    vision: Any = field(default=None, repr=False, compare=False)  # fog.Vision: a cache, never saved

    LOG_KEEP = 50
    REMOVED_KEEP = 500  # names of removed tokens remembered (the log keeps LOG_KEEP lines)
    paused: bool = False  # the X-card paused the scene (webapp/game/tableside/safety.py): no one's name with it

    def next_id(self, prefix: str) -> str:
        """A new random id (``t-9f3c01ab``): numbers in a row would let a player count the hidden tokens
        in the gaps. The id goes into the event, so a replay gives every token the same id again."""
        taken = set(self.tokens) | set(self.players) | set(self.characters)
        while True:
            new = f"{prefix}-{secrets.token_hex(4)}"
            if new not in taken:
                return new

    def token_at(self, x: int, y: int, exclude: str | None = None,
                 seen: Callable[[Token], bool] | None = None) -> Token | None:
        """The token covering square (x, y), big tokens included (only those ``seen`` passes, when given:
        the ones an audience may see, ``webapp.game.bridge.fog.may_see``)."""
        grid = self.board.grid
        for t in self.tokens.values():
            if t.id == exclude:
                continue
            if (t.x <= x < t.x + t.size and t.y <= y < t.y + t.size) if not grid.hex else (
                    (x, y) in grid.footprint((t.x, t.y), t.size)):
                if seen is None or seen(t):
                    return t
        return None

    def cells_of(self, token: Token, x: int | None = None, y: int | None = None,
                 size: int | None = None) -> list[tuple[int, int]]:
        """``token.cells`` on this game's board (squares or hexes)."""
        return token.cells(x, y, size, self.board.grid)

    # what the table waits for, as the protocol and the saved games have it: read from ``waits`` (written only by
    # webapp/game/core/waits.py)
    @property
    def pending_defense(self) -> dict | None:
        return next((entry for kind, entry in self.waits if kind == "defense"), None)

    @property
    def pending_soak(self) -> list[dict]:
        return [entry for kind, entry in self.waits if kind == "soak"]

    @property
    def pending_roll(self) -> dict | None:
        return next((entry for kind, entry in self.waits if kind == "roll"), None)

    def player_named(self, name: str) -> Player | None:
        folded = name.casefold()
        return next((p for p in self.players.values() if p.name.casefold() == folded), None)

    def to_dict(self) -> dict:
        """The whole state, secrets included: for snapshots, never for clients."""
        return {
            "id": self.id,
            "name": self.name,
            "system": self.system,
            "seq": self.seq,
            "board": self.board.to_dict(),
            "tokens": [t.to_dict() for t in self.tokens.values()],
            "players": [asdict(p) for p in self.players.values()],
            "show_join": self.show_join,
            "allow_reclaim": self.allow_reclaim,
            "seat_requests": self.seat_requests,
            "counter": self.counter,
            "log": [e.record() for e in self.log],
            "settings": self.settings,
            "combat": self.combat,
            "undone": self.undone,
            "characters": [c.to_dict() for c in self.characters.values()],
            "zones": self.zones,
            "maps": [m.to_dict() for m in self.maps.values()],
            "active_map": self.active_map,
            "gm_view": self.gm_view,
            "templates": list(self.templates.values()),
            "pending_defense": self.pending_defense,
            "pending_soak": self.pending_soak,
            "pending_reroll": self.pending_reroll,
            "dice": self.dice,
            "pending_roll": self.pending_roll,
            "gm_password": self.gm_password,
            "fog_on": self.fog_on,
            "revealed": sorted(list(c) for c in self.revealed),
            "explored": {pid: sorted_pairs(cells) for pid, cells in self.explored.items()},
            "removed": dict(self.removed),
            "removed_unseen": dict(self.removed_unseen),
            "screen_touch": self.screen_touch,
            "screen_view": self.screen_view,
            "recap_on": self.recap_on,
            "pictures": list(self.pictures.values()),
            "handouts": list(self.handouts.values()),
            "paused": self.paused,
            "tactics": {k: dict(v) for k, v in self.tactics.items()},
            "foe_play": dict(self.foe_play),
            "morale": dict(self.morale),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Game":
        return cls(
            id=d["id"],
            name=d["name"],
            system=d["system"],
            board=Board.from_dict(d["board"]),
            seq=d["seq"],
            tokens={t["id"]: Token(**t) for t in d["tokens"]},
            players={p["id"]: Player(**p) for p in d["players"]},
            show_join=d["show_join"],
            allow_reclaim=d.get("allow_reclaim", False),
            seat_requests=dict(d.get("seat_requests", {})),
            counter=d["counter"],
            log=[LogEntry(**e) for e in d["log"]],
            settings=d.get("settings", {}),
            combat=d.get("combat"),
            undone=d.get("undone", []),
            characters={c["id"]: Character(**c) for c in d.get("characters", [])},
            zones=d.get("zones"),
            maps={m["id"]: GameMap.from_dict(m) for m in d.get("maps", [])}
            or {FIRST_MAP: GameMap(id=FIRST_MAP, name="Main map", board=None)},
            active_map=d.get("active_map", FIRST_MAP),
            gm_view=d.get("gm_view"),
            templates={t["id"]: dict(t) for t in d.get("templates", [])},
            waits=saved_waits(d),
            pending_reroll=d.get("pending_reroll"),
            dice=dict(d.get("dice") or {}),
            gm_password=d.get("gm_password"),
            fog_on=d.get("fog_on", False),
            revealed={tuple(c) for c in d.get("revealed", [])},
            explored={pid: {tuple(c) for c in cells} for pid, cells in d.get("explored", {}).items()},
            removed=dict(d.get("removed", {})),
            removed_unseen=dict(d.get("removed_unseen", {})),
            screen_touch=d.get("screen_touch", False),
            screen_view=d.get("screen_view"),
            recap_on=d.get("recap_on", False),
            pictures={p["id"]: dict(p) for p in d.get("pictures", [])},
            handouts={h["id"]: dict(h) for h in d.get("handouts", [])},
            paused=d.get("paused", False),
            tactics={k: dict(v) for k, v in (d.get("tactics") or {}).items()},
            foe_play=dict(d.get("foe_play") or {}),
            morale=dict(d.get("morale") or {}),
        )


def bump_counter(game: Game, new_id: str) -> None:
    """Old logs numbered their ids (t1, p2, c3): the counter remembers the last number (random ids have none)."""
    numbered = re.fullmatch(r"[a-z]+(\d{1,9})", new_id)
    if numbered:
        game.counter = max(game.counter, int(numbered.group(1)))
