"""Tesseris (ADS) reference functions: dT pools, distances, range bands,
multi-bullet hits, Stamina and Wounds, cover materials.

Sections cited are headings of the ADS "Combat" chapter
(seeds/001_cb7e89db73cf847c.txt); dT facts are from the seeds README.
"""

from __future__ import annotations

from ..dice import DT_SUCCESS

# -- numbers of the rules -------------------------------------------------

BASE_TICKS = 5  # Ticks: 5 per round plus bonuses
FREE_REACTIONS = 1
HUMAN_SPEED = 3  # Movement Actions: human base speed
MAX_WOUNDS = 10  # Wounds: "All characters can take up to 10 wounds"
STAMINA_PER_WOUND = 5  # Taking Wounds: one Wound per 5 Stamina damage from one hit
WOUNDS_PER_PENALTY = 3  # Effects of Wounds: -1 per 3 Wounds when out of Stamina
BULLET_STEP = 2  # Ranged Weapons and Multiple Shots: -2 cumulative per bullet
CRITICAL_SUCCESSES = 6  # Defending: 6 or more successes is a critical hit
SECTION_YARDS = 1  # Destroying Cover: a section is one 1-yard line segment

#: Cover Materials Reference Chart: (Armour Points, Structure Points per section)
COVER_MATERIALS: dict[str, tuple[int, int]] = {
    "wood_thin": (2, 10),
    "wood_thick": (3, 15),
    "wood_reinforced": (4, 20),
    "stone": (8, 30),
    "sandbag": (18, 90),
    "concrete": (25, 125),
}

COVER_MATERIAL_LABELS: dict[str, str] = {
    "wood_thin": "Wood, thin (~1 in.)",
    "wood_thick": "Wood, thick (2-3 in.)",
    "wood_reinforced": "Wood, reinforced (4-6 in.)",
    "stone": "Stone wall (6-8 in.)",
    "sandbag": "Sandbag wall (10 in.)",
    "concrete": "Concrete bunker (12-16 in.)",
}

#: other spellings a map editor or an imported map may use for the same materials
_MATERIAL_ALIASES = {
    "wood": "wood_thin",
    "thin_wood": "wood_thin",
    "thick_wood": "wood_thick",
    "reinforced_wood": "wood_reinforced",
    "stone_wall": "stone",
    "sandbags": "sandbag",
    "sandbag_wall": "sandbag",
    "concrete_bunker": "concrete",
    "bunker": "concrete",
}


def normalise_material(name: str) -> str:
    """The chart key for a material name ("Sandbags" -> "sandbag"); KeyError if unknown."""
    key = str(name).strip().lower().replace("-", "_").replace(" ", "_")
    key = _MATERIAL_ALIASES.get(key, key)
    if key not in COVER_MATERIALS:
        raise KeyError(f"unknown cover material {name!r}; known: {', '.join(COVER_MATERIALS)}")
    return key


# -- reference functions ---------------------------------------------------


def dt_successes(faces: list[int]) -> int:
    """Successes among rolled dT faces, explosion dice included (seeds README, "Tesseris dT").

    Every face of 6-10 is one success; a 9 or 10 also brought another die,
    whose face is in the list too.
    """
    for f in faces:
        if not 1 <= int(f) <= 10:
            raise ValueError(f"a dT cannot show {f}")
    return sum(1 for f in faces if f >= DT_SUCCESS)


def diagonal_cost(straight: int, diagonal: int) -> int:
    """Squares of movement for a path of straight and diagonal steps ("Moving", "Diagonals").

    Diagonal steps count 1, 2, 1, 2, ... (1.5x, rounded down over the path).
    """
    if straight < 0 or diagonal < 0:
        raise ValueError("step counts cannot be negative")
    return straight + diagonal + diagonal // 2


def grid_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Distance in squares between two cells on the 1.5x diagonal ("Diagonals")."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return diagonal_cost(max(dx, dy) - min(dx, dy), min(dx, dy))


#: Common Physical Combat Modifiers, the range rows: (name, modifier)
RANGE_BANDS = ("point_blank", "short", "medium", "long", "far", "extreme")
RANGE_BAND_MODIFIERS = {"point_blank": 2, "short": 1, "medium": 0, "long": -1, "far": -2, "extreme": -4}
RANGE_BAND_LABELS = {
    "point_blank": "Point blank (2 squares or less)",
    "short": "Short (4 squares or less)",
    "medium": "Medium (within the listed range)",
    "long": "Long (up to 1.5x the listed range)",
    "far": "Far (up to 2x the listed range)",
    "extreme": "Extreme (up to 3x the listed range)",
}


