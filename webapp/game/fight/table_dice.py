"""The table's own dice (#59): players roll real dice and enter the faces; the app plays the rule from them.

A game's dice are *the app's* (the default, as before) or *the table's* (``set_dice``). With the table rolling, a
command that rolls is decided with a :class:`rules.dice.TableDice` source (``table.decide``): the rolls its rules
mark with a roller (``dice.roll(expr, purpose, roller=token_id, needs=...)``) whose dice the table rolls stop the
command at the first roll with no faces yet, and the command is recorded as waiting (``roll_asked``: the command
itself, its sender, the faces made so far and what this roll is). The roller's device asks for the faces;
``enter_dice`` gives them (or lets the app roll that one), and the command is decided again from the start with
every face so far: the same rules, the same dice, the same outcome as the app's dice showing those faces. Until
then no command that could change what the roll decides is taken (``waiting``). Rolls the rules make together
(``with dice.together():``, a round's initiative, #70) are asked at once, each of its roller; each entry is kept
(``roll_entered``) and the command is decided again once all are in.

Who rolls: a player's token's dice are that player's unless they tick "the app rolls for me" (a roll of theirs that
waits is then rolled at once, #70); the foes' dice (a
token with no owner) are the GM's, or the app's when the GM lets it roll the foes. A roll its rules mark with no
roller is the app's, as is every roll while the game's dice are the app's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.dice import DT_EXPLODE, DiceError, DiceSource, NeedDice, RandomDice, TableDice, parse, rolled_from
from rules.text import Say, pack, say, unpack

from . import characters
from ..bridge import fog
from ..core import waits
from ..core.feature import Deciding, Feature
from ..core.model import Actor, Event, Rejected
from ..core.text import N_, rules_words

if TYPE_CHECKING:
    from ..core.model import Game

MODES = ("app", "table")
MAX_FACES = 200  # one entry: more faces than any roll of the five systems shows (explosions included)

class SetDice(BaseModel):
    """``{"mode"}`` (the GM): who rolls the game's dice; ``{"foes"}`` (the GM): "app" lets the app roll the
    foes' dice while the players roll theirs; ``{"player_id", "app_rolls"}`` (that player or the GM): the app
    rolls that player's dice (no dice at hand)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["set_dice"]
    mode: Literal["app", "table"] | None = None
    foes: Literal["app", "table"] | None = None
    player_id: str | None = Field(default=None, max_length=40)
    app_rolls: bool | None = None

class EnterDice(BaseModel):
    """The faces of the roll the table was asked for, in the order rolled (each explosion's die right after the
    face that exploded), or ``app``: the app rolls this one."""

    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["enter_dice"]
    roll_id: str = Field(max_length=40)
    faces: list[int] | None = Field(default=None, max_length=MAX_FACES)
    app: bool = False
    #: which roll of rolls asked together (#70): its index among the command's rolls (``state.pending_roll.rows``);
    #: none: the first still waiting that the sender may enter
    at: int | None = Field(default=None, ge=0, le=10_000)

class CallOffRoll(BaseModel):
    """The GM calls off the command that waits for a roll: nothing of it happens."""

    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["call_off_roll"]
    roll_id: str = Field(max_length=40)

COMMANDS = (SetDice, EnterDice, CallOffRoll)
EVENTS = ("dice_set", "roll_asked", "roll_entered", "roll_settled", "roll_called_off")
#: what may still be sent while a roll waits: the roll's own commands, and what never changes what it decides

# --- who rolls ---------------------------------------------------------------------

def settings(game: "Game") -> dict:
    """The game's dice: ``{"mode", "app_rolls_for": [player ids], "foes"}``."""
    d = game.dice or {}
    return {"mode": d.get("mode", "app"), "app_rolls_for": sorted(d.get("app_rolls_for", ())),
            "foes": d.get("foes", "table")}

