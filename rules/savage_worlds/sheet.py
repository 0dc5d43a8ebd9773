"""The Savage Worlds character sheet: its fields, a sample sheet, validation,
weapons as written on the sheet, and the derived values (Parry, Toughness,
Pace, penalties).

Sources: the Savage Worlds core facts (Parry, Toughness, Pace);
*Savage Worlds Combat System Reference*, "Improvised Weapons".
"""

from __future__ import annotations

from ..text import said, say
from ..system import Modifier, RuleError, SheetError, SheetField, column
from .checks import damage_expression, half_die, parse_die
from .data import ATTRIBUTES, COMBAT_SKILLS, DEFAULT_CARD_EDGES, IMPROVISED, MAX_WOUNDS, PACE, SESSION_BENNIES, SKILL_WORDS


#: the dice a trait is written with; a trait above d12 is d12+1, d12+2...
DICE = ("d4", "d6", "d8", "d10", "d12", "d12+1", "d12+2", "d12+3", "d12+4")
#: the skills these rules roll, offered when a skill is added (any other name is a skill too)
SKILL_SUGGESTIONS = COMBAT_SKILLS


def weapon_columns() -> tuple[SheetField, ...]:
    """A weapon's fields as the sheet form shows them, and what the rules read when one is left out."""
    return (
        column("name", "Weapon", required=True),
        column("damage", "Damage", default="Str", help="Str+d8, 2d6+1"),
        column("range", "Range", default="", help="12/24/48; empty: melee"),
        column("ap", "AP", "int", 0),
        column("rof", "RoF", "int", 1),
        column("reach", "Reach", "int", 0, more=True),
        column("parry", "Parry bonus", "int", 0, more=True),
        column("min_str", "Minimum Strength", "die", "", choices=DICE[:5], more=True),
        column("improvised", "Improvised", "choice", "", choices=tuple((k, k) for k in IMPROVISED), more=True),  # their words
        column("thrown", "Thrown", "bool", False, more=True),
        column("shotgun", "Shotgun", "bool", False, more=True),
        column("double_barrel", "Double barrel", "bool", False, more=True),
        column("two_handed", "Two hands", "bool", False, more=True),
        column("edged", "Edged", "bool", False, more=True),
        column("natural", "Natural weapon", "bool", False, more=True),
        column("ready", "Ready", "bool", True, more=True),
    )


def sheet_fields() -> list[SheetField]:
    return [
        SheetField("name", "Name", "text", "Hero", group="identity"),
        SheetField("wild_card", "Wild Card", "bool", True, help="Extras roll no Wild Die and fall to one Wound", group="identity"),
        SheetField("group", "Extras group", "text", "", help="Extras of one group share an action card", group="identity"),
        *[SheetField(f"attributes.{a}", a.title(), "die", "d6", choices=DICE, group="attributes") for a in ATTRIBUTES],
        SheetField("skills", "Skills", "rows", {"fighting": "d6", "shooting": "d6", "athletics": "d6", "notice": "d6"},
                   shape="map", group="skills", help="an unlisted skill rolls d4-2",
                   columns=(column("name", "Skill", required=True, suggestions=SKILL_SUGGESTIONS),
                            column("die", "Die", "die", "d4", choices=DICE, required=True))),
        SheetField("pace", "Base Pace", "int", 6, group="combat"),
        SheetField("size", "Size", "int", 0, help="added to Toughness", group="combat"),
        SheetField("armor", "Armour", "int", 0, group="combat"),
        SheetField("shield", "Shield Parry bonus", "int", 0, group="combat"),
        SheetField("wounds", "Wounds", "int", 0, group="state"),
        SheetField("fatigue", "Fatigue", "int", 0, group="state"),
        SheetField("shaken", "Shaken", "bool", False, group="state"),
        SheetField("stunned", "Stunned", "bool", False, group="state"),
        SheetField("vulnerable", "Vulnerable", "bool", False, group="state"),
        SheetField("prone", "Prone", "bool", False, group="state"),
        SheetField("incapacitated", "Incapacitated", "bool", False, group="state"),
        SheetField("bennies", "Bennies", "int", SESSION_BENNIES, group="state",
                   help="a Wild Card starts each session with 3; a Joker gives every ally one"),
        SheetField("edges", "Edges", "rows", [], shape="values", group="edges",
                   columns=(column("name", "Edge", required=True, suggestions=(*DEFAULT_CARD_EDGES, "Fleet-Footed")),)),
        SheetField("hindrances", "Hindrances", "rows", [], shape="values", group="edges",
                   columns=(column("name", "Hindrance", required=True, suggestions=("Hesitant",)),)),
        SheetField("weapons", "Weapons", "rows", {}, shape="table", columns=weapon_columns(), group="weapons"),
    ]


