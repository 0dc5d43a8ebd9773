"""Exact odds of an attack in *Atomic Tomorrow Combat*, before it is rolled.

Every d100 the attack may roll is enumerated (attack, defense, soak, and
the GRIT x 1 check of an incapacitated attacker), each 1/100, through the
same rule functions the attack uses.
"""

from __future__ import annotations

from collections import Counter

from ..system import AttackRequest
from .attack import attack_skill, attack_wounds, prepare
from .checks import is_success, opposed_winner, success_quality
from .data import COVER_LEVELS, QUALITIES, SUCCESSES, check_level, check_wound_rating
from .economy import pending_check
from .health import armour_reduction, incapacitated_check, soak_reduction


def _attack_counts(
    attack_skill: int,
    wound_rating: int,
    cover: str,
    defense_skill_value: int | None,
    armour: int,
    critical_ignores_armour: bool,
    critical_special_stacks: bool,
) -> tuple[Counter, Counter, Counter]:
    """Counts over the 100 x 100 attack and defense rolls (each pair once):
    attack outcome, winner, wounds after armour (before soak)."""
    outcome: Counter = Counter()
    quality_counts: Counter = Counter()
    before_soak: Counter = Counter()
    defense_rolls = range(1, 101)
    for a in range(1, 101):
        quality = success_quality(a, attack_skill)
        quality_counts[quality] += 100
        if quality not in SUCCESSES:
            outcome["miss"] += 100
            before_soak[0] += 100
            continue
        dealt = attack_wounds(wound_rating, a, attack_skill, cover, critical_special_stacks=critical_special_stacks)
        arm = 0 if (quality == "critical" and critical_ignores_armour) else armour
        after = max(0, dealt - arm)
        if defense_skill_value is None:
            hits = 100
        else:
            hits = sum(
                1 for d in defense_rolls if opposed_winner(a, attack_skill, d, defense_skill_value) == "attacker"
            )
        outcome["defended"] += 100 - hits
        before_soak[0] += 100 - hits
        outcome[f"hit_{quality}"] += hits
        before_soak[after] += hits
    return quality_counts, outcome, before_soak


def attack_odds(
    attack_skill: int,
    wound_rating: int,
    *,
    cover: str = "none",
    defense_skill_value: int | None = None,
    armour: str = "none",
    armour_piercing: int = 0,
    grit: int = 10,
    critical_ignores_armour: bool = True,
    critical_special_stacks: bool = True,
) -> dict:
    """Exact chances of an attack, before it is rolled.

    Enumerates every attack roll, every defense roll (when the defender
    defends) and every soak roll, each 1/100. Returns the chance of each
    attack quality, of each outcome (``miss``, ``defended``,
    ``hit_<quality>``), the wounds after armour before soak, and the
    wounds taken after soak.
    """
    check_wound_rating(wound_rating)
    cover = check_level(cover, COVER_LEVELS, "cover")
    arm = armour_reduction(armour, armour_piercing)
    qualities, outcome, before = _attack_counts(
        attack_skill, wound_rating, cover, defense_skill_value, arm, critical_ignores_armour, critical_special_stacks
    )
    soak = Counter(soak_reduction(r, grit) for r in range(1, 101))
    taken: Counter = Counter()
    for w, n in before.items():
        if w == 0:
            taken[0] += n * 100
            continue
        for s, m in soak.items():
            taken[max(0, w - s)] += n * m
    total = 100 * 100
    return {
        "attack_skill": attack_skill,
        "defense_skill": defense_skill_value,
        "attack_quality": {q: qualities[q] / total for q in QUALITIES},
        "outcomes": {k: outcome[k] / total for k in sorted(outcome)},
        "p_hit": sum(v for k, v in outcome.items() if k.startswith("hit_")) / total,
        "wounds_before_soak": {w: before[w] / total for w in sorted(before)},
        "wounds": {w: taken[w] / (total * 100) for w in sorted(taken)},
        "expected_wounds": sum(w * n for w, n in taken.items()) / (total * 100),
    }


def request_odds(request: AttackRequest) -> dict:
    """Exact chances of the attack as requested, before it is rolled (see :func:`attack_odds`).

    When the attacker has 4 wounds the GRIT x 1 check is folded in (unless
    one already made for this action is pending in the attacker's state):
    ``p_act`` is its chance, and every other figure is the chance of the
    whole sequence (a failed check counts as ``cannot_act`` and 0 wounds).
    """
    prep = prepare(request)
    settings = prep["settings"]

    def run(penalty: int) -> dict:
        skill, _ = attack_skill(prep, penalty)
        return attack_odds(
            skill,
            prep["weapon"]["wound_rating"],
            cover=prep["cover"],
            defense_skill_value=prep["defense_skill"],
            armour=prep["target"].get("armour", "none"),
            armour_piercing=prep["weapon"]["armour_piercing"],
            grit=int(prep["target"]["grit"]),
            critical_ignores_armour=settings["critical_ignores_armour"],
            critical_special_stacks=settings["critical_special_stacks"],
        )

    base = {"range": prep["band"], "cover": prep["cover"], "defense": prep["defense"],
            "weapon": prep["weapon"]["name"]}
    if prep["wound_state"] == "dying":
        stand = request.attacker.state.get("last_stand") or {}
        return {**base, "p_act": 1.0, **run(int(stand.get("penalty", 0)))}
    if prep["wound_state"] != "incapacitated":
        return {**base, "p_act": 1.0, **run(0)}
    pending = pending_check(request.attacker.state, "significant")
    if pending:
        return {**base, "p_act": 1.0, **run(int(pending["penalty"]))}
    grit = int(prep["attacker"]["grit"])
    checks = Counter(
        incapacitated_check(r, grit, settings["wounded_action_penalty"])["penalty"]
        if is_success(r, grit) else None
        for r in range(1, 101)
    )
    mixed: dict = {"attack_quality": Counter(), "outcomes": Counter(), "wounds_before_soak": Counter(),
                   "wounds": Counter()}
    expected = p_hit = 0.0
    for penalty, n in checks.items():
        w = n / 100
        if penalty is None:
            mixed["outcomes"]["cannot_act"] += w
            mixed["wounds_before_soak"][0] += w
            mixed["wounds"][0] += w
            continue
        part = run(penalty)
        for key in mixed:
            for k, v in part[key].items():
                mixed[key][k] += w * v
        expected += w * part["expected_wounds"]
        p_hit += w * part["p_hit"]
    out = {k: dict(sorted(v.items(), key=lambda kv: str(kv[0]))) for k, v in mixed.items()}
    out["wounds"] = dict(sorted(mixed["wounds"].items()))
    out["wounds_before_soak"] = dict(sorted(mixed["wounds_before_soak"].items()))
    return {**base, "p_act": sum(n for p, n in checks.items() if p is not None) / 100,
            "attack_skill": prep["skill_base"], "defense_skill": prep["defense_skill"],
            **out, "p_hit": p_hit, "expected_wounds": expected}
