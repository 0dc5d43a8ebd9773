"""Rapid Attack split among targets (the Savage Worlds core rules' Rapid Attack maneuver, which the
*Savage Worlds Combat System Reference* assumes: up to three Fighting attacks or six shots of a RoF 1
weapon, each at -4, which may be divided among targets).

The attacker names the targets (the first is the attack's own, ``AttackRequest.targets``) and how many
of the attacks or shots go at each (``rapid_split``: "3-2-1", in the targets' order; by default as even
as they go, the earlier targets taking the odd ones). The trait dice are rolled once, one a shot, with
one Wild Die ("Rate of Fire": a Wild Card still gets only one Wild Die, which can replace any one
trait die): it replaces the worst die aimed at the first target (a reading: the document lets the
player pick the die; the first target is the one the attacker names first). Each die is then resolved
against its own target: that target's TN (Parry in melee, 4 and its range, cover and the rest when
shooting), its Toughness, its damage; a critical failure (the Wild Die and half or more of the trait
dice showing 1) spoils every shot.
"""

from __future__ import annotations

from dataclasses import replace

from ..dice import DiceSource
from ..text import joined, say, say_n
from ..system import AttackRequest, AttackResult, RuleError
from .data import RAISE


def is_split(request: AttackRequest) -> bool:
    """A Rapid Attack at more than one target."""
    rapid = (request.options or {}).get("rapid_attack", 1)
    return len(request.targets) > 1 and isinstance(rapid, int) and not isinstance(rapid, bool) and rapid > 1


def splits(n: int, k: int) -> list[tuple[int, ...]]:
    """Every way to give ``n`` attacks to ``k`` targets, each at least one, in the targets' order."""
    if k == 1:
        return [(n,)]
    return [(first, *rest) for first in range(n - k + 1, 0, -1) for rest in splits(n - first, k - 1)]