def table_rolls(game: "Game", roller: str | None, d: dict | None = None) -> bool:
    """Whether the table rolls this combatant's dice (a token id; None: a roll the rules give no roller).
    ``d``: the game's dice settings to judge by (:func:`settings`), if not the game's own now."""
    d = settings(game) if d is None else d
    if d["mode"] != "table" or roller is None:
        return False
    token = game.tokens.get(roller)
    if token is None:
        return False
    if token.owner and token.owner in game.players:
        return token.owner not in d["app_rolls_for"]
    return d["foes"] == "table"

def chooser_of(game: "Game", roller: str | None) -> str | None:
    """The player who enters the rolls of this roller (a token id; None: the GM's)."""
    token = game.tokens.get(roller) if roller else None
    return token.owner if token is not None and token.owner in game.players else None

# --- deciding ---------------------------------------------------------------------

def asked(game: "Game", cmd: Any, actor: "Actor", need: NeedDice, previous: dict | None = None) -> Event:
    """The event that records a command waiting for the table's roll ``need``: one roll (``roll``), or rolls made
    together (#70: ``rolls``, each with ``at``, its index among the command's rolls; ``made`` then runs to the last
    roll of the block, None at theirs)."""
    made = list(need.made)
    rolls = [_asked_roll(game, a) for a in need.asked]
    if len(rolls) == 1 and rolls[0]["at"] == len(made) - 1 and made[-1] is None:
        made.pop()  # one roll, the block's last: asked as ever
    entered = list((previous or {}).get("entered", []))
    entered += [False] * (len(made) - len(entered))
    if len(rolls) == 1 and rolls[0]["at"] == len(made):
        rest = {"roll": {k: v for k, v in rolls[0].items() if k != "at"}}
    else:
        rest = {"roll": rolls[0], "rolls": rolls}
    return Event("roll_asked", {
        "id": game.next_id("roll"), "command": cmd.model_dump(mode="json", exclude_none=True),
        "sender": {"role": actor.role, "player_id": actor.player_id},
        "made": made, "entered": entered[:len(made)], **rest})

def _asked_roll(game: "Game", a) -> dict:
    return {"dice": a.expr, "purpose": pack_words(a.purpose), "roller": a.roller, "needs": pack_words(a.needs),
            # who enters it (a player's id; None: the GM's): its numbers are theirs (``ack``: #72)
            "player": chooser_of(game, a.roller),
            **({"chance": a.chance} if a.chance is not None else {}), "at": a.at}

def batch(pending: dict) -> list[dict]:
    """The rolls a waiting command asks, each with ``at`` (its index among the command's rolls) and, once entered,
    its ``faces`` (#70: rolls made together are asked at once); a command that asks one (every entry from before
    #70) asks it at the end of ``made``."""
    if pending.get("rolls"):
        return pending["rolls"]
    return [{**pending["roll"], "at": len(pending["made"])}]

def still(pending: dict) -> list[dict]:
    """The rolls of ``batch`` whose faces are not in yet."""
    return [r for r in batch(pending) if r.get("faces") is None]

def pack_words(words):
    return pack(words) if words else None

def waiting(game: "Game", kind: str, actor: "Actor") -> None:
    """Refuse a command that could change what the waiting roll decides, saying whose roll it is (the list of what
    the table waits for: a roll holds every command but those it lets through, ``waits.ROLL``)."""
    for wait in waits.holding_command(game, kind):
        roller = game.tokens.get(wait.who or "")
        if roller is not None and fog.may_see(game, actor, roller):
            raise Rejected(wait.kind.refusal, name=roller.name,
                           purpose=unnamed(game, actor, words(wait.entry["roll"]["purpose"])))
        raise Rejected(wait.kind.refusal_unseen)

