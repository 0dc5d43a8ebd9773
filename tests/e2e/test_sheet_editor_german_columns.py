"""The GM's sheet editor in German and in the pseudo-locale, in every system, on the 1280 px GM laptop and on a
360 px phone (#37): a field's or a column's name breaks between its words only, never inside one (Atomic
Tomorrow's "Rüstungsdurchschlag" read "Rüstungsd / urchschla / g" over three lines), no choice's text is cut in its
box, and nothing is wider than the phone's page. Screenshots: test-artifacts/sheet-columns-<lang>-<system>-<width>.png."""

from __future__ import annotations

import pytest

from test_i18n_rules_german_phone import OVERFLOWING
from conftest import save_shot
from test_sheet_editor_browser import SYSTEMS, character_game

#: the words of each field's and column's name (its own text, not the hint under it) that the browser drew over
#: more than one line; a name breaks at a space or after a hyphen ("Grund-" / "Bewegungsweite") only
BROKEN_WORDS = """() => {
  const names = '.sheet-form .field > span, .sheet-form .cell > span, .sheet-form legend, .sheet-form .ints small';
  const broken = [];
  for (const name of document.querySelectorAll(names)) {
    const box = name.getBoundingClientRect();
    if (box.width <= 2 || getComputedStyle(name).position === 'absolute') continue;  // the rows' hidden names
    for (const node of name.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE) continue;
      for (const m of node.data.matchAll(/[^\\s-]+-?/g)) {
        const word = document.createRange();
        word.setStart(node, m.index);
        word.setEnd(node, m.index + m[0].length);
        const lines = new Set([...word.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(`${m[0]} over ${lines.size} lines in ${Math.round(box.width)} px`);
      }
    }
  }
  return broken;
}"""

#: the choices (selects) whose chosen option's text is wider than the box shows (its padding and arrow, 20 px, beside
#: the text): German "Lebenswichtige Organe" (GURPS Lite's DR location) and "halbautomatisch" (Phase / TN's weapon
#: mode) were cut at the column's 9rem
CUT_CHOICES = """() => {
  const pen = document.createElement('canvas').getContext('2d');
  const cut = [];
  for (const box of document.querySelectorAll('form.sheet-form select')) {
    const chosen = box.options[box.selectedIndex];
    if (!chosen || box.getBoundingClientRect().width < 2) continue;
    const style = getComputedStyle(box);
    pen.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const needs = pen.measureText(chosen.text).width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) + 20;
    if (needs > box.clientWidth + 1) cut.push(`${box.name}: "${chosen.text}" needs ${Math.round(needs)} px, has ${box.clientWidth}`);
  }
  return cut;
}"""

SIZES = [("laptop", {"width": 1280, "height": 800}, {}),
         ("phone", {"width": 360, "height": 740}, {"is_mobile": True, "has_touch": True})]


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_the_sheet_editors_names_break_between_words_only_in_german_and_the_pseudo_locale(server, new_page,
                                                                                        system_id):
    g = character_game(server, system_id)
    seen = []
    for lang in ("de", "en_XA"):
        for size, viewport, kw in SIZES:
            page = new_page(viewport=viewport, **kw)
            page.goto(f"{server.url}/games/{g['id']}/gm?key={g['gm_token']}&lang={lang}")  # the GM, in the language
            page.goto(f"{server.url}/games/{g['id']}/tokens/{g['token_id']}/sheet")
            assert page.locator("html").get_attribute("lang").replace("-", "_") == lang
            page.click(".sheet-editor > summary")
            page.wait_for_selector("form.sheet-form button[type=submit]")
            page.evaluate("document.querySelectorAll('form.sheet-form details.row-more').forEach(d => d.open = true)")
            seen.append(page.locator("form.sheet-form").inner_text())
            save_shot(page, f"sheet-columns-{lang}-{system_id}-{size}", full_page=True)
            where = f"{lang}, {size}"
            assert page.evaluate(BROKEN_WORDS) == [], f"a name broken inside a word ({where})"
            assert page.evaluate(OVERFLOWING, "form.sheet-form") == [], f"a name sticks out of its box ({where})"
            assert page.evaluate(CUT_CHOICES) == [], f"a choice cut in its box ({where})"
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], f"page fits ({where})"
            page.context.close()
    assert "Speichern" in seen[0] and "Save" not in seen[0].split(), "the German editor is in German"

