"""Cover: the cover fraction read as Tesseris cover, taking it, which body
locations it protects, its defense bonus, and destructible cover sections
(*Tesseris Combat*, "Cover", "Taking Cover", "Cover Bonuses", "Destroying
Cover", "Cover Materials Reference Chart").

The board's cover pieces (``rules.board.CoverPiece``: id, cell, material)
carry no damage; the damage each section has taken is plain data the app
keeps (piece id -> points) and passes back in.
"""

from __future__ import annotations

from typing import Any

from ..grid import Place, cell_steps
from ..system import CoverEffect, Effect, RuleError
from ..text import say
from .data import _MATERIAL_ALIASES, COVER_MATERIALS
from .ticks import state_of

SECTION = "Cover"
ALL_LOCATIONS = ("head", "arms", "torso", "legs")
ON_TURN_LOCATIONS = ("legs", "torso")
REACTION_LOCATIONS = ("head", "arms")
COVER_BONUS = 2  # Cover Bonuses: +2 to defense rolls
HUNKERED_BONUS = 4  # Hunker Down: +2 becomes +4


def _pieces(board: Any) -> dict:
    if board is None:
        return {}
    pieces = getattr(board, "cover_pieces", None)
    if pieces is None and isinstance(board, dict):
        pieces = board.get("cover_pieces")
    return pieces or {}


def _piece_field(piece: Any, name: str):
    return piece.get(name) if isinstance(piece, dict) else getattr(piece, name, None)


def normalise_material(name: str) -> str:
    """The chart key for a material name ("Sandbags" -> "sandbag"); KeyError if unknown."""
    key = str(name).strip().lower().replace("-", "_").replace(" ", "_")
    key = _MATERIAL_ALIASES.get(key, key)
    if key not in COVER_MATERIALS:
        raise KeyError(f"unknown cover material {name!r}; known: {', '.join(COVER_MATERIALS)}")
    return key


def cover_material(name: str) -> tuple[int, int]:
    """Armour Points and Structure Points per one-yard section of a cover material
    (*Tesseris Combat*, "Cover Materials Reference Chart")."""
    return COVER_MATERIALS[normalise_material(name)]


def adjacent(a, b) -> bool:
    return cell_steps(a, b) <= 1


def cover_effect(cover: Any, settings: dict | None = None) -> CoverEffect:
    """What a line of fire's cover means ("Cover Bonuses", "Cover is directional"): any
    obstruction of at least ``cover_min_fraction`` of the sight lines from the
    attacker's side gives cover from that direction, worth +2 to defense rolls to a
    character who has taken cover (+4 hunkered down)."""
    settings = settings or {}
    fraction = float(getattr(cover, "fraction", cover if isinstance(cover, (int, float)) else 0) or 0)
    threshold = float(settings.get("cover_min_fraction", 0.5))
    # cover pieces never block the line of fire (rules.los), so a fraction of 1 is full cover here
    if fraction >= threshold and fraction > 0:
        return CoverEffect("cover", COVER_BONUS, say("In cover from this side (+{bonus}, +{hunkered} hunkered)", bonus=COVER_BONUS,
                                                    hunkered=HUNKERED_BONUS))
    return CoverEffect("none", 0, say("No cover from this side"))


def cover_pieces_near(board: Any, cell) -> list[str]:
    """Cover pieces in the cell or next to it (where the Take Cover action can use them)."""
    out = []
    for pid, piece in _pieces(board).items():
        pc = _piece_field(piece, "cell")
        if pc is not None and adjacent(Place(pc, getattr(board, "grid", None)), cell):
            out.append(pid)
    return sorted(out)


def take_cover(state: dict, board: Any = None, cell=None, on_turn: bool = True) -> dict:
    """The state after the Take Cover action ("Taking Cover").

    On the character's own turn (free): legs and torso count as in cover.
    As a reaction (diving for cover): head and arms until the next round,
    then legs and torso. A Total Defense in cover protects every location.
    With a board and a cell, a cover piece must be in or next to the cell.
    """
    s = state_of(state)
    pieces: list[str] = []
    if board is not None and cell is not None:
        pieces = cover_pieces_near(board, cell)
        if not pieces:
            raise RuleError(say("no cover piece in or next to this square to take cover behind"))
    return {
        **s,
        "in_cover": True,
        "cover_pieces": pieces,
        "cover_locations": list(ON_TURN_LOCATIONS if on_turn else REACTION_LOCATIONS),
        "cover_taken_as_reaction": not on_turn,
    }