def check_entry(game: "Game", cmd: EnterDice | CallOffRoll, actor: "Actor") -> tuple[dict, dict | None]:
    """The waiting roll this entry answers, checked: its id, who may enter it, the faces on its dice; the command
    that waits and the roll (of those asked together, #70: the one ``at`` names; None for a call off)."""
    pending = game.pending_roll
    if not pending or pending["id"] != cmd.roll_id:
        raise Rejected(N_("that roll is no longer waiting"))
    if isinstance(cmd, CallOffRoll):
        if actor.role != "gm":
            raise Rejected(N_("only the GM can call a roll off"))
        return pending, None
    mine = [r for r in still(pending) if actor.role == "gm"
            or (actor.role == "player" and actor.player_id == chooser_of(game, r.get("roller")))]
    if cmd.at is not None:
        roll = next((r for r in still(pending) if r["at"] == cmd.at), None)
        if roll is None:
            raise Rejected(N_("that roll is no longer waiting"))
    else:
        roll = (mine or still(pending))[0]
    if roll not in mine:
        raise Rejected(N_("this roll is not yours to enter"))
    if not cmd.app:
        if cmd.faces is None:
            raise Rejected(N_("enter the faces rolled, or let the app roll it"))
        try:
            rolled_from(roll["dice"], cmd.faces)
        except DiceError as exc:
            raise Rejected(rules_words(exc)) from None
    return pending, roll

def decide(game: "Game", cmd: Any, actor: "Actor") -> list[Event]:
    if isinstance(cmd, SetDice):
        return _set(game, cmd, actor)
    if isinstance(cmd, CallOffRoll):
        pending, _ = check_entry(game, cmd, actor)
        return [Event("roll_called_off", {"id": pending["id"]})]
    raise Rejected(N_("that roll is no longer waiting"))  # pragma: no cover - enter_dice is table.decide's

def rolled_for_now(game: "Game", cmd: Any, events: list[Event]) -> tuple[dict, list[dict]] | None:
    """The dice settings a ``set_dice`` leaves when they give the app the dice of a roll that waits, and those rolls
    (#70: a player's "the app rolls for me" rolls a roll of theirs that waits at once, not left waiting for "Let the
    app roll it"; so do the GM's "the app rolls the foes" for a foe's, and the app's dice for any), else None."""
    pending = game.pending_roll
    if not (isinstance(cmd, SetDice) and events and pending):
        return None
    after = {**settings(game), **events[-1].data}
    rolls = [r for r in still(pending) if not table_rolls(game, r.get("roller"), after)]
    return (after, rolls) if rolls else None

def _set(game: "Game", cmd: SetDice, actor: "Actor") -> list[Event]:
    d = settings(game)
    if cmd.player_id is not None or cmd.app_rolls is not None:
        if cmd.player_id is None or cmd.app_rolls is None or cmd.mode is not None or cmd.foes is not None:
            raise Rejected(N_("a player's own dice are set with player_id and app_rolls alone"))
        if cmd.player_id not in game.players:
            raise Rejected(N_("no such player"))
        if actor.role != "gm" and actor.player_id != cmd.player_id:
            raise Rejected(N_("only that player or the GM can say who rolls their dice"))
        who = set(d["app_rolls_for"])
        (who.add if cmd.app_rolls else who.discard)(cmd.player_id)
        changes = {"app_rolls_for": sorted(who)}
    else:
        if actor.role != "gm":
            raise Rejected(N_("only the GM can say who rolls the game's dice"))
        if cmd.mode is None and cmd.foes is None:
            raise Rejected(N_("say the mode (app or table) or who rolls the foes"))
        changes = {k: v for k, v in (("mode", cmd.mode), ("foes", cmd.foes)) if v is not None}
    if all(d[k] == v for k, v in changes.items()):
        return []
    return [Event("dice_set", changes)]

