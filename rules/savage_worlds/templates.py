"""Area templates: Small, Medium and Large Blasts, the Cone and the Line on
the board, deviation of a missed blast, and the area attack that hits
everyone under a template.

Source: *Savage Worlds Combat System Reference*, "Area Effect Attacks".

On a hex board an inch is a hex: the same templates (radius 1", 2", 3"; the 9" cone; the 12" line) are
laid in true lengths (``rules.grid.Grid.unit``) over the hexes, and a hex is under one by the same
coverage rule as a square (touched, or its centre within); under a cone or a line, a hex whose centre
is (a strip one hex wide along a row would otherwise catch the tips of the two rows beside it). The grid comes from the attacker's or
the aim's position (a ``rules.grid.Place``) or the ``grid`` argument; plain pairs are squares.
"""

from __future__ import annotations

import math

from ..dice import DiceSource
from ..grid import SQUARE, Grid, grid_of
from ..text import say
from ..system import AttackRequest, AttackResult, Effect, Modifier, RuleError
from .attack import damage_needs, effective_toughness, plan_of, settings_of, skill_words, target_toughness
from .checks import trait_roll
from .cover import area_cover
from .data import BLAST_RADIUS, DEVIATION_DICE, DEVIATION_MULTIPLIER, PRONE_AREA_REDUCTION, TN, merged_settings
from .health import TargetState, active, state_effects
from .movement import distance as square_distance

_EPS = 1e-9


def deviation_multiplier(band: str) -> int:
    """Area Effect Attacks, Deviation: x1 Short, x2 Medium, x3 Long, x4 Extreme."""
    try:
        return DEVIATION_MULTIPLIER[str(band).lower()]
    except KeyError:
        raise RuleError(say("no deviation for range band {band}", band=repr(band))) from None


def _cell_square(cell, grid: Grid = SQUARE) -> list[tuple[float, float]]:
    x, y = cell
    if grid.hex:
        ux, uy = grid.unit
        return [(px * ux, py * uy) for px, py in grid.corners(cell)]
    return [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)]


def _overlaps_convex(poly: list[tuple[float, float]], cell, grid: Grid = SQUARE) -> bool:
    """Separating-axis test; cells that only touch the template's edge are out."""
    sq = _cell_square(cell, grid)
    for shape in (poly, sq):
        n = len(shape)
        for i in range(n):
            (x1, y1), (x2, y2) = shape[i], shape[(i + 1) % n]
            ax, ay = y2 - y1, x1 - x2
            if abs(ax) < _EPS and abs(ay) < _EPS:
                continue
            pa = [ax * px + ay * py for px, py in poly]
            pb = [ax * px + ay * py for px, py in sq]
            scale = math.hypot(ax, ay)
            if min(max(pa), max(pb)) - max(min(pa), min(pb)) <= _EPS * scale:
                return False
    return True


def _circle_touches(centre: tuple[float, float], radius: float, cell, grid: Grid = SQUARE) -> bool:
    if grid.hex:  # the circle reaches the hex's inside: its centre is in the hex, or an edge is nearer than r
        poly = _cell_square(cell, grid)
        if _inside(poly, centre):
            return True
        return any(_segment_distance(centre, poly[i], poly[(i + 1) % len(poly)]) < radius - _EPS
                   for i in range(len(poly)))
    x, y = cell
    nx = min(max(centre[0], x), x + 1)
    ny = min(max(centre[1], y), y + 1)
    return math.hypot(nx - centre[0], ny - centre[1]) < radius - _EPS


def _inside(poly, p) -> bool:
    n = len(poly)
    signs = set()
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        d = (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1)
        if abs(d) > _EPS:
            signs.add(d > 0)
    return len(signs) <= 1


