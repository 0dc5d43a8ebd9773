"""The Savage Worlds character sheet: its fields, a sample sheet, validation,
weapons as written on the sheet, and the derived values (Parry, Toughness,
Pace, penalties).

Sources: the Savage Worlds core facts (Parry, Toughness, Pace);
*Savage Worlds Combat System Reference*, "Improvised Weapons".
"""

from __future__ import annotations

from ..system import Modifier, RuleError, SheetField
from .checks import damage_expression, half_die, parse_die
from .data import ATTRIBUTES, IMPROVISED, MAX_WOUNDS, PACE


def sheet_fields() -> list[SheetField]:
    die = "die"
    return [
        SheetField("name", "Name", "text", "Hero", group="identity"),
        SheetField("wild_card", "Wild Card", "bool", True, help="Extras roll no Wild Die and fall to one Wound", group="identity"),
        SheetField("group", "Extras group", "text", "", help="Extras of one group share an action card", group="identity"),
        *[SheetField(f"attributes.{a}", a.title(), die, "d6", choices=("d4", "d6", "d8", "d10", "d12"), group="attributes") for a in ATTRIBUTES],
        SheetField("skills", "Skills", "dict", {"fighting": "d6", "shooting": "d6", "athletics": "d6", "notice": "d6"}, help="skill name to die, d4 to d12+n", group="skills"),
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
        SheetField("bennies", "Bennies", "int", 3, group="state"),
        SheetField("edges", "Edges", "list", [], group="edges"),
        SheetField("hindrances", "Hindrances", "list", [], group="edges"),
        SheetField("weapons", "Weapons", "dict", {}, help="name to damage, range S/M/L, AP, RoF, shotgun, reach...", group="weapons"),
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


def validate_sheet(sheet: dict) -> None:
    """RuleError naming the first field that is not valid."""
    for a in ATTRIBUTES:
        parse_die((sheet.get("attributes") or {}).get(a, "d6"))
    for k, v in (sheet.get("skills") or {}).items():
        try:
            parse_die(v)
        except RuleError:
            raise RuleError(f"skill {k}: not a die: {v!r}") from None
    for k, w in (sheet.get("weapons") or {}).items():
        ws = weapon_stats(w)
        damage_expression(ws["damage"], "d6")
    for k in ("wounds", "fatigue", "bennies", "armor", "pace"):
        if int(sheet.get(k, 0) or 0) < 0:
            raise RuleError(f"{k} cannot be negative")


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
            raise RuleError(f"improvised weapons are light, medium or heavy, not {w['improvised']!r}") from None
        w.update(damage=dmg, min_str=min_str)
        if w["thrown"]:
            w["range"] = "/".join(str(r) for r in rng)
    ranges = None
    if w["range"]:
        try:
            parts = [int(p) for p in str(w["range"]).split("/")]
        except ValueError:
            raise RuleError(f"a range reads like 12/24/48, not {w['range']!r}") from None
        if len(parts) != 3 or not (0 < parts[0] <= parts[1] <= parts[2]):
            raise RuleError(f"a range reads like 12/24/48, not {w['range']!r}")
        ranges = tuple(parts)
    w["ranges"] = ranges
    w["ranged"] = ranges is not None
    return w


def skill_die(sheet: dict, skill: str) -> tuple[str, list[Modifier]]:
    die = (sheet.get("skills") or {}).get(skill)
    if die:
        parse_die(die)
        return die, []
    return "d4", [Modifier(f"Unskilled {skill.title()}", -2, "core rules (reading)")]


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
    }


