"""The interface every game system implements and the app calls.

The app never needs to know which game is played: it asks the system of
the game for sheet fields, derived values, initiative, movement, range,
cover and attacks, and shows the breakdown each result carries.

Plain data in, plain data out: sheets are dicts of JSON-able values, so the
app can store them in the event log as they are.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, Protocol, runtime_checkable

from .copying import copied
from .dice import DiceSource, RollRecord
from .text import Say, say

BoardKind = Literal["grid", "zones"]
Diagonal = Literal["chebyshev", "alternating", "manhattan", "euclidean"]


class RuleNotImplemented(NotImplementedError):
    """A rule the system does not automate (yet): the app says so, it does not pretend."""


class RuleError(ValueError):
    """A request the rules do not allow (wrong weapon, out of range...), with the reason."""


@dataclass(frozen=True)
class Modifier:
    """One modifier of a roll or value, with where it comes from."""

    label: str
    value: int | float
    source: str = ""  # the rule section or the sheet entry it comes from

    def to_dict(self) -> dict:
        """``dataclasses.asdict``'s dict, written out: its fields are words and a number (values, shared), and an
        attack's odds list every modifier (the foes' plans and a forecast ask thousands, #68)."""
        return {"label": self.label, "value": self.value, "source": self.source}


SheetKind = Literal["int", "float", "die", "text", "bool", "choice", "rows", "flags", "set", "ints"]
RowsShape = Literal["list", "table", "map", "values", "record"]


@dataclass(frozen=True)
class SheetField:
    """One field of a character sheet, for the sheet form and validation: the form is built from these
    alone, so every system's sheet is edited with one template and read back by one parser.

    ``kind``:

    - ``int``, ``float``: a number; ``text``: a line of text (``lines`` > 1: a paragraph); ``bool``: yes or no;
    - ``choice``, ``die``: one of ``choices`` (a die in the system's notation); a number field with
      ``choices`` is picked from them too (the 3d6 encumbrance levels);
    - ``flags``: a table of some of ``choices`` -> yes (3d6 traits); ``set``: a list of some of ``choices``
      (a weapon's range bands); ``ints``: a short list of whole numbers, one per entry of ``choices``
      (rates of fire: single, burst, auto);
    - ``rows``: entries that have the same fields, ``columns``, kept on the sheet as ``shape`` says:
      ``list`` a list of tables; ``table`` a table by the first column's value, of tables of the others
      (weapons by name); ``map`` a table by the first column's value, of the second column's value (skill
      name -> die); ``values`` a list of the only column's values (edges); ``record`` one table of the
      columns (an armour slot).

    ``choices`` are values, or ``(value, label)`` pairs where the value is not a word a player knows.
    ``suggestions`` are values the rules know of, offered but not enforced (skill names).
    ``optional``: an empty field means the rules' default (``default``, or what ``help`` says: "empty: full");
    a field whose default is None is optional. A column made with ``column`` is optional (an empty one is
    left out of the entry) unless ``required``; its ``default`` is what the rules read when it is left out.
    ``more``: a column shown under "more" on each row (the rarely used ones).
    """

    key: str
    label: str
    kind: SheetKind = "int"
    default: Any = 0
    choices: tuple = ()
    help: str = ""
    group: str = ""
    columns: tuple["SheetField", ...] = ()
    shape: RowsShape = "list"
    optional: bool = False
    suggestions: tuple[str, ...] = ()
    more: bool = False
    lines: int = 1

    def options(self) -> list[tuple[Any, str]]:
        """``choices`` as (value, label) pairs."""
        return [c if isinstance(c, tuple) else (c, str(c)) for c in self.choices]

    @property
    def may_be_empty(self) -> bool:
        return self.optional or self.default is None


def column(key: str, label: str, kind: SheetKind = "text", default: Any = None, *, required: bool = False,
           **kw) -> SheetField:
    """A column of a ``rows`` field: optional (left out of the entry when empty) unless ``required``."""
    return SheetField(key, label, kind, default, optional=not required, **kw)