def range_band_name(distance: int, weapon_range: int) -> str | None:
    """The range band of a shot ("Common Physical Combat Modifiers", Range rows).

    Beyond the listed range the Long/Far/Extreme bands apply even within 4
    squares (a short-ranged weapon is no better there); within the listed
    range, 2 squares or less is Point Blank and 4 or less Short; the rest
    (including the unnamed band between 4 squares and half the listed
    range) is Medium. None beyond three times the listed range.
    """
    if distance < 0:
        raise ValueError("distance cannot be negative")
    if weapon_range <= 0:
        raise ValueError("a ranged weapon needs a listed range of 1 or more")
    if distance > weapon_range:
        if 2 * distance <= 3 * weapon_range:
            return "long"
        if distance <= 2 * weapon_range:
            return "far"
        if distance <= 3 * weapon_range:
            return "extreme"
        return None
    if distance <= 2:
        return "point_blank"
    if distance <= 4:
        return "short"
    return "medium"


def range_modifier(distance: int, weapon_range: int, gap_modifier: int = 0) -> int | None:
    """Attack modifier of the range bands ("Common Physical Combat Modifiers", Range rows).

    +2 point blank (<= 2), +1 short (<= 4), +0 medium (<= listed range),
    -1 long (<= 1.5x), -2 far (<= 2x), -4 extreme (<= 3x), None beyond.
    ``gap_modifier`` is the reading for the unnamed band from 5 squares to
    half the listed range (default +0, as Medium).
    """
    band = range_band_name(distance, weapon_range)
    if band is None:
        return None
    if band == "medium" and 4 < distance <= weapon_range / 2:
        return gap_modifier
    return RANGE_BAND_MODIFIERS[band]


def bullet_totals(attack_total: int, bullets: int) -> list[int]:
    """Effective attack total of each bullet ("Ranged Weapons and Multiple Shots in a Round")."""
    if bullets < 1:
        raise ValueError("a shot fires at least one bullet")
    return [attack_total - BULLET_STEP * i for i in range(bullets)]


def burst_hits(attack_successes: int, defense_successes: int, bullets: int) -> int:
    """Hits of a multi-bullet attack against one defense roll
    ("Ranged Weapons and Multiple Shots in a Round").

    ``attack_successes`` already includes the fire mode's own penalty;
    each bullet after the first is 2 lower, cumulative, and hits when it
    beats the defense by at least one (ties go to the defender).
    """
    return sum(1 for t in bullet_totals(attack_successes, bullets) if t - defense_successes >= 1)


def damage_split(damage: int, stamina: int) -> tuple[int, int]:
    """Stamina lost and Wounds gained from one hit after soak ("Damage, Stamina, and Wounds",
    "Taking Wounds").

    Damage goes to Stamina until it is gone, then each further point is a
    Wound; every full 5 points of Stamina lost to the one hit is a Wound too.
    """
    damage = max(0, int(damage))
    stamina = max(0, int(stamina))
    lost = min(damage, stamina)
    overflow = damage - lost
    return lost, overflow + lost // STAMINA_PER_WOUND


def wound_penalty(wounds: int, stamina: int) -> int:
    """Penalty to skill tests from Wounds ("Effects of Wounds").

    None while the character has Stamina; out of Stamina, -1 per 3 Wounds,
    at least -1 (1-5 Wounds -1, 6-8 -2, 9-11 -3). Not applied to the
    Resolve test to stay conscious.
    """
    if stamina > 0:
        return 0
    return -max(1, max(0, wounds) // WOUNDS_PER_PENALTY)


def max_stamina(strength: int, willpower: int, wounds: int = 0, bonus: int = 0) -> int:
    """Current maximum Stamina: 10 + 2 x Strength + Willpower + bonus, less one per Wound
    ("Stamina", "Taking Wounds")."""
    return max(0, 10 + 2 * strength + willpower + bonus - max(0, wounds))


def cover_material(name: str) -> tuple[int, int]:
    """Armour Points and Structure Points per one-yard section of a cover material
    ("Cover Materials Reference Chart")."""
    return COVER_MATERIALS[normalise_material(name)]