def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    if event.type == "dice_set":
        game.dice = {**settings(game), **d}
        if "mode" in d:
            log(say("The table rolls its own dice") if d["mode"] == "table" else say("The app rolls the dice"))
        if "foes" in d:
            log(say("The app rolls the foes' dice") if d["foes"] == "app" else say("The GM rolls the foes' dice"))
        if "app_rolls_for" in d:
            log(say("Who the app rolls for: {names}", names=", ".join(
                game.players[p].name for p in d["app_rolls_for"] if p in game.players) or say("nobody")))
    elif event.type == "roll_asked":
        waits.ask(game, "roll", dict(d))
    elif event.type == "roll_entered":  # one of the rolls asked together (#70): its faces kept till all are in
        pending = waits.first(game, "roll")
        if pending and pending["id"] == d["id"]:
            rolls = [{**r, "faces": d["faces"], "entered": d["entered"]} if r["at"] == d["at"] else r
                     for r in batch(pending)]
            left = [r for r in rolls if r.get("faces") is None]
            waits.ask(game, "roll", {**pending, "rolls": rolls, "roll": left[0] if left else pending["roll"]})
    elif event.type in ("roll_settled", "roll_called_off"):
        gone = waits.keep(game, "roll")
        pending = gone[0] if gone else None
        if event.type == "roll_called_off" and pending:
            line = say("The GM called off the roll ({purpose})", purpose=words(pending["roll"]["purpose"]))
            log(line, "gm" if _names_hidden(game, pending["roll"].get("roller"), line) else "all")

def words(packed) -> str:
    """Words kept packed in an event, as a Say again (or '')."""
    return unpack(packed) if packed else ""

# --- what each audience sees -------------------------------------------------------

def pending_view(game: "Game", actor: "Actor") -> dict | None:
    """``state.pending_roll`` (#59): the roller's player and the GM get the dice and what counts (``chooser``:
    true); the table screen and the other players the same without the dice (``chooser``: false), and
    ``roller``: null where they may not see the roller.

    What they are told keeps the GM's secrets (#72): a roller they may not see is not named, nor is its purpose
    said (most name it: "ZqShade: initiative"), only whose side rolls; a purpose that names a token they may not
    see says "someone out of sight" for it; a foe's numbers (what counts, the chance, the odds: "the d10 and the
    Wild d6", "+6 is added" tell its sheet) are the GM's alone. A player's token's roll is the table's to see
    whole, as before. On the GM's page a player's roll says whose phone asks it (``player``), the GM may still
    enter it (#70).

    Rolls asked together (#70: a round's initiative) are its ``rows``, one a roll still waiting, each as above with
    ``at`` (which of them ``enter_dice`` answers); the rest of it is the first this audience enters, else the first.
    What this audience may not see of them is told once a side (how many hidden foes roll is the GM's)."""
    pending = game.pending_roll
    if not pending:
        return None
    unseen = characters.unseen_names(game, actor)  # once, for every purpose and what counts
    rows, told = [], set()
    for roll in still(pending):
        row = _row_view(game, actor, pending["id"], roll, unseen)
        if row["chooser"] is None:
            if str(row["purpose"]) in told:
                continue
            told.add(str(row["purpose"]))
        rows.append(row)
    if not rows:
        return None
    first = next((r for r in rows if r["chooser"]), rows[0])
    return {**first, "rows": rows}

def _row_view(game: "Game", actor: "Actor", roll_id: str, roll: dict, unseen: frozenset[str]) -> dict:
    """One waiting roll as ``actor`` may be told it (:func:`pending_view`)."""
    token = game.tokens.get(roll.get("roller") or "")
    player = chooser_of(game, roll.get("roller"))
    chooser = actor.role == "gm" or (actor.role == "player" and actor.player_id == player)
    seen = token is not None and (chooser or fog.may_see(game, actor, token))
    numbers = seen and (chooser or player is not None)  # a foe's: the GM's alone
    if seen or chooser:
        purpose = unnamed(game, actor, words(roll["purpose"]), unseen)
    else:
        purpose = say("for the GM's side") if player is None else say("for a player")
    out = {"id": roll_id, "at": roll["at"], "roller_id": token.id if seen else None, "roller": token.name if seen else None,
           "player": game.players[player].name if player and seen else None,
           "purpose": purpose, "needs": unnamed(game, actor, words(roll["needs"]), unseen) if numbers else "",
           "chooser": chooser if seen or chooser else None,
           # the purpose names its roller ("Kai: initiative"): the prompt says it alone, not "Kai: roll Kai: ..." (#70)
           "named": bool(seen and token.name and characters.naming(frozenset({token.name})).search(str(purpose))),
           # the rule's exact chance that the roll meets its need (#59), said where the need is
           "chance": roll.get("chance") if numbers else None,
           "odds": odds_words(roll.get("chance")) if numbers else ""}
    if chooser:
        out["dice"] = roll["dice"]
        out["pad"] = pad(roll["dice"])
        out["gm"] = actor.role == "gm"
    return out