def _centre_under(poly, p) -> bool:
    """The point strictly inside the polygon, nudged by a tiny fixed step first, so that of two centres
    on opposite edges of a strip (a line along a zigzag of hexes) one is in and one is out."""
    p = (p[0] + 1e-6, p[1] + 2e-6)
    n = len(poly)
    signs = set()
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        d = (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1)
        signs.add(d > 0 if d else None)
    return len(signs) == 1 and None not in signs


def _segment_distance(p, a, b) -> float:
    vx, vy = b[0] - a[0], b[1] - a[1]
    t = max(0.0, min(1.0, ((p[0] - a[0]) * vx + (p[1] - a[1]) * vy) / (vx * vx + vy * vy)))
    return math.hypot(a[0] + t * vx - p[0], a[1] + t * vy - p[1])


def _cells_near(centre, reach: float, width: int | None, height: int | None, grid: Grid = SQUARE):
    if grid.hex:  # centre in true lengths: the hexes within reach of the hex it lies in
        ux, uy = grid.unit
        here = grid.cell_at((centre[0] / ux, centre[1] / uy))
        for x, y in grid.within(here, int(math.ceil(reach)) + 2):
            if (width is None or 0 <= x < width) and (height is None or 0 <= y < height):
                yield (x, y)
        return
    r = int(math.ceil(reach)) + 1
    cx, cy = int(math.floor(centre[0])), int(math.floor(centre[1]))
    for y in range(cy - r, cy + r + 1):
        for x in range(cx - r, cx + r + 1):
            if width is not None and not (0 <= x < width):
                continue
            if height is not None and not (0 <= y < height):
                continue
            yield (x, y)


def cell_centre(cell, grid: Grid = SQUARE) -> tuple[float, float]:
    """A cell's centre in inches (on hexes: in true lengths, a hex across)."""
    if grid.hex:
        (cx, cy), (ux, uy) = grid.centre(cell), grid.unit
        return (cx * ux, cy * uy)
    return (cell[0] + 0.5, cell[1] + 0.5)


def blast_cells(centre_cell, size: str, *, coverage: str = "touched", width: int | None = None,
                height: int | None = None, grid: Grid | None = None) -> set:
    """Area Effect Attacks, Templates: the cells under a Small, Medium or Large
    Blast (radius 1", 2", 3") centred on the centre of ``centre_cell``.

    ``coverage="touched"``: any part of the cell lies under the circle (a
    Small Blast is 3x3, a Medium 5x5 less its corners, a Large 7x7 less its
    corners); ``"centre"``: the cell's centre lies within the radius.
    """
    try:
        radius = BLAST_RADIUS[size]
    except KeyError:
        raise RuleError(say("no blast template {size} (small, medium or large)", size=repr(size))) from None
    grid = grid or grid_of(centre_cell)
    c = cell_centre(centre_cell, grid)
    cells = set()
    for cell in _cells_near(c, radius, width, height, grid):
        if coverage == "centre":
            if math.dist(cell_centre(cell, grid), c) <= radius + _EPS:
                cells.add(cell)
        elif _circle_touches(c, radius, cell, grid):
            cells.add(cell)
    return cells


def _unit(a, b) -> tuple[float, float]:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy)
    if n < _EPS:
        raise RuleError(say("a cone or line needs a direction: aim at another square"))
    return dx / n, dy / n


def cone_polygon(origin_cell, aim_cell, length: float = 9.0, wide_end: float = 3.0,
                 grid: Grid | None = None) -> list[tuple[float, float]]:
    """The Cone as a triangle: apex half a square from the attacker's centre
    towards the aim point (narrow end touching the attacker), ``length`` long,
    ``wide_end`` wide at the far end."""
    grid = grid or grid_of(origin_cell, aim_cell)
    o = cell_centre(origin_cell, grid)
    ux, uy = _unit(o, cell_centre(aim_cell, grid))
    ax, ay = o[0] + 0.5 * ux, o[1] + 0.5 * uy
    fx, fy = ax + length * ux, ay + length * uy
    px, py = -uy * wide_end / 2, ux * wide_end / 2
    return [(ax, ay), (fx + px, fy + py), (fx - px, fy - py)]


