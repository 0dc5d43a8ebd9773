"""Tables, constants and default settings of *Phase/TN Combat Sequence*.

The numbers the document gives (the surprise TN, the wild-shot penalty,
the burst's three rounds, the action lengths, the body areas) and a
per-game setting for each place where it stops short (see
:func:`default_settings`; every setting is listed on the help page).
"""

from __future__ import annotations

import functools

from ..dice import DiceError, parse
from ..system import RuleError
from ..text import say

SRC_SEQUENCE = "Combat Sequence"
SRC_INITIATIVE = "Initiative and Actions"
SRC_COMBINED = "Combined Actions"
SRC_RANGED = "Ranged Attacks"
SRC_SPECIAL = "Special Ranged Attacks"
SRC_WOUNDS = "Damage and Wounds"
SRC_SETTING = "game setting (the document is silent)"

#: action lengths, shortest first: shorter actions resolve first
LENGTHS: tuple[str, ...] = ("free", "phase", "round", "turn", "minute")
RANK = {name: i for i, name in enumerate(LENGTHS)}
#: an action's cost as the action list says it, by its length
LENGTH_WORDS = {"free": say("free action"), "phase": say("phase action"), "round": say("round action"),
                "turn": say("turn action"), "minute": say("minute action")}
#: the line of a group of actions that resolve together, by their length: whole sentences, one per length
GROUP_LINES = {"free": lambda actions: say("Free actions (together): {actions}.", actions=actions),
               "phase": lambda actions: say("Phase actions (together): {actions}.", actions=actions),
               "round": lambda actions: say("Round actions (together): {actions}.", actions=actions),
               "turn": lambda actions: say("Turn actions (together): {actions}.", actions=actions),
               "minute": lambda actions: say("Minute actions (together): {actions}.", actions=actions)}
#: a weapon's fire mode as the sheet says it
MODE_WORDS = {"single": say("single shot"), "semi": say("semi-automatic"), "auto": say("automatic")}

LOCATIONS: tuple[str, ...] = (
    "head",
    "chest",
    "abdomen",
    "left arm",
    "right arm",
    "left leg",
    "right leg",
)

ATTRIBUTES: tuple[str, ...] = (
    "strength",
    "reflexes",
    "intelligence",
    "perception",
    "constitution",
    "willpower",
)
#: the attributes' and body areas' names as people read them (the rules' words, #37)
ATTRIBUTE_WORDS = {"strength": say("Strength"), "reflexes": say("Reflexes"), "intelligence": say("Intelligence"),
                   "perception": say("Perception"), "constitution": say("Constitution"), "willpower": say("Willpower")}
LOCATION_WORDS = {"head": say("head"), "chest": say("chest"), "abdomen": say("abdomen"), "left arm": say("left arm"),
                  "right arm": say("right arm"), "left leg": say("left leg"), "right leg": say("right leg")}
#: the default trauma effects (the setting "trauma_effects") as people read them; a GM's own text stays as written
TRAUMA_EFFECT_WORDS = {"unconscious": say("unconscious"), "dying": say("dying"), "left arm useless": say("left arm useless"),
                       "right arm useless": say("right arm useless"),
                       "left leg useless, falls prone": say("left leg useless, falls prone"),
                       "right leg useless, falls prone": say("right leg useless, falls prone")}
LOCATION_TITLES = {"head": say("Head"), "chest": say("Chest"), "abdomen": say("Abdomen"), "left arm": say("Left arm"),
                   "right arm": say("Right arm"), "left leg": say("Left leg"), "right leg": say("Right leg")}


def attribute_words(name: str):
    """An attribute's name as people read it (a name the document does not have stays as written)."""
    return ATTRIBUTE_WORDS.get(name, name.capitalize())

#: the document's own numbers (sections "Combat Sequence" and "Ranged Attacks")
SURPRISE_TN = 8
WILD_SHOT_MODIFIER = -2
BURST_BULLETS = 3