class SheetError(RuleError):
    """A sheet entry the rules refuse, with where and why apart: ``path`` leads to it from the sheet's top
    (``("weapons", "Colt", "rof")``, ``("weapons", 0, "mode")``, ``("attributes", "vigor")``) and
    ``reason`` says why in the player's words, without the path; the message is both, as before."""

    def __init__(self, path: tuple | list | str, reason: str, message: str | None = None) -> None:
        self.path = tuple(path.split(".")) if isinstance(path, str) else tuple(path)
        self.reason = reason
        if message is None:  # the field and the reason; in the rules' words when the reason is words
            dotted = ".".join(str(p) for p in self.path)
            message = say("{field}: {reason}", field=dotted, reason=reason) if isinstance(reason, Say) else f"{dotted}: {reason}"
        super().__init__(message)


@dataclass
class Combatant:
    """A token in a fight, as the rules see it."""

    id: str
    name: str
    sheet: dict = field(default_factory=dict)
    position: Any = None  # (x, y) on a grid, a zone name on a zone map
    side: str = ""  # tokens on the same side are allies
    is_player: bool = False
    state: dict = field(default_factory=dict)  # per-combat state the system keeps (ticks, cards, ...)


@dataclass
class AttackRequest:
    """Everything an attack needs that the app knows: who, with what, from where."""

    attacker: Combatant
    target: Combatant
    weapon: str | None = None  # a key of the attacker's sheet weapons
    distance: float = 0  # in squares on a grid; zone steps on a zone map
    cover: Any = None  # a rules.los.Cover on a grid, a cover level name on zones
    options: dict = field(default_factory=dict)  # system-specific choices (maneuver, called shot, ...)
    board: Any = None  # the rules.board.Board, for templates and adjacency
    others: list[Combatant] = field(default_factory=list)  # every other token, for gang-up, stray shots
    # a multi-target attack (Spray 'n Pray, Rapid Strike at two foes, Spraying Fire): one request per
    # target in the order picked, each with its own target, distance and cover (the first is this
    # request's own); empty for an attack at one target. The result then has one
    # ``details["targets"]`` entry per target (``{"target": id, "hit", ...}``) and its effects.
    targets: list["AttackRequest"] = field(default_factory=list)


@dataclass
class Effect:
    """A change a result causes: damage, a wound, a condition, cover damaged..."""

    kind: str
    target: str
    data: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class AttackResult:
    """A resolved attack with its whole breakdown."""

    hit: bool
    summary: str
    rolls: list[RollRecord] = field(default_factory=list)
    modifiers: list[Modifier] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "hit": self.hit,
            "summary": self.summary,
            "rolls": [r.to_dict() for r in self.rolls],
            "modifiers": [m.to_dict() for m in self.modifiers],
            "effects": [e.to_dict() for e in self.effects],
            "details": self.details,
        }


#: the key of the defense choice "no defense" in ``BaseSystem.defenses``
NO_DEFENSE = "none"