def line_polygon(origin_cell, aim_cell, length: float = 12.0, width: float = 1.0,
                 grid: Grid | None = None) -> list[tuple[float, float]]:
    """The Line: a 12" by 1" strip from the attacker's edge towards the aim point."""
    grid = grid or grid_of(origin_cell, aim_cell)
    o = cell_centre(origin_cell, grid)
    ux, uy = _unit(o, cell_centre(aim_cell, grid))
    ax, ay = o[0] + 0.5 * ux, o[1] + 0.5 * uy
    fx, fy = ax + length * ux, ay + length * uy
    px, py = -uy * width / 2, ux * width / 2
    return [(ax + px, ay + py), (fx + px, fy + py), (fx - px, fy - py), (ax - px, ay - py)]


def polygon_cells(poly, *, width: int | None = None, height: int | None = None, exclude=(),
                  grid: Grid = SQUARE) -> set:
    if grid.hex:
        mx, my = sum(p[0] for p in poly) / len(poly), sum(p[1] for p in poly) / len(poly)
        reach = max(math.hypot(p[0] - mx, p[1] - my) for p in poly)
        # a hex is under a cone or a line when its centre is (a strip one hex wide along a row would
        # otherwise catch the tips of the two rows beside it)
        return {c for c in _cells_near((mx, my), reach, width, height, grid)
                if c not in exclude and _centre_under(poly, cell_centre(c, grid))}
    xs = [p[0] for p in poly]
    ys = [p[1] for p in poly]
    cells = set()
    for y in range(int(math.floor(min(ys))) - 1, int(math.ceil(max(ys))) + 1):
        for x in range(int(math.floor(min(xs))) - 1, int(math.ceil(max(xs))) + 1):
            if width is not None and not (0 <= x < width):
                continue
            if height is not None and not (0 <= y < height):
                continue
            if (x, y) not in exclude and _overlaps_convex(poly, (x, y)):
                cells.add((x, y))
    return cells


def template_cells(template: str, origin_cell, aim_cell, settings: dict | None = None, *,
                   width: int | None = None, height: int | None = None, grid: Grid | None = None) -> set:
    """Cells under a template: blasts centre on ``aim_cell``; cones and lines
    start at the attacker's square (which they never include)."""
    s = merged_settings(settings)
    grid = grid or grid_of(origin_cell, aim_cell)
    if template in BLAST_RADIUS:
        return blast_cells(aim_cell, template, coverage=s["template_coverage"], width=width, height=height,
                           grid=grid)
    origin_cell = tuple(origin_cell)
    if template == "cone":
        poly = cone_polygon(origin_cell, aim_cell, s["cone_length"], s["cone_width"], grid)
    elif template == "line":
        poly = line_polygon(origin_cell, aim_cell, s["line_length"], 1.0, grid)
    else:
        raise RuleError(say("no template {template} (small, medium, large, cone or line)", template=repr(template)))
    return polygon_cells(poly, width=width, height=height, exclude={origin_cell}, grid=grid)


