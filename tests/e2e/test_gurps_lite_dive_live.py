"""3d6 choices from the screens (#23): the GM picks how many shots a pistol fires on the attack card (an int
option: the odds change at once), the defender's phone offers each defense combination with the chance to
hit beside it, the player dives ("Dive: Against ranged attacks take a +3 to your dodge and go prone"), and the
result reaches the table screen. Real Chromium against a real server."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_attack_choices import hit_chance
from test_fights import GRID, Table, seeded_dice  # noqa: F401  (a fixture)

PLACES = {"Mira": (4, 3), "Theo": (1, 6), "Gunman": (8, 3)}


def test_the_gm_fires_three_shots_and_mira_dives_from_her_phone(seeded_dice, server, new_page, shot):
    table = Table(server, new_page, "gurps_lite", GRID, PLACES)
    gm, phone, screen = table.gm, table.phones["Mira"], table.screen
    assert table.preview(gm, "Gunman", "Mira", "Pistol") is None
    options = gm.locator("#attack-preview fieldset.attack-options")
    expect(options.locator("[data-option=location]")).to_be_visible()
    expect(options.locator("select[data-option=location] option[value=eye]")).to_have_text("Eye (-9)")
    one = hit_chance(gm)

    # an int: three shots from a RoF 3 pistol (+0 rapid fire, but up to 2 extra hits by Rcl): the odds follow
    shots = options.locator("input[data-option=shots]")
    expect(shots).to_have_attribute("max", "3")
    shots.fill("3")
    shots.dispatch_event("change")
    expect(gm.locator("#attack-preview .attack-options input[data-option=shots]")).to_have_value("3")
    expect(gm.locator("#attack-preview .defense-odds li").first).to_be_visible()
    # the preview lists Mira's defenses against a shot: a dive among them, a retreat not (melee only)
    defenses = gm.locator("#attack-preview .defense-odds").first
    expect(defenses).to_contain_text("Dodge with a dive (+3, prone)")
    # the chance that some hit lands past the defense grows: a successful dodge stops one hit and one more per
    # point it succeeds by (the system's "defense stops extra hits" setting), so of three shots more get through;
    # read once the three-shot odds are on the card
    hit = gm.locator("#attack-preview .hit-chance")
    expect(hit).not_to_contain_text(f"{one:.1f}%")
    assert hit_chance(gm) > one, (hit_chance(gm), one)
    shot(gm, "gurps-gm-three-shots")

    # the attack waits for Mira: her phone offers each defense with the chance to hit beside it
    gm.locator("#attack-form button[data-attack=attack]").click()
    prompt = phone.locator("#defense-prompt.asking")
    expect(prompt).to_be_visible()
    expect(prompt).to_contain_text("Gunman attacks Mira with Pistol")
    dive = prompt.locator("button[data-defense='dodge+dive']")
    expect(dive).to_contain_text("Dodge with a dive (+3, prone) (10)")
    expect(prompt.locator("button[data-defense=dodge]")).to_contain_text("Dodge (7)")
    expect(prompt.locator("button[data-defense='dodge+retreat']")).to_have_count(0)  # Retreat: melee only
    they_hit = {b.get_attribute("data-defense"): int(re.search(r"they hit (\d+)%", b.inner_text()).group(1))
                for b in prompt.locator("button[data-defense]").all()}
    assert they_hit["dodge+dive"] < they_hit["dodge"] < they_hit["none"]
    phone.locator("#defense-prompt").scroll_into_view_if_needed()
    shot(phone, "gurps-phone-dive-prompt")
    dive.click()
    expect(phone.locator("#defense-prompt")).to_be_hidden()

    # rolled: the result card on the table screen names Gunman and Mira; the log has the dive's roll
    expect(screen.locator("#result-card.shown .result-who")).to_have_text("Gunman → Mira")
    [attack] = [e for e in table.state()["log"] if (e.get("detail") or {}).get("attack")]
    first = attack["detail"]["attack"]["details"]["attacks"][0]
    if first["hits"]:  # the shot hit: Mira dived (a Dodge at +3) and is prone, on every screen
        assert first["defense"]["defense"] == {"type": "dodge", "dive": True}
        assert first["defense"]["checks"][0]["effective"] == 10
        for page in (gm, phone, screen):
            expect(page.locator(f"#token-{table.ids['Mira']}")).to_contain_text("prone")
    else:
        assert first["check"]["result"] in ("failure", "critical failure")
    shot(screen, "gurps-screen-after-the-dive")
