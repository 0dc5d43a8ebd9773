"""Exact odds of an attack in *Atomic Tomorrow Combat*, before it is rolled.

Every d100 the attack may roll is enumerated (attack, defense, soak, and
the GRIT x 1 check of an incapacitated attacker), each 1/100, through the
same rule functions the attack uses.

:func:`request_odds` (what the app shows) adds ``outcomes``: a handful of
lines ``{"label", "p"}`` in the game's words (cannot act, miss, special
failure, critical failure, the defense winning, a hit with each number of
wounds taken), mutually exclusive and summing to 1; ``hit``, the chance
that ``attack()`` returns a hit; and ``modifiers``. :func:`result_label`
names the line an ``AttackResult`` falls on, for checking one against the
other.
"""

from __future__ import annotations

import functools
from collections import Counter

from ..system import AttackRequest, AttackResult, Modifier
from .attack import attack_skill, attack_wounds, prepare, skill_line
from .checks import is_success, opposed_winner, success_quality
from ..text import say, say_n
from .data import ARMOUR_GRADE_WORDS, COVER_LEVELS, COVER_WORDS, MAX_WOUNDS, QUALITIES, QUALITY_LABELS, SUCCESSES, check_level, check_wound_rating
from .economy import pending_check
from .health import armour_reduction, incapacitated_check, soak_reduction


@functools.lru_cache(maxsize=512)
def _attack_counts(
    attack_skill: int,
    wound_rating: int,
    cover: str,
    defense_skill_value: int | None,
    armour: int,
    critical_ignores_armour: bool,
    critical_special_stacks: bool,
) -> tuple[Counter, Counter, Counter, Counter]:
    """Counts over the 100 x 100 attack and defense rolls (each pair once):
    attack quality, outcome, wounds after armour (before soak), and the
    same for hits only. A pure function of its arguments, kept for the next call with the same ones (a fight's
    attacks repeat them: a forecast asks them hundreds of times); the counts kept are read, never changed."""
    outcome: Counter = Counter()
    quality_counts: Counter = Counter()
    before_soak: Counter = Counter()
    hit_before: Counter = Counter()
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
        hit_before[after] += hits
    return quality_counts, outcome, before_soak, hit_before