@dataclass
class ActionOption:
    """One thing an actor may do now, as the system names it: the app lists these, it never invents them."""

    key: str  # unique in one answer; what the app sends back to ``act``: "hold", "aim", "move:step"...
    label: str  # in the system's words, for the button
    kind: Literal["move", "attack", "defense", "turn", "other"] = "other"
    cost: str = ""  # "1 action", "2 ticks", "free", "" where the system has no costs
    available: bool = True
    reason: str = ""  # why not, when not available
    # e.g. {"allowance": 6} for a move, in the system's units; {"on_map": True}: taken by moving the token on
    # the map (as a plain "move" always is), never sent to ``act``
    data: dict = field(default_factory=dict)
    # one of the few actions a turn most often takes (a plain move, the basic attack, aim, hold...):
    # the app lists these first and puts them in a player's turn bar; the rest it groups by ``kind``
    usual: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class TurnUpdate:
    """One step of a fight's lifecycle (begin, next turn, an act): what changed and what the table shows.

    ``state`` is the system's own combat state: plain JSON-able data that only
    the system reads. The app stores it with the game and hands it back on the
    next call; it never interprets it. By convention ``state["combatants"][id]``
    is the per-combatant state the app puts in ``Combatant.state`` for
    attacks, moves and ``actions``.

    The app puts ``state["combatants"][id]`` into ``Combatant.state`` for every
    combatant of a call, the target of an attack as well as the attacker (a
    defense reads the defender's books). ``start_combat``'s ``surprised`` (the
    tokens caught unaware) reach ``begin_fight`` as ``Combatant.state["surprised"]
    = True`` on each of them (and no such key on the others): the system applies
    its own surprise rule and says in ``log`` who was surprised and what it cost
    them, or raises RuleError when its document has no surprise. ``next_turn`` with ``current`` None (a round waiting on
    held actions or declarations) moves the fight on as the system says.

    The update is a fact: the app records it in an event and applies it
    (``sheet_changes`` merged into the sheets, ``state`` stored) without
    calling the rules again, so a replayed log gives the same fight.
    """

    state: dict
    round: int = 1
    order: list[str] = field(default_factory=list)  # combatant ids in acting order for this round (or phase)
    current: str | None = None  # whose turn it is; None while the round waits (declarations done, GM to resolve...)
    phase: str = ""  # a label for the step where the system has steps ("declare", "phase 3"); "" if not
    rolls: list[RollRecord] = field(default_factory=list)
    log: list[str] = field(default_factory=list)  # lines for the game log, in the system's words
    sheet_changes: dict[str, dict] = field(default_factory=dict)  # combatant id -> sheet fields to set
    due: list[dict] = field(default_factory=list)  # attacks the rules say happen now, for the app to roll:
    # each {"attacker", "target", "weapon"?, "options"?} as an ``attack`` command takes them

    def to_dict(self) -> dict:
        return {
            "due": list(self.due),
            "state": self.state,
            "round": self.round,
            "order": list(self.order),
            "current": self.current,
            "phase": self.phase,
            "rolls": [r.to_dict() for r in self.rolls],
            "log": list(self.log),
            "sheet_changes": self.sheet_changes,
        }


@dataclass
class MoveResult:
    """A move in a fight as the rules judge it (the app found the path and its cost on the board)."""

    state: dict  # the fight's state after the move (movement or actions spent...)
    cost: float  # in the system's units (squares, yards, zones)
    left: float | None = None  # movement left this turn; None when the rules set no limit
    provokes: list[str] = field(default_factory=list)  # combatants the move gives a free or reactive attack
    log: list[str] = field(default_factory=list)
    rolls: list[RollRecord] = field(default_factory=list)
    # when the move is the turn's whole action and passes the turn (phase/TN: moving declares the
    # phase's Move, the next declarer is up): the fight as it stands after (its ``state`` is this
    # result's, its ``log`` empty: the move's lines are above); None when the turn goes on
    turn: "TurnUpdate | None" = None

    def to_dict(self) -> dict:
        out = {"state": self.state, "cost": self.cost, "left": self.left, "provokes": list(self.provokes),
               "log": list(self.log), "rolls": [r.to_dict() for r in self.rolls]}
        if self.turn is not None:
            out["turn"] = self.turn.to_dict()
        return out


@dataclass(frozen=True)
class CoverEffect:
    """What a cover fraction means in a system: its level and modifier."""

    level: str  # "none", "light", ... in the system's words
    modifier: int = 0
    label: str = ""