def deviation(aim_cell, distance_to_target: float, band: str, launched: bool, dice: DiceSource,
              attacker_cell=None, roller: str | None = None) -> dict:
    """*Savage Worlds Combat System Reference*, "Area Effect Attacks": "Failure
    with blast: Deviation — d6" (thrown) or 2d6" (launched)", times the
    band's multiplier, at most half the distance to the target, towards the
    clock direction a d12 shows. 12 o'clock points straight on, away from the
    attacker; 3 o'clock is a quarter turn clockwise as seen on the map. ``roller``: the attacker's token, whose
    dice these are at a table rolling its own (#59)."""
    dist_dice = DEVIATION_DICE["launched" if launched else "thrown"]
    dist_roll = dice.roll(dist_dice, say("deviation distance"), roller=roller, needs=say(
        "roll {dice}: the blast deviates that many inches, times {factor} at this range, {most}\" at most",
        dice=dist_dice, factor=deviation_multiplier(band), most=f"{distance_to_target / 2:g}"))
    clock = dice.roll("d12", say("deviation direction"), roller=roller, needs=say(
        "roll a d12: the hour on a clock face the blast deviates toward (12 is straight on, away from the thrower)"))
    raw = dist_roll.total * deviation_multiplier(band)
    cap = distance_to_target / 2
    inches = min(raw, cap)
    grid = grid_of(attacker_cell, aim_cell)
    c = cell_centre(aim_cell, grid)
    if attacker_cell is not None and tuple(attacker_cell) != tuple(aim_cell):
        ux, uy = _unit(cell_centre(attacker_cell, grid), c)
    else:
        ux, uy = 0.0, -1.0  # no attacker given: 12 o'clock is the top of the map
    theta = math.radians(30 * (clock.total % 12))
    # y grows downwards, so this standard rotation turns clockwise on screen
    dx = ux * math.cos(theta) - uy * math.sin(theta)
    dy = ux * math.sin(theta) + uy * math.cos(theta)
    point = (c[0] + dx * inches, c[1] + dy * inches)
    if grid.hex:  # the hex the point lands in; the point in map units, as walls and templates are
        point = (point[0] / grid.unit[0], point[1] / grid.unit[1])
        cell = grid.cell_at(point)
    else:
        cell = (int(math.floor(point[0] + _EPS)), int(math.floor(point[1] + _EPS)))
    return {"cell": cell, "point": point, "inches": inches, "rolled_inches": raw, "capped": raw > cap,
            "clock": clock.total, "rolls": [dist_roll, clock]}


def is_launched(plan: dict, options: dict) -> bool:
    """Whether a missed blast deviates as launched (2d6") or thrown (d6")
    (*Savage Worlds Combat System Reference*, "Area Effect Attacks"): a weapon
    fired with Shooting is launched, one thrown with Athletics is thrown,
    unless the sheet's weapon (``launched``) or the attack's options say otherwise."""
    for given in (options.get("launched"), plan["weapon"].get("launched")):
        if given is not None:
            return bool(given)
    return plan["skill"] == "shooting"