def default_sheet() -> dict:
    return {
        "name": "Hero",
        "wild_card": True,
        "group": "",
        "attributes": {"agility": "d8", "smarts": "d6", "spirit": "d6", "strength": "d6", "vigor": "d8"},
        "skills": {"fighting": "d8", "shooting": "d6", "athletics": "d6", "notice": "d6", "riding": "d4"},
        "pace": 6,
        "size": 0,
        "armor": 1,
        "shield": 0,
        "wounds": 0,
        "fatigue": 0,
        "shaken": False,
        "stunned": False,
        "vulnerable": False,
        "prone": False,
        "incapacitated": False,
        "bennies": 3,
        "edges": ["Level Headed"],
        "hindrances": [],
        "weapons": {
            "Long sword": {"damage": "Str+d8", "edged": True},
            "Colt Peacemaker": {"damage": "2d6+1", "range": "12/24/48", "ap": 1, "rof": 1},
            "Throwing knife": {"damage": "Str+d4", "range": "3/6/12", "thrown": True, "edged": True},
        },
    }


_COUNTS = {"wounds": (0, MAX_WOUNDS), "fatigue": (0, 2), "bennies": (0, None), "armor": (0, None),
           "pace": (0, None), "shield": (0, None), "size": (None, None)}
_FLAGS = ("wild_card", "shaken", "stunned", "vulnerable", "prone", "incapacitated")
_WEAPON_COUNTS = {"ap": 0, "rof": 1, "reach": 0, "parry": 0}


def _dotted(path: tuple) -> str:
    return ".".join(str(p) for p in path)


def _whole(key: str | tuple, value, low, high) -> int:
    """A whole number for ``key`` within [low, high]; SheetError naming the field otherwise."""
    path = key if isinstance(key, tuple) else (key,)
    try:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError
        n = int(value)
    except (TypeError, ValueError):
        raise SheetError(path, say("a whole number, not {value}", value=repr(value))) from None
    if low is not None and n < low:
        if low:
            raise SheetError(path, say("{n} is below {low}", n=n, low=low))
        raise SheetError(path, say("cannot be negative"), say("{field} cannot be negative", field=_dotted(path)))
    if high is not None and n > high:
        raise SheetError(path, say("at most {most}, not {n}", most=high, n=n))
    return n


def _die_field(path: tuple, value) -> None:
    try:
        parse_die(value)
    except RuleError:
        raise SheetError(path, say("not a die: {value} (write d4, d6, d8, d10, d12 or d12+1)", value=repr(value))) from None


def validate_sheet(sheet: dict) -> None:
    """SheetError naming the first field that is not valid (``attributes.vigor``, ``weapons.Colt.rof``...)."""
    if not isinstance(sheet, dict):
        raise RuleError(say("a sheet is a table of fields"))
    for key in ("attributes", "skills", "weapons"):
        if not isinstance(sheet.get(key) or {}, dict):
            raise SheetError((key,), say("a table of name to weapon") if key == "weapons" else say("a table of name to die"))
    for a in ATTRIBUTES:
        _die_field(("attributes", a), (sheet.get("attributes") or {}).get(a, "d6"))
    for k, v in (sheet.get("skills") or {}).items():
        _die_field(("skills", k), v)
    for key, (low, high) in _COUNTS.items():
        if key in sheet:
            _whole(key, sheet[key], low, high)
    for key in _FLAGS:
        if key in sheet and not isinstance(sheet[key], bool):
            raise SheetError((key,), say("yes or no (true/false), not {value}", value=repr(sheet[key])))
    for key in ("edges", "hindrances"):
        v = sheet.get(key) or []
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise SheetError((key,), say("a list of names"))
    for k, w in (sheet.get("weapons") or {}).items():
        if not isinstance(w, dict):
            raise SheetError(("weapons", k), say("a table of damage, range, AP, RoF..."))
        for key, low in _WEAPON_COUNTS.items():
            if key in w:
                _whole(("weapons", k, key), w[key], low, None)
        try:
            ws = weapon_stats(w)
        except SheetError as exc:
            raise SheetError(("weapons", k, *exc.path), exc.reason) from None
        try:
            damage_expression(ws["damage"], "d6")
        except RuleError as exc:
            raise SheetError(("weapons", k, "damage"), said(exc)) from None
        if ws["min_str"]:
            try:
                parse_die(ws["min_str"])
            except RuleError as exc:
                raise SheetError(("weapons", k, "min_str"), said(exc)) from None