@runtime_checkable
class RuleSystem(Protocol):
    id: str
    name: str
    board: BoardKind
    diagonal: Diagonal

    def sheet_fields(self) -> list[SheetField]: ...

    def derived(self, sheet: dict) -> dict: ...

    def initiative(self, combatants: list[Combatant], dice: DiceSource) -> list[dict]: ...

    def move_allowance(self, sheet: dict, action: str = "move") -> float: ...

    def range_band(self, distance: float, weapon: dict) -> str | None: ...

    def cover_effect(self, cover: Any) -> CoverEffect: ...

    def attack(self, request: AttackRequest, dice: DiceSource) -> AttackResult: ...

    def odds(self, request: AttackRequest) -> dict:
        """The exact odds of an attack before it is rolled.

        Besides anything of its own, the answer has ``"outcomes"``: a list of
        ``{"label", "p"}``, mutually exclusive and summing to 1, in the
        system's words ("miss", "hit: Shaken", "hit: 1 wound", "critical
        failure"...), ``"hit"``: the chance of hitting at all, and
        ``"modifiers"``: every modifier of the roll as ``Modifier.to_dict()``.
        The app shows these and nothing system-specific.
        """
        ...

    def weapons(self, sheet: dict) -> list[dict]:
        """The sheet's weapons as ``{"key", "label", "data"}``: what an attack's ``weapon`` may name."""
        ...

    def apply(self, sheet: dict, result: AttackResult) -> dict: ...

    # The turn lifecycle: each system owns its own turn rules (cards, ticks,
    # phases, declarations, Shaken recovery, shock); the app only asks and shows.

    def begin_fight(self, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate: ...

    def next_turn(self, state: dict, combatants: list[Combatant], dice: DiceSource,
                  settings: dict | None = None) -> TurnUpdate: ...

    def actions(self, state: dict, actor: Combatant, settings: dict | None = None) -> list[ActionOption]: ...

    def act(self, state: dict, actor: Combatant, action: str, combatants: list[Combatant], dice: DiceSource,
            settings: dict | None = None, options: dict | None = None) -> TurnUpdate: ...

    # Moving and attacking inside a fight: the rules keep the books.

    def movement_left(self, state: dict, mover: Combatant, settings: dict | None = None) -> float | None: ...

    def move(self, state: dict, mover: Combatant, path: list, cost: float, combatants: list[Combatant],
             board: Any, dice: DiceSource, settings: dict | None = None) -> MoveResult: ...

    def after_attack(self, state: dict, result: AttackResult, settings: dict | None = None) -> dict: ...

    def reorder(self, state: dict, order: list[str], current: str | None, settings: dict | None = None) -> dict: ...

    def due_attacks(self, state: dict) -> list[dict] | None: ...

    def turn_now(self, state: dict) -> dict | None: ...

    # What everyone sees on a token: wounds, conditions and resources.

    def badges(self, sheet: dict, state: dict | None = None) -> list[dict]: ...


class BaseSystem:
    """Defaults for a system: it implements nothing it does not say it does."""

    id = "base"
    name = "Base"
    board: BoardKind = "grid"
    diagonal: Diagonal = "chebyshev"
    #: template names, relative to the templates folder
    sheet_template = "sheets/_generic.html"
    help_template = "help/generic.html"
    #: squares per grid cell in the system's distance unit, shown on the ruler
    cell_size = 1.0
    cell_unit = "square"
    #: the names of the cover materials the map editor offers, by key (words), where a system names them
    cover_material_labels: dict[str, str] = {}
    #: sheet fields (top-level keys) a player may not change on their own character: the rules set them
    gm_only_fields: tuple[str, ...] = ()
    #: counts a player may lower on their own character (spending them) but only the GM raises (awards)
    gm_raises_fields: tuple[str, ...] = ()

    def sheet_fields(self) -> list[SheetField]:
        return []

    def default_sheet(self) -> dict:
        return {f.key: f.default for f in self.sheet_fields()}

    def derived(self, sheet: dict) -> dict:
        return {}

    def initiative(self, combatants: list[Combatant], dice: DiceSource) -> list[dict]:
        raise RuleNotImplemented(say("{system}: initiative is not automated", system=self.name))

    def move_allowance(self, sheet: dict, action: str = "move") -> float:
        raise RuleNotImplemented(say("{system}: movement allowance is not automated", system=self.name))

    def range_band(self, distance: float, weapon: dict) -> str | None:
        raise RuleNotImplemented(say("{system}: range bands are not automated", system=self.name))

    def cover_effect(self, cover: Any) -> CoverEffect:
        raise RuleNotImplemented(say("{system}: cover is not automated", system=self.name))

    def attack(self, request: AttackRequest, dice: DiceSource) -> AttackResult:
        raise RuleNotImplemented(say("{system}: attacks are not automated", system=self.name))

    def odds(self, request: AttackRequest) -> dict:
        raise RuleNotImplemented(say("{system}: attack odds are not automated", system=self.name))

    def weapons(self, sheet: dict) -> list[dict]:
        """The sheet's ``weapons``, a table by name or a list of entries with a name: the usual shapes.
        ``data`` is the weapon's own entry, what ``range_band`` takes."""
        found = sheet.get("weapons") or {}
        if isinstance(found, dict):
            return [{"key": k, "label": str(k), "data": v if isinstance(v, dict) else {}} for k, v in found.items()]
        out = []
        for w in found:
            if isinstance(w, dict) and (w.get("key") or w.get("name")):
                key = str(w.get("key") or w.get("name"))
                out.append({"key": key, "label": str(w.get("name") or key), "data": w})
        return out

    def apply(self, sheet: dict, result: AttackResult) -> dict:
        raise RuleNotImplemented(say("{system}: applying results to sheets is not automated", system=self.name))

    def area_templates(self) -> list[dict]:
        """The templates the system's area attacks use, as ``{"key", "label", "shape", "size"}``:
        ``shape`` one of ``rules.areas.SHAPES`` ("circle", "cone", "line"), ``size`` in squares (a
        circle's radius; None where the rules fix the length themselves). ``key`` is what the attack
        takes in ``options["template"]``, with ``options["centre"]`` the square it is aimed at; the
        result then has one entry per token under it in ``details["targets"]`` (``{"target", ...}``).
        ``[]``: no area attacks with templates."""
        return []

    def attack_options(self, request: AttackRequest) -> list[dict]:
        """The choices the rules give the attacker for this attack now (this attacker, target, weapon,
        and the choices already in ``request.options``), for the attack card to draw; ``[]``: none.

        Each is ``{"key", "label", "kind", "default", "available", "reason", "help"?}``:

        - ``kind`` ``"choice"``: one of ``values``, each ``{"key", "label"}`` (and, where picking it makes
          the attack a multi-target one, ``"targets": n``, the most targets it may take, ``target``
          included); ``"bool"``: yes or no (``"targets": n`` likewise when yes); ``"int"``: a whole
          number from ``min`` to ``max``;
        - ``default``: the value the rules take when the option is left out of ``options``;
        - ``available`` False with a ``reason`` (in the rules' words, naming the rule) when the rules
          do not offer it now; the card shows it greyed with the reason;
        - ``gm`` True: the GM's alone (a GM's modifier): a player's card does not show it and the app
          refuses it from anyone else.

        ``attack`` and ``odds`` read the picked value from ``request.options[key]`` and refuse a value
        the rules do not allow now (RuleError naming the rule). ``settings``, ``defense``,
        ``template`` and ``centre`` are the app's own keys in ``options``: never an option's key."""
        return []

    def end_fight(self, state: dict, combatants: list[Combatant], dice: DiceSource,
                  settings: dict | None = None) -> TurnUpdate:
        """What the rules do when a fight ends (Stamina back, statuses gone...): the app applies
        ``sheet_changes`` and writes ``log``; ``state``, ``order`` and ``current`` are not read.
        This default: nothing changes."""
        return TurnUpdate(state={}, round=0)

    def defenses(self, request: AttackRequest) -> list[dict]:
        """The choices the rules give the target against this attack, before the roll: each
        ``{"key", "label", "value", "available", "reason"}``: ``value`` is what ``options["defense"]``
        takes for it (the app sends the ``key`` the defender picked and puts its ``value`` there).
        The key ``NO_DEFENSE`` ("none") is taking no defense: when it is the only choice available,
        there is nothing to choose, and the app rolls the attack with it without asking.
        ``[]``: the defender has no choice to make (a fixed defense, or none).

        Where the document gives a defense modifiers the defender picks (a 3d6 Dodge with a Dive or a
        Retreat, a Parry with a Riposte), each combination is a choice of its own, with ``group``
        the defense it modifies ("Dodge") so the prompt can set them together."""
        return []

    def begin_fight(self, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
        """Start a fight: the system's initiative, surprise, first round. (Systems override.)"""
        raise RuleNotImplemented(say("{system}: turn order is not automated", system=self.name))

    def next_turn(self, state: dict, combatants: list[Combatant], dice: DiceSource,
                  settings: dict | None = None) -> TurnUpdate:
        """End the current turn and start the next: the end-of-turn, new-round and start-of-turn steps."""
        raise RuleNotImplemented(say("{system}: turn order is not automated", system=self.name))

    def actions(self, state: dict, actor: Combatant, settings: dict | None = None) -> list[ActionOption]:
        """What this actor may do now, with the reason for what it may not."""
        return []

    def act(self, state: dict, actor: Combatant, action: str, combatants: list[Combatant], dice: DiceSource,
            settings: dict | None = None, options: dict | None = None) -> TurnUpdate:
        """A turn action that is neither a move nor an attack (hold, delay, declare, aim, recover...)."""
        raise RuleNotImplemented(say("{system}: the action {action} is not automated", system=self.name, action=repr(action)))

    def movement_left(self, state: dict, mover: Combatant, settings: dict | None = None) -> float | None:
        """How far the mover may still go this turn, in the system's units (None: the rules set no limit)."""
        return None

    # -- a foe's plans (#60): what the GM's suggestions weigh, in the system's own terms

    #: the module that reckons them (its ``attack_effect``, ``plan_turns`` and ``wounded``, as below), or None: the
    #: system's suggestions are not reckoned
    planner: Any = None

    def _planner(self):
        if self.planner is None:
            raise RuleNotImplemented(say("{system}: suggestions for the foes are not reckoned yet", system=self.name))
        return self.planner

    def attack_effect(self, request: AttackRequest, odds: dict) -> dict:
        """What an attack is worth, from its exact ``odds`` (what :meth:`odds` gave for ``request``), for the
        plans the GM is offered for a foe: ``{"effect": float, "unit": Say, "defense": Say | ""}``, ``effect``
        the expected harm in the system's own terms (injury, wounds), ``unit`` its name, ``defense`` the
        target's defense against it in words ("Parry 5"), "" when the rules do not say; optionally ``notes``,
        more words for the plan's why line (an option that helps: "Gang Up +2"). RuleNotImplemented:
        the system's suggestions are not reckoned."""
        return self._planner().attack_effect(request, odds)

    def plan_turns(self, state: dict, mover: Combatant, settings: dict | None = None) -> list[dict]:
        """The ways a turn may move and then attack, for the plans the GM is offered for a foe: each
        ``{"action": key | None, "action_options": {}, "attack": bool, "options": {}, "melee": bool | None,
        "label": Say}``: ``action`` the turn action taken first (``act``, a 3d6 maneuver), None for none;
        ``attack`` False for a move alone (taking cover, withdrawing); ``options`` the attack's options;
        ``melee`` True or False where the way is for one kind of weapon only; ``risky`` True where it leaves the
        foe worse off after (no defense, Vulnerable): a careful foe counts it as one more foe at it. Optional:
        ``move_most`` the squares the move may cost at most (what the attack's own cost leaves: Tesseris ticks),
        ``weapons`` the keys of the weapons the way fits (else every one of its kind), ``then`` an action taken
        after a move alone (Tesseris's Take Cover: only on squares with a cover piece beside them); ``alone`` True
        for the action alone, where the foe stands (a 3d6 Ready to reload ``weapon``), ``why`` its words;
        ``approach`` True for a move alone used only to close in on a foe no attack reaches this turn (Savage
        Worlds' run). A foe no attack reaches closes in by its ways with ``attack`` False (and no ``then``):
        their move, along the way to the foe on the whole board (#67).
        RuleNotImplemented: the system's suggestions are not reckoned."""
        return self._planner().plan_turns(state, mover, settings)

    def turn_begun(self, state: dict, mover: Combatant, settings: dict | None = None) -> dict:
        """The fight's ``state`` (a copy) as if ``mover``'s turn began now, for the plans the GM asks for a
        foe off its turn: ``mover`` the current fighter, its turn's books fresh as the rules start a turn
        (no dice rolled). RuleNotImplemented: the system's suggestions are not reckoned."""
        return self._planner().turn_begun(state, mover, settings)

    def wounded(self, sheet: dict) -> bool:
        """Whether the sheet's character is hurt (a cowardly foe withdraws once it is). RuleNotImplemented:
        the system's suggestions are not reckoned."""
        return self._planner().wounded(sheet)

    def move(self, state: dict, mover: Combatant, path: list, cost: float, combatants: list[Combatant],
             board: Any, dice: DiceSource, settings: dict | None = None) -> MoveResult:
        """Judge a move along ``path`` (cells, or zone ids) that costs ``cost``: RuleError with the reason
        when the rules forbid it (beyond the allowance, not this actor's turn...), else the books after it."""
        return MoveResult(state=state, cost=cost)

    def reorder(self, state: dict, order: list[str], current: str | None, settings: dict | None = None) -> dict:
        """The fight's state with the GM's turn order by hand (``order``: every id of the fight once).

        The one whose turn it is keeps it; the next turn goes to whoever follows it in the new
        order, and those the GM put before it who have not acted this round are passed over
        (a system that keeps "acted" books lets them act later). A system whose order is
        dealt again each round (cards, initiative rolls) deals it again then. This default
        serves books kept as ``state["order"]`` with an ``index`` into it; a system that
        keeps its order elsewhere overrides it."""
        kept = state.get("order") if isinstance(state, dict) else None
        if not isinstance(kept, list):
            raise RuleNotImplemented(say("{system}: the turn order cannot be changed by hand", system=self.name))
        mine = set(kept)
        new = copied(state)
        new["order"] = [i for i in order if i in mine] + [i for i in kept if i not in set(order)]
        if "index" in new and current in new["order"]:
            new["index"] = new["order"].index(current)
        return new

    def after_attack(self, state: dict, result: AttackResult, settings: dict | None = None) -> dict:
        """The fight's state after an attack (actions, ticks or shots spent): the app stores it."""
        return state

    def due_attacks(self, state: dict) -> list[dict] | None:
        """The attacks the rules say happen now (as ``TurnUpdate.due``), read from the books, for the app
        to refresh its list after an attack; None when the system keeps no such list (the app then drops
        the attack just rolled from its list)."""
        return None

    def turn_now(self, state: dict) -> dict | None:
        """Whose turn it is and the order (``{"current", "order"}`` as :class:`TurnUpdate` gives them),
        read from the books after an attack changed them (a shot took the one to act out of the fight);
        None when an attack never changes them."""
        return None

    def sample_encounter(self) -> dict | None:
        """A ready fight for a demo game: ``{"name", "map", "combatants": [{"name", "side", "sheet",
        "position"}]}`` (``map`` as ``POST /api/games`` takes it; ``position`` a zone id or ``[x, y]``),
        or None."""
        return None

    def badges(self, sheet: dict, state: dict | None = None) -> list[dict]:
        """``{"label", "kind"}`` for each wound, condition or resource a token shows on every screen
        (kind: "wound", "condition" or "resource"). ``state`` is the combatant's own books in a
        fight (``state["combatants"][id]``), None outside one."""
        return []


def checked_defenses(system, request: AttackRequest, labels: dict[str, str]) -> list[dict]:
    """``defenses()`` for a system whose ``options["defense"]`` takes a name: each of ``labels``
    (name -> label), available unless the system's odds refuse it, with the rules' reason."""
    out = []
    for key, label in labels.items():
        try:
            system.odds(replace(request, options={**(request.options or {}), "defense": key}))
            out.append({"key": key, "label": label, "value": key, "available": True, "reason": ""})
        except RuleError as exc:
            out.append({"key": key, "label": label, "value": key, "available": False,
                        "reason": exc.args[0] if exc.args else str(exc)})
        except RuleNotImplemented:
            continue
    return out


def round_robin(order: list[str], state: dict | None = None) -> TurnUpdate:
    """A fight in a fixed order, one turn each, round after round: for a table with no turn rules."""
    if state is None:
        return TurnUpdate(state={"order": list(order), "index": 0, "round": 1, "combatants": {i: {} for i in order}},
                          round=1, order=list(order), current=order[0] if order else None, log=[say("Round {n}", n=1)])
    order = [i for i in state["order"] if i in set(order)] if order else list(state["order"])
    index, round_ = state["index"] + 1, state["round"]
    log: list[str] = []
    if index >= len(order):
        index, round_ = 0, round_ + 1
        log.append(say("Round {n}", n=round_))
    new = {**state, "order": order, "index": index, "round": round_}
    return TurnUpdate(state=new, round=round_, order=order, current=order[index] if order else None, log=log)


class PlainGrid(BaseSystem):
    """A square grid with no rules: tokens move, the table decides the rest."""

    id = "plain_grid"
    name = say("Plain grid (no rules, tokens only)")  # words; a publisher's product name stays as published

    def begin_fight(self, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
        """No initiative here: the fight goes in the order the GM listed the tokens."""
        return round_robin([c.id for c in combatants])

    def next_turn(self, state: dict, combatants: list[Combatant], dice: DiceSource,
                  settings: dict | None = None) -> TurnUpdate:
        return round_robin([c.id for c in combatants], state)
