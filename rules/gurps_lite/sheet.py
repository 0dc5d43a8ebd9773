"""The character sheet: its fields and sample, and what the rules read from it (skills and
defaults, HP, Move, Dodge, Parry, Block, weapons, damage notation) and the derived values shown.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..system import Modifier, RuleError, SheetError, SheetField, column
from ..text import say
from .checks import effective_skill
from .data import BASIC_DAMAGE, ENCUMBRANCE_MOVE, ENCUMBRANCE_NAMES, LOCATIONS, S_DEFEND, UNARMED_SKILLS, WOUNDING


def int_of(v: Any, default: int = 0) -> int:
    """A sheet entry as an int, ``default`` when it is missing or not a number."""
    try:
        return int(v)
    except (TypeError, ValueError, OverflowError):
        return default


def num_of(v: Any, default: float = 0.0) -> float:
    """A sheet entry as a number, ``default`` when it is missing or not a number."""
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


#: the Dodge's encumbrance modifier, by level (0 has none)
ENCUMBRANCE_WORDS = ("", say("encumbrance (Light)"), say("encumbrance (Medium)"), say("encumbrance (Heavy)"),
                     say("encumbrance (Extra-heavy)"))


def skill_level(sheet: dict, skill: str | None, attribute: str = "DX") -> tuple[int, str]:
    """A skill's level from the sheet, or the attribute when it is not known ("Attacking")."""
    skills = sheet.get("skills") or {}
    if skill and skill in skills:
        return int_of(skills[skill]), skill
    return (int_of(sheet.get(attribute, 10), 10),
            say("{attribute} (no {skill})", attribute=attribute, skill=skill) if skill else attribute)


def max_hp(sheet: dict) -> int:
    """HP, defaulting to ST (3d6 core facts)."""
    return max(1, int_of(sheet.get("HP") or sheet.get("ST"), 10))


def current_hp(sheet: dict) -> int:
    """Current HP: full HP until the sheet records a loss."""
    v = sheet.get("hp_current")
    return max_hp(sheet) if v is None or v == "" else int_of(v)


def is_reeling(sheet: dict) -> bool:
    """At HP/3 or below ("Injury")."""
    return current_hp(sheet) * 3 <= max_hp(sheet)


def basic_move(sheet: dict) -> int:
    """Basic Move, defaulting to Basic Speed rounded down."""
    return max(0, int_of(sheet.get("basic_move"), int(num_of(sheet.get("basic_speed"), 5))))


def current_move(sheet: dict) -> int:
    """Move after encumbrance and reeling (published encumbrance table; "Injury" for reeling)."""
    enc = min(4, max(0, int_of(sheet.get("encumbrance"))))
    move = basic_move(sheet)
    if move > 0:
        move = max(1, int(math.floor(move * ENCUMBRANCE_MOVE[enc] + 1e-9)))
    if is_reeling(sheet):
        move = math.ceil(move / 2)
    return move