def weapon_defaults(w: dict) -> dict:
    out = {"damage": "Str", "range": "", "ap": 0, "rof": 1, "shotgun": False, "double_barrel": False,
           "reach": 0, "thrown": False, "two_handed": False, "improvised": "", "min_str": "",
           "edged": False, "natural": False, "parry": 0, "ready": True, "launched": None}
    out.update(w or {})
    return out


def weapon_stats(weapon: dict | None) -> dict:
    """A sheet weapon with defaults filled in, improvised weapons from their table
    (Improvised Weapons), and ``ranges`` parsed from ``"12/24/48"``."""
    w = weapon_defaults(weapon or {})
    if w["improvised"]:
        try:
            rng, dmg, min_str = IMPROVISED[str(w["improvised"]).lower()]
        except KeyError:
            reason = say("improvised weapons are light, medium or heavy, not {value}", value=repr(w["improvised"]))
            raise SheetError(("improvised",), reason, reason) from None
        w.update(damage=dmg, min_str=min_str)
        if w["thrown"]:
            w["range"] = "/".join(str(r) for r in rng)
    ranges = None
    if w["range"]:
        try:
            parts = [int(p) for p in str(w["range"]).split("/")]
        except ValueError:
            parts = []
        if len(parts) != 3 or not (0 < parts[0] <= parts[1] <= parts[2]):
            reason = say("a range reads like 12/24/48, not {value}", value=repr(w["range"]))
            raise SheetError(("range",), reason, reason)
        ranges = tuple(parts)
    w["ranges"] = ranges
    w["ranged"] = ranges is not None
    return w


def skill_die(sheet: dict, skill: str) -> tuple[str, list[Modifier]]:
    die = (sheet.get("skills") or {}).get(skill)
    if die:
        parse_die(die)
        return die, []
    return "d4", [Modifier(say("Unskilled {skill}", skill=SKILL_WORDS.get(skill, skill.title())), -2, "core rules (reading)")]


def ready_melee(sheet: dict) -> list[dict]:
    return [weapon_stats(w) for w in (sheet.get("weapons") or {}).values()
            if not weapon_stats(w)["ranged"] and weapon_stats(w)["ready"]]


def derived_values(sheet: dict) -> dict:
    """Parry, Toughness (armour apart), wound penalty, Pace and run die, from the sheet."""
    skills = sheet.get("skills") or {}
    fighting = skills.get("fighting")
    parry = 2 + (half_die(parse_die(fighting)) if fighting else 0)
    shield = int(sheet.get("shield", 0) or 0)
    weapon_parry = max([int(w["parry"]) for w in ready_melee(sheet)] or [0])
    vigor = parse_die(sheet.get("attributes", {}).get("vigor", "d6"))
    armour = int(sheet.get("armor", 0) or 0)
    base_toughness = 2 + half_die(vigor) + int(sheet.get("size", 0) or 0)
    wounds = int(sheet.get("wounds", 0) or 0)
    fatigue = int(sheet.get("fatigue", 0) or 0)
    edges = set(sheet.get("edges") or [])
    run_die = "d8" if "Fleet-Footed" in edges else "d6"
    pace = int(sheet.get("pace", PACE) or 0) + (2 if "Fleet-Footed" in edges else 0)
    return {
        "parry": parry + shield + weapon_parry,
        "parry_base": parry,
        "toughness": base_toughness + armour,
        "toughness_base": base_toughness,
        "armor": armour,
        "toughness_text": f"{base_toughness + armour} ({armour})" if armour else str(base_toughness),
        "wound_penalty": -min(MAX_WOUNDS, wounds),
        "fatigue_penalty": -min(2, fatigue),
        "max_wounds": MAX_WOUNDS if sheet.get("wild_card", True) else 0,
        "pace": pace,
        "run_die": run_die,
        "wild_card": bool(sheet.get("wild_card", True)),
        # a Wild Card's Bennies; a sheet that does not count them yet holds a session's deal (3)
        "bennies": bennies_of(sheet),
    }


def bennies_of(sheet: dict) -> int:
    """A Wild Card's Bennies: the sheet's count, or a session's deal (3, core rules) when it has none;
    an Extra has none."""
    if not sheet.get("wild_card", True):
        return 0
    given = sheet.get("bennies")
    return SESSION_BENNIES if given is None else int(given or 0)