def ack(events: list[Event], actor: "Actor") -> dict:
    """A command that waits for a roll made at the table (``roll_asked``) answers with it (``pending_roll``)."""
    out: dict = {}
    for event in events:
        if event.type == "roll_asked":
            out["pending_roll"] = _pending_ack(event, actor)  # its numbers: its roller's player's, the GM's (#72)
    return out

def _pending_ack(event: Event, actor: "Actor") -> dict:
    """The ``pending_roll`` of a command's answer (``roll_asked``): its dice, roller and chance for whoever enters
    it (its player, the GM); for anyone else (a player whose attack waits for a foe's defense roll) its id alone: a
    foe's numbers and a hidden foe's id are the GM's (#72). An event from before #72 says no player: the GM's."""
    rolls = event.data.get("rolls") or [event.data["roll"]]
    roll = next((r for r in rolls if actor.role == "gm"
                 or (actor.role == "player" and r.get("player") == actor.player_id)), None)
    if roll is None:
        return {"id": event.data["id"]}
    return {"id": event.data["id"], "dice": roll["dice"], "roller_id": roll["roller"],
            **({"chance": roll["chance"]} if "chance" in roll else {})}

def unnamed(game: "Game", actor: "Actor", said, names: frozenset[str] | None = None):
    """Words about a roll with every name this audience may not know said "someone out of sight"; words that still
    name one (not the rules' words with the name a parameter: an old game's plain text) are "a roll at the table".
    ``names``: those names, when the caller has them already (:func:`characters.unseen_names`)."""
    names = characters.unseen_names(game, actor) if names is None else names
    if not said or not names:
        return said
    pattern = characters.naming(names)
    if isinstance(said, Say):
        said = said.map_args(lambda value: say("someone out of sight") if pattern.search(value) else value)
    return say("a roll at the table") if pattern.search(str(said)) else said

def _names_hidden(game: "Game", roller: str | None, line: str) -> bool:
    """Whether a line about a roll names a hidden token, or is a hidden token's roll: a line for the GM then."""
    token = game.tokens.get(roller or "")
    hidden = frozenset(t.name for t in game.tokens.values() if t.hidden and t.name) - frozenset(
        t.name for t in game.tokens.values() if not t.hidden)
    return (token is not None and token.hidden) or bool(hidden and characters.naming(hidden).search(str(line)))

def percent(chance: float) -> str:
    """A chance as a whole percentage, never 0% or 100% for what may yet go either way ("<1%", ">99%")."""
    if 0 < chance < 0.005:
        return "<1%"
    if 0.995 <= chance < 1:
        return ">99%"
    return f"{round(chance * 100)}%"

def odds_words(chance) -> str:
    """The chance of a roll said in the ask (#59): "62% to make it", or '' when the rule gave none."""
    if not isinstance(chance, (int, float)) or isinstance(chance, bool):
        return ""
    return say("{percent} to make it", percent=percent(chance))

def pad(expr: str) -> list[dict]:
    """The dice a roll asks for, one entry a die in rolling order, as the phone's pad shows them: its sides, the
    face from which it rolls again (an exploding die: its maximum; a dT: 9), and whether it is a dT."""
    out = []
    for term in parse(expr):
        if term.is_constant:
            continue
        again = (DT_EXPLODE if term.dt else term.sides) if term.explode else None
        out += [{"sides": term.sides, "again": again, "dt": term.dt}] * term.count
    return out

def state_view(game: "Game", actor: "Actor") -> dict:
    """``state.dice``."""
    return settings(game)

def guard(game: "Game", cmd: Any, actor: "Actor", aside: dict) -> None:
    """While a roll made at the table waits, what could change its outcome is refused (``waiting``)."""
    waiting(game, cmd.type, actor)