#: actions the module knows by name; any other name is a GM-described action
#: whose length the declarer gives. ``mode`` is the fire mode of the shots the
#: action fires (see :func:`.attack.attack`); ``weapon_modes`` the weapon
#: modes (sheet ``weapons[].mode``) that can fire it.
ACTIONS: dict[str, dict] = {
    # "Ranged Attacks": Targeting is a phase action that lines up the weapon.
    "target": {"length": "phase", "targets": True, "label": say("Targeting")},
    # "Ranged Attacks" names the Aim action and says a wild shot cannot use it;
    # its length and bonus are readings (``aim_bonus``, ``aim_max``).
    "aim": {"length": "phase", "targets": True, "needs_targeting": True, "label": say("Aim")},
    "fire": {"length": "phase", "targets": True, "shots": 1, "mode": "single", "label": say("Fire")},
    # "Special Ranged Attacks": full auto for one phase is a three-round burst.
    "three_round_burst": {
        "length": "phase",
        "targets": True,
        "shots": 1,
        "burst": BURST_BULLETS,
        "mode": "burst",
        "weapon_modes": ("auto",),
        "label": say("Three-round burst"),
    },
    # "Special Ranged Attacks": firing a fully automatic weapon is a round action.
    "full_auto": {
        "length": "round",
        "targets": True,
        "shots": 1,
        "auto": True,
        "mode": "full_auto",
        "weapon_modes": ("auto",),
        "label": say("Full auto"),
    },
    # The document gives no movement rates: moving is a phase action of up to
    # ``move_per_phase`` squares (a reading, see :mod:`.movement`).
    "move": {"length": "phase", "label": say("Move"), "moves": True},
    # "Combined Actions": a round action of a character with a semi-automatic
    # firearm, whose first phase is a Targeting action and whose last phase
    # fires two shots instead of one.
    "target_and_fire": {
        "length": "round",
        "targets": True,
        "combined": True,
        "mode": "single",
        "weapon_modes": ("semi", "auto"),
        "label": say("Target and fire"),
        "steps": [{"at": "first", "kind": "target"}, {"at": "last", "kind": "fire", "shots": 2}],
    },
}
SHOOTING = {"fire", "three_round_burst", "full_auto", "target_and_fire"}


def default_settings() -> dict:
    """Per-game choices for everything *Phase/TN Combat Sequence* leaves open.

    Dice: the document gives "a Reflexes roll (TN 8)" and initiative
    totals of 16 and 21. One d10 plus an attribute rated 1-10 (5 is
    average) makes TN 8 a real test (an average Reflexes 5 needs 3+ on
    the d10, 80%; Reflexes 2 needs 6+, 50%), which the +1 per failed phase
    then eases; initiative as d10 + Reflexes + Intelligence averages 15.5,
    so 16 is an ordinary total and 21 a quick one. With 2d10 + attribute
    the TN 8 check would almost never fail (99% at Reflexes 5).

    Movement: the document gives no rates. With 2 phases a round, 5 rounds
    a turn and 6 turns a minute a phase is one second, and a Move phase
    action covers ``move_per_phase`` squares (3: a jog of about 3 yards a
    second).
    """
    return {
        "roll_dice": "d10",
        "initiative_attributes": ["reflexes", "intelligence"],
        "initiative_ties": "name",
        "phases_per_round": 2,
        "rounds_per_turn": 5,
        "turns_per_minute": 6,
        "free_actions_per_phase": 1,
        "free_while_waiting": False,
        "surprise_tn": SURPRISE_TN,
        "surprise_rounds": 1,
        "ranged_attribute": "reflexes",
        "ranged_tn": 8,
        "called_shot_tn": {
            "head": 4,
            "chest": 1,
            "abdomen": 2,
            "left arm": 3,
            "right arm": 3,
            "left leg": 2,
            "right leg": 2,
        },
        "drift_first_arm": "right",
        "hit_location_dice": "d10",
        "hit_location_table": [
            [1, 1, "head"],
            [2, 3, "chest"],
            [4, 4, "abdomen"],
            [5, 5, "right arm"],
            [6, 6, "left arm"],
            [7, 8, "right leg"],
            [9, 10, "left leg"],
        ],
        "move_per_phase": 3,
        "aim_bonus": 1,
        "aim_max": 3,
        "burst_margin_per_extra_hit": 3,
        "full_auto_bullets": 10,
        "flesh_per_constitution": 3,
        "trauma_check": True,
        "trauma_attribute": "constitution",
        "trauma_location_modifier": {
            "head": 2,
            "chest": 1,
            "abdomen": 1,
            "left arm": 0,
            "right arm": 0,
            "left leg": 0,
            "right leg": 0,
        },
        "trauma_roll_penalty": 2,
        "trauma_effects": {
            "head": "unconscious",
            "chest": "dying",
            "abdomen": "dying",
            "left arm": "left arm useless",
            "right arm": "right arm useless",
            "left leg": "left leg useless, falls prone",
            "right leg": "right leg useless, falls prone",
        },
    }