@functools.lru_cache(maxsize=64)
def _soak_counts(grit: int) -> Counter:
    """How many of the 100 soak rolls take off each number of wounds at ``grit`` (kept; read, never changed)."""
    return Counter(soak_reduction(r, grit) for r in range(1, 101))


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
    ``hit_<quality>``), the wounds after armour before soak, the
    wounds taken after soak, and ``hit_wounds``: the chance of a hit
    with each number of wounds taken (summing to ``p_hit``).
    """
    check_wound_rating(wound_rating)
    cover = check_level(cover, COVER_LEVELS, "cover")
    arm = armour_reduction(armour, armour_piercing)
    qualities, outcome, before, hit_before = _attack_counts(
        attack_skill, wound_rating, cover, defense_skill_value, arm, critical_ignores_armour, critical_special_stacks
    )
    soak = _soak_counts(grit)
    taken: Counter = Counter()
    for w, n in before.items():
        if w == 0:
            taken[0] += n * 100
            continue
        for s, m in soak.items():
            taken[max(0, w - s)] += n * m
    hit_taken: Counter = Counter()
    for w, n in hit_before.items():
        for s, m in soak.items():
            hit_taken[max(0, w - s) if w else 0] += n * m
    total = 100 * 100
    return {
        "attack_skill": attack_skill,
        "defense_skill": defense_skill_value,
        "attack_quality": {q: qualities[q] / total for q in QUALITIES},
        "outcomes": {k: outcome[k] / total for k in sorted(outcome)},
        "p_hit": sum(v for k, v in outcome.items() if k.startswith("hit_")) / total,
        "wounds_before_soak": {w: before[w] / total for w in sorted(before)},
        "wounds": {w: taken[w] / (total * 100) for w in sorted(taken)},
        "hit_wounds": {w: hit_taken[w] / (total * 100) for w in sorted(hit_taken)},
        "expected_wounds": sum(w * n for w, n in taken.items()) / (total * 100),
    }


#: the outcome line of an attack the defense stopped, one whole phrase per defense
DEFENDED = {"parry": say("parried: no hit"), "block": say("blocked: no hit"), "dodge": say("dodged: no hit")}


CANNOT_ACT = say("cannot act (GRIT x1 failed)")


def hit_label(taken: int, before: int) -> str:
    """The outcome line of a hit taking ``taken`` wounds on a target that had ``before``.

    Section "WOUND EFFECTS": a hit that brings the target to 4 wounds says
    incapacitated; every hit that brings it to 5 falls on one "dying" line.
    """
    before = min(max(int(before), 0), MAX_WOUNDS)
    if taken <= 0:
        return say("hit: no wound")
    if before < MAX_WOUNDS and before + taken >= MAX_WOUNDS:
        return say_n("hit: {n}+ wound (dying)", "hit: {n}+ wounds (dying)", MAX_WOUNDS - before)
    if before + taken == MAX_WOUNDS - 1:
        return say_n("hit: {n} wound (incapacitated)", "hit: {n} wounds (incapacitated)", taken)
    return say_n("hit: {n} wound", "hit: {n} wounds", taken)


def miss_label(quality: str) -> str:
    """Section "SUCCESS AND FAILURE TYPES": a failed attack, by its kind of failure."""
    if quality in ("special_failure", "critical_failure"):
        return QUALITY_LABELS[quality]
    return say("miss")


def defended_label(defense: str) -> str:
    return DEFENDED.get(defense) or say("{defense}: no hit", defense=defense)


def result_label(result: AttackResult) -> str:
    """The ``outcomes`` line an ``attack()`` result falls on."""
    d = result.details
    if not (d.get("act_check") or {}).get("may_act", True):
        return CANNOT_ACT
    if d["attack_quality"] not in SUCCESSES:
        return miss_label(d["attack_quality"])
    if not result.hit:
        return defended_label(d["defense"])
    return hit_label(int(d["wounds_taken"]), int(d["wounds_before"]))


def outcome_lines(odds: dict, defense: str, target_wounds: int) -> list[dict]:
    """The ``outcomes`` list from the exact figures: every line with a chance above 0, summing to 1."""
    lines: dict[str, float] = {}

    def add(label: str, p: float) -> None:
        if p > 0:
            lines[label] = lines.get(label, 0.0) + p

    add(CANNOT_ACT, odds["outcome_detail"].get("cannot_act", 0.0))
    for quality in ("failure", "special_failure", "critical_failure"):
        add(miss_label(quality), odds["attack_quality"].get(quality, 0.0))
    add(defended_label(defense), odds["outcome_detail"].get("defended", 0.0))
    for taken, p in sorted(odds["hit_wounds"].items()):
        add(hit_label(taken, target_wounds), p)
    return [{"label": k, "p": v} for k, v in lines.items()]


def _modifiers(prep: dict, penalty: int) -> list[dict]:
    """Every modifier of the roll and of the wounds, as ``Modifier.to_dict()``."""
    _, mods = attack_skill(prep, penalty)
    mods = list(mods)
    if prep["defense"] != "none":
        mods += [Modifier(say("defense: {modifier}", modifier=m.label), m.value, m.source) for m in prep["defense_modifiers"]]
    mods.append(Modifier(say("Wound Rating"), prep["weapon"]["wound_rating"], "WEAPON DAMAGE"))
    if COVER_LEVELS[prep["cover"]]:
        mods.append(Modifier(say("{level} cover", level=COVER_WORDS.get(prep["cover"], prep["cover"])), -COVER_LEVELS[prep["cover"]],
                             "COVER PROTECTION"))
    if prep["armour"]:
        mods.append(Modifier(say("{armour} armour", armour=ARMOUR_GRADE_WORDS.get(prep["target"].get("armour"), prep["target"].get("armour"))), -prep["armour"], "ARMOR PROTECTION"))
    return [m.to_dict() for m in mods]


def request_odds(request: AttackRequest, prep: dict | None = None) -> dict:
    """Exact chances of the attack as requested, before it is rolled (see :func:`attack_odds`); ``prep``: the
    request's ``prepare``, where the caller has it.

    When the attacker has 4 wounds the GRIT x 1 check is folded in (unless
    one already made for this action is pending in the attacker's state):
    ``p_act`` is its chance, and every other figure is the chance of the
    whole sequence (a failed check counts as ``cannot_act`` and 0 wounds).
    ``outcome_detail`` is :func:`attack_odds`' ``outcomes`` table;
    ``outcomes`` the lines the app shows; ``hit`` is ``p_hit``.
    """
    prep = prepare(request) if prep is None else prep
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

    def finish(out: dict, penalty: int) -> dict:
        out["skill_line"] = skill_line(prep, attack_skill(prep, penalty)[0])
        out["outcome_detail"] = out.pop("outcomes")
        out["outcomes"] = outcome_lines(out, prep["defense"], int(prep["target"].get("wounds", 0) or 0))
        out["hit"] = out["p_hit"]
        out["modifiers"] = _modifiers(prep, penalty)
        return out

    base = {"range": prep["band"], "cover": prep["cover"], "defense": prep["defense"],
            "weapon": prep["weapon"]["name"]}
    if prep["wound_state"] == "dying":
        stand = request.attacker.state.get("last_stand") or {}
        penalty = int(stand.get("penalty", 0))
        return finish({**base, "p_act": 1.0, **run(penalty)}, penalty)
    if prep["wound_state"] != "incapacitated":
        return finish({**base, "p_act": 1.0, **run(0)}, 0)
    pending = pending_check(request.attacker.state, "significant")
    if pending:
        return finish({**base, "p_act": 1.0, **run(int(pending["penalty"]))}, int(pending["penalty"]))
    grit = int(prep["attacker"]["grit"])
    checks = Counter(
        incapacitated_check(r, grit, settings["wounded_action_penalty"])["penalty"]
        if is_success(r, grit) else None
        for r in range(1, 101)
    )
    mixed: dict = {"attack_quality": Counter(), "outcomes": Counter(), "wounds_before_soak": Counter(),
                   "wounds": Counter(), "hit_wounds": Counter()}
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
    for key in ("wounds", "wounds_before_soak", "hit_wounds"):
        out[key] = dict(sorted(mixed[key].items()))
    # the penalty shown is the one an ordinary or special GRIT x 1 success gives (a critical has none)
    return finish({**base, "p_act": sum(n for p, n in checks.items() if p is not None) / 100,
                   "attack_skill": prep["skill_base"], "defense_skill": prep["defense_skill"],
                   **out, "p_hit": p_hit, "expected_wounds": expected}, settings["wounded_action_penalty"])