def even(n: int, k: int) -> tuple[int, ...]:
    """As even as they go, the earlier targets taking the odd ones."""
    return tuple(n // k + (1 if i < n % k else 0) for i in range(k))


def key_of(split: tuple[int, ...]) -> str:
    return "-".join(str(x) for x in split)


def split_of(request: AttackRequest) -> tuple[int, ...]:
    """The shares picked (``rapid_split``), checked against the attacks and the targets."""
    rapid = request.options["rapid_attack"]
    k = len(request.targets)
    melee = _melee(request)
    if k > rapid:
        raise RuleError(say_n("Rapid Attack: {n} attack reaches at most {n} target, not {k} (Rapid Attack)",
                              "Rapid Attack: {n} attacks reach at most {n} targets, not {k} (Rapid Attack)", rapid, k=k)
                        if melee else
                        say_n("Rapid Attack: {n} shot reaches at most {n} target, not {k} (Rapid Attack)",
                              "Rapid Attack: {n} shots reach at most {n} targets, not {k} (Rapid Attack)", rapid, k=k))
    picked = (request.options or {}).get("rapid_split")
    if picked in (None, "", "even"):
        return even(rapid, k)
    allowed = {key_of(s): s for s in splits(rapid, k)}
    if picked not in allowed:
        ways = ", ".join(list(allowed)[:4]) + ("..." if len(allowed) > 4 else "")  # shares as they are picked: data
        raise RuleError(say("Rapid Attack: {n} attacks among {k} targets, each at least one, as {ways}; not {value} "
                            "(Rapid Attack)", n=rapid, k=k, ways=ways, value=repr(picked)) if melee else
                        say("Rapid Attack: {n} shots among {k} targets, each at least one, as {ways}; not {value} "
                            "(Rapid Attack)", n=rapid, k=k, ways=ways, value=repr(picked)))
    return allowed[picked]


def _melee(request: AttackRequest) -> bool:
    from .sheet import weapon_stats

    weapons = (request.attacker.sheet or {}).get("weapons") or {}
    w = weapons.get(request.weapon) if request.weapon else None
    return not (isinstance(w, dict) and weapon_stats(w)["ranged"])


def split_values(request: AttackRequest, rapid: int) -> list[dict]:
    """The choice of shares, labelled with the targets' names ("Ogre 2, Goon 1")."""
    names = [r.target.name for r in request.targets]
    return [{"key": key_of(s), "label": ", ".join(f"{n} {x}" for n, x in zip(names, s))}
            for s in splits(rapid, len(names))]


def subrequests(request: AttackRequest, split: tuple[int, ...]) -> list[tuple[AttackRequest, int]]:
    """One request per target (its own distance and cover) with the whole Rapid Attack's options (its
    -4 and its count of attacks), and the number of dice aimed at it."""
    out = []
    for sub, n in zip(request.targets, split):
        opts = {k: v for k, v in (sub.options or request.options).items() if k != "rapid_split"}
        out.append((replace(sub, options=opts, targets=[], others=request.others or sub.others), n))
    return out


def split_needs(parts, plans: list[dict], sides: int, wild_card: bool):
    """What a divided Rapid Attack's dice must show, in words (the table's dice, #59): the dice in the order they
    go to the targets, each target's number to hit (its TN less the modifiers) and a raise 4 more."""
    from .attack import skill_words
    from .checks import parse_die, trait_die_modifiers

    each = []
    for (sub, n), plan in zip(parts, plans):
        mods = trait_die_modifiers(parse_die(plan["die"]), skill_words(plan["skill"])) + plan["modifiers"]
        need = max(1, plan["tn"] - int(sum(m.value for m in mods)))
        each.append(say_n("{n} die at {name}: {need} or more hits, {raise_} is a raise",
                          "{n} dice at {name}: {need} or more hits, {raise_} is a raise", n, name=sub.target.name,
                          need=need, raise_=need + RAISE))
    total = sum(n for _, n in parts)
    if wild_card:
        return say("roll {n} d{sides} and the Wild d6 (it replaces the worst die at {name}), the dice in this order: "
                   "{targets} (a top face aces: roll that die again and add)", n=total, sides=sides,
                   name=parts[0][0].target.name, targets=joined(each))
    return say("roll {n} d{sides}, the dice in this order: {targets} (a top face aces: roll that die again and add)",
               n=total, sides=sides, targets=joined(each))


def split_attack(request: AttackRequest, dice: DiceSource) -> AttackResult:
    """A Rapid Attack divided among targets: the dice rolled once, each resolved against its target."""
    from .attack import plan_of, resolve, skill_words
    from .checks import parse_die, trait_dice, trait_die_modifiers

    split = split_of(request)
    parts = subrequests(request, split)
    plans = [plan_of(sub) for sub, _ in parts]
    first = plans[0]
    total = sum(split)
    names = [sub.target.name for sub, _ in parts]
    aim = [names[j] for j, n in enumerate(split) for _ in range(n)]
    sides = parse_die(first["die"]).sides
    # the trait dice and the Wild Die are rolled together: one roll the attacker makes at the table (#59)
    trait_rolls, wild = trait_dice(
        dice, sides, [say("{skill} die {n} (at {name})", skill=skill_words(first["skill"]), n=i + 1, name=aim[i])
                      for i in range(total)], first["wild"], purpose=skill_words(first["skill"]),
        roller=request.attacker.id, needs=split_needs(parts, plans, sides, first["wild"]))
    rolls = trait_rolls + ([wild] if wild else [])
    ones = sum(1 for r in trait_rolls if r.first_faces[0] == 1)
    critical = wild is not None and wild.first_faces[0] == 1 and 2 * ones >= len(trait_rolls)
    results, start = [], 0
    for j, ((sub, n), plan) in enumerate(zip(parts, plans)):
        mine = trait_rolls[start:start + n]
        kept = [r.total for r in mine]
        replaced = None
        if j == 0 and wild is not None:  # the Wild Die replaces the worst die at the first target
            worst = min(range(n), key=lambda i: kept[i])
            if wild.total > kept[worst]:
                kept[worst], replaced = wild.total, worst
        mods = trait_die_modifiers(parse_die(plan["die"]), skill_words(plan["skill"])) + plan["modifiers"]
        res = resolve(sub, plan, mine, kept, replaced, critical, wild if j == 0 else None, dice, [], mods)
        results.append((sub, n, res))
        start += n
    effects, seen_vulnerable, summary = [], False, []
    for sub, n, res in results:
        for e in res.effects:
            if e.kind == "vulnerable":
                if seen_vulnerable:
                    continue
                seen_vulnerable = True
            effects.append(e)
        rolls += res.rolls
    melee = first["kind"] == "melee"
    for sub, n, res in results:
        summary.append(say("{summary} ({n} of the {total} attacks)", summary=res.summary, n=n, total=total) if melee
                       else say("{summary} ({n} of the {total} shots)", summary=res.summary, n=n, total=total))
    first_res = results[0][2]
    details = {**first_res.details, "rapid_split": list(split), "targets": [
        {"target": sub.target.id, "name": sub.target.name, "hit": res.hit, "dice": n, "tn": res.details["tn"],
         "tn_label": res.details["tn_label"], "shots": res.details["shots"], "damage": res.details["damage"]}
        for sub, n, res in results]}
    details["shots"] = [s for _, _, res in results for s in res.details["shots"]]
    return AttackResult(
        hit=any(res.hit for _, _, res in results),
        summary=(say("Rapid Attack, {n} attacks at {k} targets: {parts}", n=total, k=len(results), parts=joined(summary))
                 if melee else
                 say("Rapid Attack, {n} shots at {k} targets: {parts}", n=total, k=len(results), parts=joined(summary))),
        rolls=rolls,
        modifiers=merged([(sub.target.name, res.modifiers) for sub, _, res in results],
                         lambda m, name: replace(m, label=say("{name}: {label}", name=name, label=m.label))),
        effects=effects,
        details=details,
    )


def merged(per_target: list[tuple[str, list]], relabel) -> list:
    """The first target's modifiers, then each other target's that differ, named with its target."""
    first = per_target[0][1]
    return [*first, *(relabel(m, name) for name, mods in per_target[1:] for m in mods if m not in first)]


def split_odds(request: AttackRequest) -> dict:
    """The odds of a split Rapid Attack: each target's own (its dice, the Wild Die with the first
    target's), ``hit`` the chance at least one target is hit, ``outcomes`` how many are. A critical
    failure (which spoils every die) is counted on each target's own dice: where it matters the lines
    are a close reading, not exact."""
    from .odds import odds

    split = split_of(request)
    per, each = [], []
    count = {0: 1.0}
    for j, (sub, n) in enumerate(subrequests(request, split)):
        o = odds(sub, dice_count=n, wild=None if j == 0 else False)
        per.append({"id": sub.target.id, "name": sub.target.name, "hit": o["hit"], "outcomes": o["outcomes"],
                    "attacks": n})
        each.append((sub.target.name, o["modifiers"]))
        nxt: dict[int, float] = {}
        for k, p in count.items():
            nxt[k + 1] = nxt.get(k + 1, 0.0) + p * o["hit"]
            nxt[k] = nxt.get(k, 0.0) + p * (1 - o["hit"])
        count = nxt
    k = len(per)
    outcomes = [{"label": say("no target hit") if h == 0 else say("{h} of {k} targets hit", h=h, k=k), "p": p}
                for h, p in sorted(count.items()) if p > 0]
    melee = _melee(request)
    shares = joined([say_n("{n} attack at {name}", "{n} attacks at {name}", x, name=t["name"]) if melee else
                     say_n("{n} shot at {name}", "{n} shots at {name}", x, name=t["name"]) for x, t in zip(split, per)],
                    ", ")
    return {"hit": 1 - count.get(0, 0.0), "outcomes": outcomes, "targets": per,
            "modifiers": merged(each, lambda m, name: {**m, "label": say("{name}: {label}", name=name, label=m["label"])}),
            "note": say("Rapid Attack: {shares}; the one Wild Die goes with the first target's dice.", shares=shares)}
