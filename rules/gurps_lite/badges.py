"""What every screen shows on a token (*3d6 Combat*, "Injury", "Defending", "Maneuvers"): HP and FP,
shock, the conditions injury leaves (stunned, prone, major wound, reeling, unconscious...), crippled
locations, and the maneuver that changes the token's defenses until its next turn.
"""

from __future__ import annotations

from .sheet import current_hp, int_of, is_reeling, max_hp

#: conditions that are wounds rather than passing states
WOUND_CONDITIONS = ("major wound", "mortally wounded", "dead", "destroyed")
#: shorter labels for a token
SHORT = {"dropped held items": "dropped items", "blinded (one eye)": "blind (one eye)",
         "blinded (both eyes)": "blind"}
#: the maneuvers whose defense limits (or bonus) last until the token's next turn
DEFENSE_MANEUVERS = {"all_out_attack": "All-Out Attack: no defense",
                     "all_out_attack_ranged": "All-Out Attack: no defense",
                     "all_out_defense": "All-Out Defense", "committed_attack": "Committed Attack: defense -2",
                     "defensive_attack": "Defensive Attack", "do_nothing": "Do Nothing: no defense"}
#: conditions first in this order, the rest after in the sheet's order
ORDER = ("dead", "destroyed", "mortally wounded", "unconscious", "stunned", "prone", "major wound", "reeling")


def badges(sheet: dict, state: dict | None = None) -> list[dict]:
    """``{"label", "kind"}`` for a token: HP (a wound once any is lost), FP when spent, shock, the
    sheet's conditions and crippled locations, below 0 HP or reeling (HP/3: Move and Dodge halved),
    and from the token's fight state (``Combatant.state``) a surprise stun and the maneuver that
    limits its defenses."""
    st = state if isinstance(state, dict) and "combatants" not in state else {}
    hp, cur = max_hp(sheet), current_hp(sheet)
    out = [{"label": f"HP {cur}/{hp}", "kind": "wound" if cur < hp else "resource"}]
    fp = int_of(sheet.get("FP") or sheet.get("HT"), 10)
    fp_cur = int_of(sheet.get("fp_current", fp), fp)
    if fp_cur < fp:
        out.append({"label": f"FP {fp_cur}/{fp}", "kind": "resource"})
    shock = int_of(sheet.get("shock"))
    if shock > 0:
        out.append({"label": f"shock -{shock}", "kind": "resource"})
    conditions = [str(c) for c in sheet.get("conditions") or [] if c]
    if st.get("stunned") and "stunned" not in conditions:
        conditions.append("stunned (surprise)")
    if cur < 0:
        conditions.append("below 0 HP")
    elif is_reeling(sheet):
        conditions.append("reeling")
    ranked = sorted(dict.fromkeys(conditions), key=lambda c: ORDER.index(c) if c in ORDER else len(ORDER))
    for c in ranked:
        kind = "wound" if c in WOUND_CONDITIONS or c == "below 0 HP" else "condition"
        out.append({"label": SHORT.get(c, c), "kind": kind})
    for loc in sheet.get("crippled") or []:
        out.append({"label": f"crippled {str(loc).replace('_', ' ')}", "kind": "wound"})
    maneuver = st.get("maneuver")
    if maneuver in DEFENSE_MANEUVERS and not (maneuver == "do_nothing" and st.get("stunned_turn")):
        label = DEFENSE_MANEUVERS[maneuver]
        if maneuver == "all_out_defense" and st.get("variant"):
            label += f" ({str(st['variant']).replace('_', ' ')})"
        out.append({"label": label, "kind": "condition"})
    return out
