"""The result card of an attack: who attacked whom, hit or miss for each, what each took and what it cost, in words.

Made once, when the attack is applied (``attacks.evolve``), and kept with its log line: the table screen's card,
a player's card of their own fights and the log read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.text import joined, say, say_n

if TYPE_CHECKING:
    from ..core.model import Game


def card(game: "Game", d: dict) -> dict:
    """What the table screen's result card says: who attacked whom (each target once, the attacker never
    among them), hit or miss for each, what each target took (the wound state is read from the sheets
    when the card is drawn), and what the attack cost the attacker, in words."""
    result = d["result"]
    per_target = {t.get("target"): t for t in (result.get("details") or {}).get("targets") or []
                  if isinstance(t, dict)}
    named_ids = [] if d.get("template") else list(d.get("targets") or [d["target"]])
    ids = [i for i in dict.fromkeys([*named_ids, *per_target, *(e["target"] for e in result["effects"])])
           if i != d["attacker"]]
    attacker = game.tokens.get(d["attacker"])
    targets = []
    for tid in ids:
        token = game.tokens.get(tid)
        if token is None:
            continue
        effects = [e for e in result["effects"] if e["target"] == tid]
        own = per_target.get(tid) or {}
        hit = own.get("hit") if isinstance(own.get("hit"), bool) else (bool(effects) if per_target else result["hit"])
        targets.append({"id": tid, "name": token.name, "hit": hit,
                        "effects": [w for w in (_effect_words(e) for e in effects) if w],
                        "detail": _target_words(per_target.get(tid))})
    spent = [w for w in (_effect_words(e) for e in result["effects"] if e["target"] == d["attacker"]) if w]
    hits = sum(1 for t in targets if t["hit"])
    if d.get("template") or len(targets) > 1:
        verdict = say("{n} HIT", n=hits) if hits else say("NO ONE HIT")
        if len(targets) > 1 and not d.get("template"):
            verdict = say("HIT {n} OF {total}", n=hits, total=len(targets)) if hits else say("MISS")
    else:
        verdict = say("HIT") if result["hit"] else say("MISS")
    return {"attacker": attacker.name if attacker else "?", "attacker_id": d["attacker"], "hit": bool(result["hit"] or hits),
            "verdict": verdict, "area": (d.get("template") or {}).get("label"), "targets": targets, "spent": spent}


#: effects the rules keep for their own books (a turn's state carried in a result): not news for the table
BOOKKEEPING = frozenset({"round", "none"})
#: effect kinds in plain words, where the kind's own name reads badly
EFFECT_WORDS = {
    "ammo": lambda d: (say_n("{n} shot spent ({weapon})", "{n} shots spent ({weapon})", d.get("spent", 1), weapon=d["weapon"])
                       if d.get("weapon") else say_n("{n} shot spent", "{n} shots spent", d.get("spent", 1))),
}
#: an effect's kind as the card reads it (the rest read as their own name: "jam", "mayhem")
KIND_WORDS = {"shaken": say("shaken"), "wounds": say("wounds"), "incapacitated": say("incapacitated"),
              "unconscious": say("unconscious"), "vulnerable": say("vulnerable"), "damage": say("damage"),
              "stunned": say("stunned"), "dead": say("dead"), "benny": say("benny"), "condition": say("condition"),
              "status": say("status"), "object_broken": say("object broken"), "shots_spent": say("shots spent"),
              "hours": say("hours"), "nonlethal": say("nonlethal"), "location": say("location"),
              "reason": say("reason"), "object": say("object")}


def _effect_words(effect: dict) -> str:
    """An effect as the card reads it: "shaken", "wounds 3", "damage 5 (location torso)"; a rules'
    own ``says`` is taken as it is; bookkeeping reads as nothing."""
    data = dict(effect.get("data") or {})
    kind = effect["kind"]
    if kind in BOOKKEEPING:
        return ""
    if isinstance(data.get("says"), str):
        return data["says"]

    def words(key: str):
        return KIND_WORDS.get(key) or key.replace("_", " ")

    if kind in EFFECT_WORDS:
        try:
            return EFFECT_WORDS[kind](data)
        except (TypeError, ValueError):
            pass
    head = words(kind)
    own = data.pop(kind, None)  # {"kind": "wounds", "data": {"wounds": 3}} reads "wounds 3"
    if isinstance(own, (int, float, str)) and not isinstance(own, bool):
        head = joined([head, own], " ")
    bits = [v if k == "reason" else joined([words(k), v], " ") for k, v in data.items()  # a reason reads as itself
            if isinstance(v, (int, float, str)) and not isinstance(v, bool)]
    flags = [words(k) for k, v in data.items() if v is True]
    return say("{effect} ({details})", effect=head, details=joined(bits + flags, ", ")) if bits or flags else head


def _target_words(entry: dict | None) -> str:
    """One target's line of an area attack's breakdown, from the rules' own per-target record."""
    if not entry:
        return ""
    if entry.get("protected"):
        return entry.get("note") or say("protected")
    bits = []
    for key in ("roll", "bonus", "damage", "toughness", "wounds"):
        if isinstance(entry.get(key), (int, float)) and not isinstance(entry.get(key), bool) \
                and not (key == "bonus" and not entry[key]):
            bits.append(joined([TARGET_WORDS[key], f"{entry[key]:g}"], " "))
    bits += [joined([r["label"], f"{r['value']:+g}"], " ") for r in entry.get("reductions") or [] if isinstance(r, dict)]
    return joined(bits, ", ")


TARGET_WORDS = {"roll": say("roll"), "bonus": say("bonus"), "damage": say("damage"), "toughness": say("toughness"),
                "wounds": say("wounds")}