@functools.lru_cache(maxsize=64)
def _dice_ok(expr: str) -> bool:
    """A dice expression the game's dice can roll (parsed once: the settings are resolved at every rule call;
    a refused one raises, and is not kept)."""
    parse(expr)
    return True


class _Resolved(dict):
    """Settings resolved (:func:`resolve_settings`): read only, as one resolution is shared by every rule call given
    the same settings. A copy or a pickle of it is a plain dict (a worker process's, a state's copy)."""

    def _read_only(self, *args, **kwargs):
        raise TypeError("resolved Phase/TN settings are read only: copy them (dict(s)) to change one")

    __setitem__ = __delitem__ = __ior__ = update = pop = popitem = setdefault = clear = _read_only

    def __reduce__(self):
        return dict, (dict(self),)


#: the settings resolved, by the text (``repr``) of what they change of the defaults: a rule call resolves the
#: settings it is given (the bridge gives the defaults with the game's choices over them), and one Phase/TN fight's
#: calls nest (health -> checks...), some 500 resolutions of the same settings in a forecast's duel, a fifth of its
#: time (#68). Bounded: emptied past ``_KEPT`` different settings.
_RESOLVED: dict[str, _Resolved] = {}
_KEPT = 64
_DEFAULTS = default_settings()  #: compared with, never handed out


def _changes(settings: dict) -> dict:
    """What ``settings`` says otherwise than the defaults (a value of another type counts: True is not 1)."""
    return {k: v for k, v in settings.items()
            if k not in _DEFAULTS or type(v) is not type(_DEFAULTS[k]) or v != _DEFAULTS[k]}


def resolve_settings(settings: dict | None = None) -> dict:
    """The defaults overlaid with the game's settings, checked: read only (shared by every call given the same
    settings; resolved ones given back are returned as they are)."""
    if type(settings) is _Resolved:
        return settings
    changes = _changes(settings) if settings else None
    key = repr(changes) if changes else ""
    found = _RESOLVED.get(key)
    if found is not None:
        return found
    resolved = _Resolved(_resolved(settings))
    if len(_RESOLVED) >= _KEPT:
        _RESOLVED.clear()
    _RESOLVED[key] = resolved
    return resolved


def _resolved(settings: dict | None) -> dict:
    out = default_settings()
    for key, value in (settings or {}).items():
        if key not in out:
            raise RuleError(say("unknown Phase/TN setting {key}", key=repr(key)))
        out[key] = value
    for key in ("roll_dice", "hit_location_dice"):
        try:
            _dice_ok(out[key]) if isinstance(out[key], str) else parse(out[key])
        except DiceError as exc:
            raise RuleError(say("setting {key}: {error}", key=key, error=exc.args[0] if exc.args else str(exc))) from None
    for key in ("phases_per_round", "rounds_per_turn", "turns_per_minute"):
        if not isinstance(out[key], int) or out[key] < 1:
            raise RuleError(say("setting {key} must be a whole number of at least 1", key=key))
    for attr in out["initiative_attributes"]:
        if attr not in ATTRIBUTES:
            raise RuleError(say("setting {key}: unknown attribute {value}", key="initiative_attributes", value=repr(attr)))
    if out["drift_first_arm"] not in ("right", "left"):
        raise RuleError(say("setting {key} must be 'right' or 'left'", key="drift_first_arm"))
    if not isinstance(out["move_per_phase"], (int, float)) or isinstance(out["move_per_phase"], bool) \
            or out["move_per_phase"] < 0:
        raise RuleError(say("setting {key} must be a number of squares, 0 or more", key="move_per_phase"))
    for key in ("aim_bonus", "aim_max", "burst_margin_per_extra_hit"):
        if not isinstance(out[key], int) or out[key] < (1 if key == "burst_margin_per_extra_hit" else 0):
            raise RuleError(say("setting {key} must be a whole number", key=key))
    if out["initiative_ties"] not in ("name", "reflexes"):
        raise RuleError(say("setting {key} must be 'name' or 'reflexes'", key="initiative_ties"))
    return out