def step_length(sheet: dict, move: int | None = None) -> int:
    """A step: one yard, or a tenth of Move if that is more (``move``: the sheet's ``current_move``, where the caller
    has it)."""
    return max(1, (current_move(sheet) if move is None else move) // 10)


def dodge_breakdown(sheet: dict) -> tuple[int, list[Modifier]]:
    """Dodge = Basic Speed + 3 - encumbrance, halved at HP/3 ("Defending"; core facts).

    Returns (Basic Speed + 3, modifiers); the Dodge is their sum."""
    base = int(math.floor(num_of(sheet.get("basic_speed"), 5.0))) + 3
    mods = []
    enc = min(4, max(0, int_of(sheet.get("encumbrance"))))
    if enc:
        mods.append(Modifier(ENCUMBRANCE_WORDS[enc], -enc, S_DEFEND))
    value = base - enc
    if is_reeling(sheet):
        halved = math.ceil(value / 2)
        mods.append(Modifier(say("at HP/3 or below: Dodge halved"), halved - value, S_DEFEND))
    return base, mods


def weapons(sheet: dict) -> dict[str, dict]:
    """The sheet's weapons by name (a list of weapons is keyed by their names)."""
    w = sheet.get("weapons") or {}
    if isinstance(w, list):
        return {str(x.get("name", i)): x for i, x in enumerate(w)}
    return dict(w)


def reach_of(weapon: dict) -> float:
    """The longest reach of a weapon ('C' is 0, '1,2' is 2)."""
    best = 0.0
    for part in str(weapon.get("reach", "1")).replace(" ", "").split(","):
        best = max(best, 0.0 if part.upper() in ("C", "") else num_of(part, 1.0))
    return best


def weapon_kind(weapon: dict) -> str:
    """``melee``, ``ranged`` or ``thrown``: as the weapon says, else ranged when it has Max or RoF."""
    return weapon.get("kind") or ("ranged" if weapon.get("max") or weapon.get("rof") else "melee")


def parry_base(sheet: dict, weapon: dict) -> tuple[int, str]:
    """Parry = combat skill/2 + 3 (or DX/2 + 3), plus the weapon's parry modifier ("Defending")."""
    skill_name = weapon.get("skill")
    skills = sheet.get("skills") or {}
    if weapon.get("unarmed") and not (skill_name and skill_name in skills):
        known = [s for s in UNARMED_SKILLS if s in skills]
        if known:
            skill_name = max(known, key=lambda s: int_of(skills[s]))
    level, label = skill_level(sheet, skill_name)
    return level // 2 + 3 + int_of(weapon.get("parry_mod")), label


def block_base(sheet: dict) -> int | None:
    """Block = Shield skill/2 + 3 ("Defending"); None without a shield."""
    shield = sheet.get("shield") or {}
    if not shield:
        return None
    level, _ = skill_level(sheet, shield.get("skill", "Shield"))
    return level // 2 + 3


def has_trait(sheet: dict, key: str) -> bool:
    """Whether the sheet has a trait (a dict of flags or a list of names)."""
    traits = sheet.get("traits") or {}
    if isinstance(traits, dict):
        return bool(traits.get(key))
    return key in traits


def parse_damage(damage: str, st: int = 10) -> tuple[str, int, int]:
    """A weapon's damage in the game's notation ('2d+1', '1d-2', 'sw+2', 'thr') -> (dice expr, dice, adds)."""
    text = str(damage).replace(" ", "").lower()
    m = re.fullmatch(r"(thr|sw)([+-]\d+)?", text)
    extra = 0
    if m:
        st = max(1, min(20, st))
        base = BASIC_DAMAGE[st][0 if m.group(1) == "thr" else 1]
        extra = int(m.group(2) or 0)
        text = base
    m = re.fullmatch(r"(\d+)d6?([+-]\d+)?", text)
    if not m:
        raise RuleError(say("cannot read weapon damage {value} (use e.g. 2d+1, 1d-2, sw+1, thr)", value=repr(damage)))
    n = int(m.group(1))
    adds = int(m.group(2) or 0) + extra
    expr = f"{n}d6" + (f"{adds:+d}" if adds else "")
    return expr, n, adds


def derived(sheet: dict) -> dict:
    """Derived values shown on the sheet: Dodge, Parry per weapon, Block, Move, step, state."""
    dodge = effective_skill(*dodge_breakdown(sheet))
    parries = {}
    for name, w in weapons(sheet).items():
        if weapon_kind(w) != "ranged" and w.get("can_parry", True):
            parries[name] = parry_base(sheet, w)[0]
    hp = max_hp(sheet)
    cur = current_hp(sheet)
    state = say("fine")
    if cur <= -10 * hp:
        state = say("destroyed")
    elif cur <= -5 * hp:
        state = say("dead")
    elif cur < 0:
        state = say("below 0 HP: collapse roll each turn")
    elif is_reeling(sheet):
        state = say("reeling")
    return {
        "dodge": dodge,
        "parry": parries,
        "block": block_base(sheet),
        "move": current_move(sheet),
        "step": step_length(sheet),
        "hp": hp,
        "hp_current": cur,
        "fp": int_of(sheet.get("FP") or sheet.get("HT"), 10),
        "fp_current": int_of(sheet.get("fp_current", sheet.get("FP") or sheet.get("HT")), 10),
        "reeling": is_reeling(sheet),
        "status": state,
        "major_wound": hp / 2,
        "death_checks": [-k * hp for k in range(1, 5)],
        "encumbrance": ENCUMBRANCE_NAMES[min(4, max(0, int_of(sheet.get("encumbrance"))))],
        "dr_labels": dict(DR_LOCATIONS),  # a DR row's location as the sheet's editor names it (the help's words)
    }


def conditions_of(sheet: dict, state: dict | None) -> set[str]:
    """The conditions on the sheet and in the fight state (``stunned`` and the like may be flags there)."""
    out = set(sheet.get("conditions") or [])
    out |= set((state or {}).get("conditions") or [])
    for key in ("stunned", "unconscious", "dead", "destroyed", "mortally wounded"):
        if (state or {}).get(key):
            out.add(key)
    return out


def ready_weapons(sheet: dict, state: dict | None = None) -> dict[str, dict]:
    """Weapons ready to use: the sheet's (less those marked ``ready: false`` unless the fight state lists
    them as ``readied``), less those the state lists as ``unready``."""
    unready = set((state or {}).get("unready") or [])
    readied = set((state or {}).get("readied") or [])
    return {k: w for k, w in weapons(sheet).items()
            if k not in unready and (w.get("ready", True) or k in readied)}


def attack_weapon(sheet: dict, name: str | None, state: dict | None = None) -> tuple[str, dict]:
    """The weapon an attack uses (the first on the sheet by default); it must be ready ("Maneuvers", Ready)."""
    ws = weapons(sheet)
    if not ws:
        raise RuleError(say("the attacker has no weapons on the sheet"))
    if name is None:
        name = next(iter(ws))
    if name not in ws:
        raise RuleError(say("no weapon {weapon} on the sheet", weapon=repr(name)))
    if name not in ready_weapons(sheet, state):
        raise RuleError(say("{weapon} is not ready (take a Ready maneuver)", weapon=name))
    return name, ws[name]


def shots_left(weapon: dict) -> int | None:
    """The shots left in a weapon that keeps count (its ``loaded``, else full: its ``shots``); None for a
    weapon with no Shots (melee, thrown, or not counted)."""
    if weapon.get("shots") in (None, ""):
        return None
    return int_of(weapon.get("loaded") if weapon.get("loaded") not in (None, "") else weapon["shots"])


def with_loaded(sheet: dict, name: str, loaded: int) -> dict:
    """The sheet's ``weapons`` entry with ``name``'s shots left set (a new table or list)."""
    ws = sheet.get("weapons") or {}
    if isinstance(ws, dict):
        return {**ws, name: {**ws[name], "loaded": loaded}}
    return [{**w, "loaded": loaded} if isinstance(w, dict) and str(w.get("key") or w.get("name")) == name else w
            for w in ws]


def default_sheet() -> dict:
    """A sample character: every field filled, for a new token."""
    return {
        "name": "Veteran",
        "ST": 11, "DX": 12, "IQ": 10, "HT": 11,
        "HP": 11, "FP": 11, "Will": 10, "Per": 10,
        "basic_speed": 5.75, "basic_move": 5,
        "hp_current": 11, "fp_current": 11, "shock": 0,
        "encumbrance": 1, "sm": 0, "male": False,
        "initiative_style": "tactics", "leader": False,
        "skills": {"Broadsword": 13, "Shield": 12, "Guns (Pistol)": 12, "Brawling": 12, "Tactics": 10},
        "techniques": {},
        "traits": {"combat_reflexes": False, "trained_by_a_master": False, "weapon_master": False},
        "dr": {"torso": 4, "groin": 4, "vitals": 4, "arms": 2, "legs": 2, "skull": 2},
        "flexible": {"torso": True, "groin": True, "vitals": True, "arms": True, "legs": True},
        "shield": {"skill": "Shield", "name": "Medium shield"},
        "weapons": {
            "Broadsword": {"skill": "Broadsword", "damage": "sw+1", "type": "cut", "reach": "1",
                           "kind": "melee", "attack": "swing", "parry_mod": 0},
            "Broadsword thrust": {"skill": "Broadsword", "damage": "thr+1", "type": "cr", "reach": "1",
                                  "kind": "melee", "attack": "thrust", "can_parry": False},
            "Pistol": {"skill": "Guns (Pistol)", "damage": "2d", "type": "pi", "kind": "ranged", "acc": 2,
                       "rof": 3, "rcl": 2, "bulk": -2, "half_d": 150, "max": 1900, "shots": 8},
            "Punch": {"skill": "Brawling", "damage": "thr-1", "type": "cr", "reach": "C", "kind": "melee",
                      "unarmed": True, "attack": "thrust"},
        },
        "conditions": [],
        "crippled": [],
        "notes": "",
    }


#: the DR entries ``dr_at`` reads: a pair for both sides, or one side, as the form offers them
DR_LOCATIONS: tuple[tuple[str, str], ...] = (
    ("skull", "Skull"), ("face", "Face"), ("neck", "Neck"), ("torso", "Torso"), ("vitals", "Vitals"),
    ("groin", "Groin"), ("arms", "Arms"), ("legs", "Legs"), ("hands", "Hands"), ("feet", "Feet"), ("eye", "Eyes"),
    *((k, LOCATIONS[k].name) for k in ("right_arm", "left_arm", "right_leg", "left_leg", "right_hand", "left_hand",
                                        "right_foot", "left_foot")),
)
TRAITS = (("combat_reflexes", "Combat Reflexes"), ("trained_by_a_master", "Trained by a Master"),
          ("weapon_master", "Weapon Master"))
CONDITIONS = ("stunned", "prone", "kneeling", "unconscious", "major wound", "mortally wounded", "dead")
CRIPPLED = ("right_arm", "left_arm", "right_leg", "left_leg", "right_hand", "left_hand", "right_foot", "left_foot", "eye")


def weapon_columns() -> tuple[SheetField, ...]:
    """A weapon's fields as the sheet form shows them, and what the rules read when one is left out."""
    c = column
    return (
        c("name", "Weapon", required=True),
        c("skill", "Skill", default="", help="empty: DX"),
        c("damage", "Damage", default="1d", help="2d+1, sw+1, thr-1"),
        c("type", "Type", "choice", "cr", choices=tuple(WOUNDING)),
        c("kind", "Kind", "choice", "", choices=(("melee", "melee"), ("ranged", "ranged"), ("thrown", "thrown")),
          help="empty: ranged with Max or RoF"),
        c("reach", "Reach", default="1", help="C, 1, 1,2"),
        c("attack", "Swing or thrust", "choice", "swing", choices=(("swing", "swing"), ("thrust", "thrust")), more=True),
        c("parry_mod", "Parry modifier", "float", 0, more=True),
        c("acc", "Acc", "float", 0, more=True),
        c("half_d", "½D (yards)", "float", None, more=True),
        c("max", "Max (yards)", "float", None, more=True),
        c("rof", "RoF", "float", 1, more=True),
        c("rcl", "Rcl", "float", 1, more=True),
        c("shots", "Shots", "float", None, more=True, help="a magazine's shots; empty: no count kept"),
        c("loaded", "Shots left", "float", None, more=True, help="empty: full (the Shots)"),
        c("bulk", "Bulk", "float", 0, more=True),
        c("armor_divisor", "Armour divisor", "float", 1, more=True),
        c("pellets", "Pellets", "float", None, more=True),
        c("area", "Area radius (yards)", "float", None, more=True),
        c("can_parry", "Can parry", "bool", True, more=True),
        c("unarmed", "Unarmed", "bool", False, more=True),
        c("fencing", "Fencing", "bool", False, more=True),
        c("unbalanced", "Unbalanced", "bool", False, more=True),
        c("flail", "Flail", "bool", False, more=True),
        c("ready", "Ready", "bool", True, more=True),
    )


def sheet_fields() -> list[SheetField]:
    """The sheet form's fields, grouped, with their defaults from the sample sheet."""
    d = default_sheet()
    F = SheetField
    return [
        F("name", "Name", "text", d["name"], group="identity"),
        F("ST", "ST", "int", d["ST"], group="attributes"),
        F("DX", "DX", "int", d["DX"], group="attributes"),
        F("IQ", "IQ", "int", d["IQ"], group="attributes"),
        F("HT", "HT", "int", d["HT"], group="attributes"),
        F("HP", "HP", "int", None, help="empty: as ST", group="secondary"),
        F("FP", "FP", "int", None, help="empty: as HT", group="secondary"),
        F("Will", "Will", "int", d["Will"], group="secondary"),
        F("Per", "Per", "int", d["Per"], group="secondary"),
        F("basic_speed", "Basic Speed", "float", d["basic_speed"], group="secondary"),
        F("basic_move", "Basic Move", "int", None, help="empty: Basic Speed rounded down", group="secondary"),
        F("hp_current", "Current HP", "int", None, help="empty: full HP", group="status"),
        F("fp_current", "Current FP", "int", d["fp_current"], group="status"),
        F("shock", "Shock", "int", 0, help="penalty to DX and IQ rolls next turn (max 4)", group="status"),
        F("encumbrance", "Encumbrance", "int", 0, tuple(enumerate(ENCUMBRANCE_NAMES)),
          help="Move and Dodge fall with each level", group="status"),
        F("sm", "Size modifier", "int", 0, group="secondary"),
        F("male", "Male (groin hits)", "bool", False, group="identity"),
        F("initiative_style", "Initiative skill", "choice", "tactics", tuple((k, k) for k in ("tactics", "primal", "thuggish")),
          help="primal may use Survival, thuggish Streetwise", group="traits"),
        F("leader", "Side leader", "bool", False, group="traits"),
        F("skills", "Skills", "rows", d["skills"], shape="map", group="skills",
          columns=(column("name", "Skill", required=True, suggestions=(*UNARMED_SKILLS, "Shield", "Tactics")),
                   column("level", "Level", "int", required=True))),
        F("techniques", "Techniques", "rows", {}, shape="map", group="skills",
          columns=(column("name", "Technique", required=True, suggestions=("Quick Shot",)),
                   column("level", "Levels bought", "int", required=True))),
        F("traits", "Traits", "flags", d["traits"], TRAITS, group="traits"),
        F("dr", "DR by location", "rows", d["dr"], shape="map", group="armour",
          help="arms, legs, hands and feet cover both sides; a side's own entry comes first",
          columns=(column("location", "Location", "choice", choices=DR_LOCATIONS, required=True),
                   column("dr", "DR", "int", required=True))),
        F("flexible", "Flexible armour", "flags", d["flexible"], DR_LOCATIONS, group="armour"),
        F("shield", "Shield", "rows", d["shield"], shape="record", group="armour", help="empty: no shield",
          columns=(column("name", "Shield"), column("skill", "Skill", default="Shield"))),
        F("weapons", "Weapons", "rows", d["weapons"], shape="table", columns=weapon_columns(), group="weapons"),
        F("conditions", "Conditions", "rows", [], shape="values", group="status",
          columns=(column("name", "Condition", required=True, suggestions=CONDITIONS),)),
        F("crippled", "Crippled", "rows", [], shape="values", group="status",
          columns=(column("location", "Location", required=True, suggestions=CRIPPLED),)),
        F("notes", "Notes", "text", "", group="identity", lines=4),
    ]


_WHOLE = ("ST", "DX", "IQ", "HT", "HP", "FP", "Will", "Per", "basic_move", "hp_current", "fp_current", "shock", "sm")
_WEAPON_NUMBERS = ("acc", "rof", "rcl", "bulk", "half_d", "max", "armor_divisor", "pellets", "parry_mod", "shots",
                   "loaded")


def _refused(path: tuple, reason: str) -> SheetError:
    """A sheet entry refused: the field's path (data, as the sheet names it) and the reason in words."""
    return SheetError(path, reason, say("{field}: {reason}", field=".".join(str(p) for p in path), reason=reason))


def _whole(value: Any, field: str | tuple, low: int | None = None, high: int | None = None) -> int:
    path = field if isinstance(field, tuple) else (field,)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _refused(path, say("a whole number, not {value}", value=repr(value)))
    try:
        number = float(value)
    except ValueError:
        raise _refused(path, say("a whole number, not {value}", value=repr(value))) from None
    if not math.isfinite(number) or number != int(number):
        raise _refused(path, say("a whole number, not {value}", value=repr(value)))
    if low is not None and number < low:
        raise _refused(path, say("{least} or more, not {value}", least=low, value=repr(value)))
    if high is not None and number > high:
        raise _refused(path, say("{most} or less, not {value}", most=high, value=repr(value)))
    return int(number)


def validate_sheet(sheet: dict) -> None:
    """SheetError naming the field when a sheet entry is not one the rules can read: attributes and
    levels whole numbers, Basic Speed a number, encumbrance 0-4, shock 0-8, DR not negative, every
    weapon's damage in the game's notation with a known damage type."""
    if not isinstance(sheet, dict):
        raise RuleError(say("sheet: a table of fields"))
    for key in _WHOLE:
        if sheet.get(key) not in (None, ""):
            low = 1 if key in ("ST", "DX", "IQ", "HT", "HP") else 0 if key in ("basic_move", "FP", "Will", "Per",
                                                                              "shock") else None
            _whole(sheet[key], key, low, 8 if key == "shock" else None)
    if sheet.get("basic_speed") not in (None, ""):
        try:
            speed = float(sheet["basic_speed"])
        except (TypeError, ValueError):
            raise _refused(("basic_speed",), say("a number, not {value}", value=repr(sheet["basic_speed"]))) from None
        if not math.isfinite(speed) or speed < 0:
            raise _refused(("basic_speed",), say("not negative"))
    if sheet.get("encumbrance") not in (None, ""):
        _whole(sheet["encumbrance"], "encumbrance", 0, 4)
    if sheet.get("initiative_style") not in (None, "", "tactics", "primal", "thuggish"):
        raise _refused(("initiative_style",), say("tactics, primal or thuggish"))
    for table in ("skills", "techniques", "dr"):
        entries = sheet.get(table)
        if entries in (None, ""):
            continue
        if not isinstance(entries, dict):
            raise _refused((table,), say("a table of name -> level"))
        for name, level in entries.items():
            _whole(level, (table, name), 0 if table == "dr" else None)
    for table in ("conditions", "crippled"):
        if sheet.get(table) not in (None, "") and not isinstance(sheet[table], list):
            raise _refused((table,), say("a list"))
    ws = sheet.get("weapons")
    if ws in (None, ""):
        return
    if not isinstance(ws, (dict, list)):
        raise _refused(("weapons",), say("a table of name -> weapon"))
    for name, w in weapons(sheet).items():
        at = ("weapons", name)
        if not isinstance(w, dict):
            raise _refused(at, say("a table (skill, damage, type, ...)"))
        try:
            parse_damage(w.get("damage", "1d"), int_of(sheet.get("ST"), 10))
        except RuleError as exc:
            raise _refused((*at, "damage"), exc.args[0] if exc.args else str(exc)) from None
        if w.get("type", "cr") not in WOUNDING:
            raise _refused((*at, "type"), say("one of {known}, not {value}", known=", ".join(WOUNDING), value=repr(w.get("type"))))
        if w.get("kind") not in (None, "", "melee", "ranged", "thrown"):
            raise _refused((*at, "kind"), say("melee, ranged or thrown, not {value}", value=repr(w.get("kind"))))
        for key in _WEAPON_NUMBERS:
            if w.get(key) not in (None, ""):
                try:
                    number = float(w[key])
                except (TypeError, ValueError):
                    raise _refused((*at, key), say("a number, not {value}", value=repr(w[key]))) from None
                if not math.isfinite(number):
                    raise _refused((*at, key), say("a number, not {value}", value=repr(w[key])))
        if w.get("armor_divisor") not in (None, "") and float(w["armor_divisor"]) <= 0:
            raise _refused((*at, "armor_divisor"), say("more than 0"))