def area_attack(request: AttackRequest, dice: DiceSource) -> AttackResult:
    """*Savage Worlds Combat System Reference*, "Area Effect Attacks": one
    trait roll (TN 4 with range modifiers; no target defences); on a success
    everyone under the template is hit (the attacker and allies included), a
    raise adds +d6 to every target's damage, damage is rolled per target,
    less the armour value of any cover between the centre (or the
    attacker, for cones and lines) and the target; prone targets take 4
    less. A failed blast deviates and hits what it lands on (no raise);
    a failed cone or line misses."""
    opts = request.options
    template = opts["template"]
    settings = settings_of(request)
    plan = plan_of(request)
    if plan["kind"] == "melee":
        raise RuleError(say("templates are for thrown or ranged weapons"))
    if plan["rof"] > 1:
        raise RuleError(say("an area attack fires once (RoF 1)"))
    centre = tuple(opts.get("centre") or request.target.position)
    a = request.attacker
    tr = trait_roll(plan["die"], dice, wild_card=plan["wild"], modifiers=plan["modifiers"], tn=TN,
                    name=skill_words(plan["skill"]), roller=a.id)
    rolls = [r for r in (tr.trait, tr.wild) if r]
    deviated = None
    hit = tr.success
    raises = tr.raises
    if not hit and template in BLAST_RADIUS:
        dist_to_target = square_distance(a.position, centre) if a.position is not None else plan["distance"]
        deviated = deviation(centre, dist_to_target, plan["band"], is_launched(plan, opts), dice, a.position, a.id)
        deviated["launched"] = is_launched(plan, opts)
        rolls += deviated.pop("rolls")
        centre = deviated["cell"]
    width = height = None
    if request.board is not None:
        width, height = getattr(request.board, "width", None), getattr(request.board, "height", None)
    cells = template_cells(template, a.position, centre, settings, width=width, height=height,
                           grid=getattr(request.board, "grid", None))
    # "Success = hits all in template": the attacker and allies too, not only foes
    victims = [c for c in [request.target] + request.others + [a]
               if c.position is not None and tuple(c.position) in cells and active(c)]
    seen = set()
    victims = [v for v in victims if not (v.id in seen or seen.add(v.id))]
    effects: list[Effect] = []
    per_target = []
    dmg_mod = int(sum(m.value for m in plan["damage_modifiers"]))
    if hit or deviated is not None:
        origin = centre if template in BLAST_RADIUS else tuple(a.position)
        for v in victims:
            vs = v.sheet or {}
            tough, notes = effective_toughness(target_toughness(vs, None), plan["ap"])
            # the attacker rolls each victim's damage, and its raise's die (the table's own dice, #59)
            droll = dice.roll(plan["damage_expr"], say("damage to {name}", name=v.name), roller=a.id,
                              needs=damage_needs(plan["damage_expr"], tough, dmg_mod, v.name))
            rolls.append(droll)
            total = droll.total + dmg_mod
            bonus = None
            if hit and raises:
                bonus = dice.roll("d6!", say("raise: bonus damage to {name}", name=v.name), roller=a.id,
                                  needs=say("roll d6 more for the raise to {name} (it aces)", name=v.name))
                rolls.append(bonus)
                total += bonus.total
            reductions = []
            armour = area_cover(request.board, origin, tuple(v.position), settings)
            if armour is None:
                per_target.append({"target": v.id, "protected": True, "note": say("total cover from the centre")})
                continue
            if armour:
                reductions.append(Modifier(say("Cover between the centre and the target"), -armour, "Area Effect Attacks"))
            if vs.get("prone"):
                reductions.append(Modifier(say("Prone target"), -PRONE_AREA_REDUCTION, "Prone Targets"))
            total += int(sum(m.value for m in reductions))
            st = TargetState(bool(vs.get("shaken")), int(vs.get("wounds", 0) or 0), bool(vs.get("wild_card", True)))
            res = st.take(total, tough)
            per_target.append({"target": v.id, "hit": True, "roll": droll.total, "bonus": bonus.total if bonus else 0,
                               "reductions": [m.to_dict() for m in reductions], **res})
            effects += state_effects(v.id, st, bool(opts.get("nonlethal")), dice, rolls)
    mods = tr.modifiers + plan["damage_modifiers"]
    if deviated:
        struck = [v.name for v in victims if any(p["target"] == v.id and not p.get("protected") for p in per_target)]
        deviated["hit"] = [v.id for v in victims if any(p["target"] == v.id and not p.get("protected")
                                                        for p in per_target)]
        summary = (f"{a.name}'s {template} blast misses its mark and deviates {deviated['inches']:g}\" "
                   f"toward {deviated['clock']} o'clock, landing on {tuple(deviated['cell'])}: "
                   + (f"it hits {', '.join(struck)}" if struck else "it hits nobody"))
    elif hit:
        summary = f"{a.name}'s {template} template hits {len(victims)} token(s)" + (" with a raise" if raises else "")
    else:
        summary = f"{a.name} misses with the {template} template"
    if tr.critical_failure:
        summary += " (critical failure)"
    return AttackResult(
        hit=hit, summary=summary, rolls=rolls, modifiers=mods, effects=effects,
        details={"kind": "area", "template": template, "trait": tr.to_dict(), "cells": sorted(cells),
                 "centre": centre, "deviation": deviated, "targets": per_target,
                 "damage_expr": plan["damage_expr"], "attacker": a.id, "target": request.target.id,
                 "free_attack": bool(opts.get("free_attack"))},
    )