def wrap(game: "Game", cmd: Any, actor: "Actor", dice: DiceSource | None, deciding: Deciding) -> list[Event]:
    """A command decided with the table's dice: a roll made at the table stops it (``roll_asked``) until
    ``enter_dice`` decides it again with the faces; with the app's dice (the default) it is decided as ever."""
    if isinstance(cmd, EnterDice):
        return _entered(game, cmd, actor, dice or RandomDice(), deciding)
    if game.dice.get("mode") != "table":  # the app's dice (the default): as before
        return deciding.decide(game, cmd, actor, dice)
    if isinstance(cmd, SetDice) and game.pending_roll:
        events = deciding.decide(game, cmd, actor, dice)
        now = rolled_for_now(game, cmd, events)
        if now is not None:  # "the app rolls for me" while a roll of theirs waits: the app rolls it now (#70)
            after, rolls = now
            source = dice or RandomDice()
            fills = {r["at"]: (source.roll(r["dice"]).faces, False) for r in rolls}
            return [*events, *_filled(game, game.pending_roll, fills, source, deciding, after)]
        return events
    source = TableDice([], lambda roller: table_rolls(game, roller), dice or RandomDice())
    try:
        return deciding.decide(game, cmd, actor, source)
    except NeedDice as need:
        return [asked(game, cmd, actor, need)]

def _entered(game: "Game", cmd: EnterDice, actor: "Actor", dice: DiceSource, deciding: Deciding) -> list[Event]:
    """The faces of a roll the table was asked for (#59), or the app's roll of them."""
    pending, roll = check_entry(game, cmd, actor)
    faces = dice.roll(roll["dice"]).faces if cmd.app else list(cmd.faces)
    return _filled(game, pending, {roll["at"]: (faces, not cmd.app)}, dice, deciding)

def _filled(game: "Game", pending: dict, fills: dict, dice: DiceSource, deciding: Deciding,
            settings: dict | None = None) -> list[Event]:
    """Faces for rolls that wait (``fills``: at -> (faces, entered at the table)). Of rolls asked together, while
    one is still not in, each is kept (``roll_entered``, #70); once all are in, the waiting command is decided again
    from the start, as its sender, with every roll made so far: it asks the next roll, or its events come with the
    roll settled. ``settings``: who rolls what, if not the game's dice settings now (a ``set_dice`` that gives the
    app a player's dice, in the same step)."""
    made = [None if f is None else list(f) for f in pending["made"]]
    entered = list(pending.get("entered", [])) + [False] * (len(made) - len(pending.get("entered", [])))
    for roll in batch(pending):
        at = roll["at"]
        got = fills.get(at) or ((roll["faces"], roll.get("entered", True)) if roll.get("faces") is not None else None)
        if got is None:
            return [Event("roll_entered", {"id": pending["id"], "at": at_, "faces": list(f), "entered": e})
                    for at_, (f, e) in fills.items()]
        made += [None] * (at + 1 - len(made))
        entered += [False] * (at + 1 - len(entered))
        made[at], entered[at] = list(got[0]), got[1]
    original = deciding.parse(pending["command"])
    sender = Actor(pending["sender"]["role"], pending["sender"].get("player_id"))
    source = TableDice(made, lambda roller: table_rolls(game, roller, settings), dice)
    try:
        events = deciding.decide(game, original, sender, source)
    except NeedDice as need:
        return [asked(game, original, sender, need, {"entered": entered})]
    entered += [False] * (len(source.made) - len(entered))
    return [*events, Event("roll_settled", {"id": pending["id"], "made": source.made, "entered": entered})]

#: around every command: refused while a roll waits, decided with the table's dice, answered with the roll it waits for
FEATURE = Feature("table_dice", COMMANDS, decide={SetDice: decide, CallOffRoll: decide, EnterDice: decide},
                  events=EVENTS, evolve=evolve, guard=guard, wrap=wrap, ack=ack)