def after_reaction_cover() -> tuple[str, ...]:
    """Locations in cover from the round after taking cover as a reaction ("Taking Cover":
    head and arms "for the remainder of the round. After the start of the next round, so
    long as they remain in cover, their Legs and Torso will count as being in cover")."""
    return ON_TURN_LOCATIONS


def leave_cover(state: dict) -> dict:
    """Moving away from the cover (or standing up from it) ends it."""
    s = state_of(state)
    return {**s, "in_cover": False, "cover_pieces": [], "cover_locations": [], "stances": [x for x in s["stances"] if x != "hunkered"]}


def covered_locations(state: dict) -> tuple[str, ...]:
    """Body locations that get the cover's Armour Points ("Taking Cover")."""
    s = state_of(state)
    if not s.get("in_cover"):
        return ()
    if "total_defense" in s["stances"]:
        return ALL_LOCATIONS
    return tuple(sorted(set(s.get("cover_locations") or ())))


def defense_bonus(state: dict) -> int:
    """+2 in cover, +4 hunkered down ("Common Physical Combat Modifiers", "Hunker Down")."""
    s = state_of(state)
    if not s.get("in_cover"):
        return 0
    return HUNKERED_BONUS if "hunkered" in s["stances"] else COVER_BONUS


def section_for(board: Any, cover: Any, target_cell) -> tuple[str | None, str | None]:
    """The cover section a defender is behind: the cover piece among the line of fire's
    blockers next to the defender (else the first cover piece blocking). Returns
    (piece id, material); (None, None) when a wall or nothing gives the cover."""
    pieces = _pieces(board)
    blockers = list(getattr(cover, "blockers", None) or (cover.get("blockers", []) if isinstance(cover, dict) else []))
    found = [b for b in blockers if b in pieces]
    if not found:
        return None, None
    if target_cell is not None:
        near = [b for b in found if _piece_field(pieces[b], "cell") is not None and adjacent(tuple(_piece_field(pieces[b], "cell")), tuple(target_cell))]
        if near:
            found = near
    pid = found[0]
    return pid, _piece_field(pieces[pid], "material")


def cover_ap(material: str | None, settings: dict | None = None) -> int:
    """Bonus Armour Points a cover section gives the locations behind it (reading: the
    material's Armour Points; a wall that is no cover piece uses ``wall_cover_material``)."""
    mat = material or (settings or {}).get("wall_cover_material", "stone")
    return cover_material(mat)[0]


def damage_section(piece_id: str, material: str, points: int, taken_before: int = 0, cell=None, reason: str = "") -> list[Effect]:
    """Effects of structure damage to one cover section ("Destroying Cover"): a
    ``cover_damage`` effect, and ``cover_destroyed`` once the section has taken more
    damage than its Structure Points (it stops giving cover and becomes difficult
    terrain)."""
    points = max(0, int(points))
    if points == 0:
        return []
    key = normalise_material(material)
    _, structure = COVER_MATERIALS[key]
    total = max(0, int(taken_before)) + points
    effects = [
        Effect(
            "cover_damage",
            piece_id,
            {"damage": points, "total_damage": total, "structure": structure, "remaining": max(0, structure - total), "material": key, "reason": reason},
        )
    ]
    if total > structure:
        effects.append(Effect("cover_destroyed", piece_id, {"material": key, "cell": list(cell) if cell is not None else None, "terrain": "difficult"}))
    return effects


def excess_over_ap(damage: int, material: str, ap_penetration: int = 0) -> int:
    """Damage that gets through a section's Armour Points (Armour Penetration applies, as to armour)."""
    ap = max(0, cover_ap(material) - max(0, ap_penetration))
    return max(0, damage - ap)
