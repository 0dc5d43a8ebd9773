"""The sheet editor, in every system: a sheet saved unchanged stays exactly the sheet it was (the
round trip sheet -> the editor's rendered form -> the posted form -> the parsed sheet), every field
is edited with typed fields (no JSON text), rows are added and removed, and a refused value comes back
beside its field with the rule's reason and the text as typed."""

from __future__ import annotations

import copy
import json
import re
from types import SimpleNamespace

import pytest
from flask import render_template
from werkzeug.datastructures import MultiDict
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rules
from rules.system import RuleError
from tests.helpers import bearer, join, make_app, new_game
from webapp.game.fight import characters
from webapp.web.sheet import sheetform, sheetreading, sheetviews

from htmlform import form_pairs, new_row

SYSTEMS = ["savage_worlds", "gurps_lite", "tesseris_ads", "atomic_tomorrow", "phase_tn"]


# --- the editor as the page renders it ------------------------------------------------------------------


@pytest.fixture(scope="module")
def app(module_app):
    return module_app  # one app for the module's many renders


def rendered_editor(app, system, sheet, locked=()) -> str:
    """The editor's HTML for ``sheet``, rendered by the page's own template as the sheet page does."""
    shown = sheetform.form_of(system, sheet)
    fields = sheetviews.views(system, shown, locked, shown=shown)
    with app.test_request_context("/"):
        return render_template("_sheet_editor.html", game=SimpleNamespace(id="g1"), token=SimpleNamespace(id="t1"),
                               groups=sheetviews.groups(fields), error=None)


def posted(app, system, sheet, locked=(), was: bool = False) -> sheetform.Form:
    """What the browser posts when Save is pressed on the editor of ``sheet`` with nothing changed; without
    the digests of what each field showed (``was``), with which a field sent back as shown is skipped
    before it is read: the round trip itself is what these tests check."""
    pairs = form_pairs(rendered_editor(app, system, sheet, locked))
    return sheetform.Form([(k, v) for k, v in pairs if was or not k.startswith(sheetform.WAS)])


# --- sheets: the examples, and random valid ones ------------------------------------------------------------


def example_sheets(system_id: str) -> list[dict]:
    system = rules.get(system_id)
    out = [system.default_sheet()]
    sample = system.sample_encounter() or {}
    out += [c["sheet"] for c in sample.get("combatants", [])]
    return out


#: odd but valid sheets the rules take: shapes the JSON API may have stored
ODD_SHEETS = {
    "savage_worlds": [{**rules.get("savage_worlds").default_sheet(), "skills": {}, "edges": [], "weapons": {
        "Blaster": {"damage": "2d6", "range": "12/24/48", "rof": 3, "note": "from the API", "launched": None}}}],
    "gurps_lite": [{"name": "Sparse", "ST": 10, "DX": 10, "IQ": 10, "HT": 10, "traits": ["combat_reflexes"],
                    "encumbrance": 3, "weapons": [{"name": "Axe", "damage": "sw+2", "type": "cut", "area": 1}]}],
    "tesseris_ads": [{"strength": "3", "stamina": 4, "armour": None, "statuses": ["Stunned", {"name": "Dazed"}],
                      "weapons": [{"key": "bow", "name": "Long bow", "kind": "ranged", "range": 20}]}],
    "atomic_tomorrow": [{**rules.get("atomic_tomorrow").default_sheet(), "weapons": [
        {"name": "Ray gun", "skill": "ranged", "wound_rating": 3, "ranges": ["Far", "near"], "colour": "red"}]}],
    "phase_tn": [{"attributes": {"strength": 7}, "skills": {}, "weapons": [], "trauma": {"head": 1}}],
}

#: a text someone types in a cell: not blank (the editor reads a row of blanks as a row left empty, and drops it)
TEXT = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Cn")), min_size=1, max_size=10).filter(str.strip)
#: columns the rules read in their own notation: random text would only be refused
NOTATION = {
    ("savage_worlds", "weapons", "damage"): ["Str", "Str+d6", "2d6+1", "Str+d4", "3d6"],
    ("savage_worlds", "weapons", "range"): ["", "12/24/48", "3/6/12"],
    ("gurps_lite", "weapons", "damage"): ["2d+1", "sw+1", "thr-1", "1d", "sw"],
    ("gurps_lite", "weapons", "reach"): ["C", "1", "1,2", "C,1"],
    ("phase_tn", "weapons", "damage"): ["2d6", "1d6+2", "3d6"],
}


def value_of(system_id: str, field_key: str, spec, draw):
    """A random value of one field or column, of its kind."""
    known = NOTATION.get((system_id, field_key, spec.key))
    if known:
        return draw(st.sampled_from(known))
    if spec.kind == "bool":
        return draw(st.booleans())
    if spec.kind == "int":
        if spec.choices:
            return draw(st.sampled_from([v for v, _ in spec.options()]))
        return draw(st.integers(0, 4) | st.integers(-3, 40))
    if spec.kind == "float":
        return draw(st.integers(0, 9) | st.floats(0, 40, allow_nan=False, allow_infinity=False))
    if spec.kind in ("die", "choice"):
        return draw(st.sampled_from([v for v, _ in spec.options()] + (["d12+6"] if spec.kind == "die" else [])))
    if spec.kind == "set":  # in the order of the choices: ticks have no other order to write them in
        values = [v for v, _ in spec.options()]
        return sorted(draw(st.lists(st.sampled_from(values), unique=True, min_size=1)), key=values.index)
    if spec.kind == "ints":
        return draw(st.lists(st.integers(0, 9), min_size=1, max_size=len(spec.choices)))
    if spec.kind == "flags":
        return {v: draw(st.booleans()) for v, _ in spec.options() if draw(st.booleans())}
    return draw(TEXT if spec.lines == 1 else st.text(st.characters(blacklist_categories=("Cc", "Cs", "Cn")) | st.just("\n"),
                                                      max_size=30))


def entry_of(system_id: str, spec, draw, extras: bool) -> dict:
    out = {}
    for col in spec.columns:
        if not col.optional or draw(st.booleans()):
            out[col.key] = value_of(system_id, spec.key, col, draw)
    if extras and draw(st.booleans()):
        out["x_" + draw(st.sampled_from(["note", "colour", "source_book"]))] = draw(TEXT | st.integers() | st.none())
    return out


def rows_of(system_id: str, spec, draw, extras: bool = True):
    cols = spec.columns
    n = draw(st.integers(0, 3))
    if spec.shape == "record":
        return entry_of(system_id, spec, draw, extras)
    if spec.shape == "values":
        return [value_of(system_id, spec.key, cols[0], draw) for _ in range(n)]
    key_text = st.sampled_from([v for v, _ in cols[0].options()]) if cols[0].choices else TEXT
    keys = draw(st.lists(key_text, min_size=n, max_size=n, unique=True)) if spec.shape in ("table", "map") else []
    if spec.shape == "map":
        return {k: value_of(system_id, spec.key, cols[1], draw) for k in keys}
    if spec.shape == "table":
        out = {}
        for k in keys:
            entry = entry_of(system_id, spec, draw, extras)
            entry.pop(cols[0].key, None)
            out[k] = entry
        return out
    return [entry_of(system_id, spec, draw, extras) for _ in range(n)]


@st.composite
def valid_sheets(draw, system_id: str, extras: bool = True):
    """A valid sheet: an example with some fields drawn anew (rows of entries with random cells and, with
    ``extras``, keys no column shows), kept when the system's rules take it."""
    system = rules.get(system_id)
    sheet = copy.deepcopy(draw(st.sampled_from(example_sheets(system_id))))
    for spec in system.sheet_fields():
        if not draw(st.integers(0, 3)) == 0:
            continue
        if spec.kind == "rows":
            value = rows_of(system_id, spec, draw, extras)
        else:
            value = value_of(system_id, spec.key, spec, draw)
        at = sheet
        *parents, last = spec.key.split(".")
        for p in parents:
            at = at.setdefault(p, {})
        at[last] = value
    try:
        system.validate_sheet(sheet)
        system.derived(sheet)
    except (RuleError, ValueError, TypeError, KeyError):
        assume(False)
    return sheet


# --- 1. the round trip ---------------------------------------------------------------------------------------


def check_unchanged(app, system_id: str, sheet: dict, locked=()) -> None:
    system = rules.get(system_id)
    form = posted(app, system, sheet, locked)
    reading = sheetreading.read(system, form, sheet, locked)
    assert reading.changes == {}
    assert characters.apply_changes(sheet, reading.changes) == sheet
    assert sheetreading.read(system, posted(app, system, sheet, locked, was=True), sheet, locked).changes == {}


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_every_example_character_saved_unchanged_stays_the_same_sheet(app, system_id):
    system = rules.get(system_id)
    for sheet in example_sheets(system_id) + ODD_SHEETS[system_id]:
        system.validate_sheet(sheet)
        check_unchanged(app, system_id, sheet)  # the GM's form
        check_unchanged(app, system_id, sheet, system.gm_only_fields)  # the player's: the GM's fields not sent


@pytest.mark.parametrize("system_id", SYSTEMS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_a_random_valid_sheet_saved_unchanged_stays_the_same_sheet(app, system_id, data):
    sheet = data.draw(valid_sheets(system_id))
    check_unchanged(app, system_id, sheet)


def without_defaults(system, sheet: dict) -> dict:
    """The sheet as the form writes it anew: a yes/no column at the rules' default and an empty one left out
    of an entry (its default applies), a tick box's "no" left out of its table."""
    out = copy.deepcopy(sheet)
    for spec in system.sheet_fields():
        if spec.kind == "flags" and isinstance(out.get(spec.key), dict):
            out[spec.key] = {k: v for k, v in out[spec.key].items() if v}
        if spec.kind != "rows" or spec.shape in ("map", "values") or spec.key not in out:
            continue
        value = out[spec.key]
        entries = value.values() if isinstance(value, dict) and spec.shape == "table" else (
            [value] if spec.shape == "record" else value)
        for e in entries or []:
            for col in spec.columns:
                if not isinstance(e, dict) or col.key not in e:
                    continue
                if (col.kind == "bool" and e[col.key] == col.default) or (col.optional and e[col.key] in ("", None)):
                    del e[col.key]
    return out


@pytest.mark.parametrize("system_id", SYSTEMS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_form_of_a_sheet_reads_back_as_that_sheet_from_its_text_alone(app, system_id, data):
    """No stored value to keep: every field parsed from the text the editor shows (a sheet of typed values,
    with no keys the form does not show) gives the sheet's own values back."""
    system = rules.get(system_id)
    sheet = data.draw(valid_sheets(system_id, extras=False))
    typed = sheetreading.read(system, posted(app, system, sheet), sheet, changes_only=False).changes
    want = without_defaults(system, sheet)
    for key, value in typed.items():
        stored = sheetform.lookup(want, key)
        if stored is sheetform.ABSENT:
            spec = next(f for f in system.sheet_fields() if f.key == key)
            assert value == spec.default, key
        else:
            assert value == stored, key


# --- 2. the page: a POST of the unchanged form stores nothing --------------------------------------------------


@pytest.fixture
def client(tmp_path):  # not the module's app above: a page test's games stay its own
    return make_app(tmp_path / "data", DEMO=False).test_client()


def game_with_character(client, system_id: str, sheet: dict | None = None):
    g = new_game(client, system_id, name="Sheets")
    state = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
    where = {"zone": state["zones"][0]["id"]} if state.get("zones") else {"x": 1, "y": 1}
    player = join(client, g, "Mira")
    tok = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", **where, "owner": player["player_id"]},
                      headers=bearer(g["gm_token"])).json["id"]
    cmd = {"type": "add_character", "name": "Aria", "token_id": tok, "owner": player["player_id"]}
    if sheet is not None:
        cmd["sheet"] = sheet
    r = client.post(f"/api/games/{g['id']}/commands", json=cmd, headers=bearer(g["gm_token"]))
    assert r.status_code == 200, r.json
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")  # this browser is the GM's
    return g, tok, player


def stored(client, g) -> tuple[dict, int]:
    state = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
    return state["characters"][0]["sheet"], state["seq"]


def sheet_url(g, tok):
    return f"/games/{g['id']}/tokens/{tok}/sheet"


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_saving_the_unchanged_editor_stores_no_change(client, system_id):
    g, tok, _ = game_with_character(client, system_id)
    before, seq = stored(client, g)
    page = client.get(sheet_url(g, tok)).get_data(as_text=True)
    body = client.post(sheet_url(g, tok), data=MultiDict(form_pairs(page))).get_data(as_text=True)
    assert "Nothing changed." in body and 'role="alert"' not in body
    assert stored(client, g) == (before, seq)  # no new event, the same sheet


def test_a_3d6_sheet_keeps_light_encumbrance_and_so_its_move_and_dodge(client):
    g, tok, _ = game_with_character(client, "gurps_lite")
    before, _ = stored(client, g)
    assert before["encumbrance"] == 1
    page = client.get(sheet_url(g, tok)).get_data(as_text=True)
    assert re.search(r'<option value="1" selected>Light</option>', page)
    client.post(sheet_url(g, tok), data=MultiDict(form_pairs(page)))
    state = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json["characters"][0]
    assert state["sheet"]["encumbrance"] == 1 and state["derived"]["encumbrance"] == "Light"
    assert state["derived"]["move"] == rules.get("gurps_lite").derived(before)["move"]


def test_a_fresh_tesseris_character_saves_with_stamina_left_empty_meaning_full(client):
    g, tok, _ = game_with_character(client, "tesseris_ads")
    page = client.get(sheet_url(g, tok)).get_data(as_text=True)
    form = form_pairs(page)
    assert ("stamina", "") in form
    form = [(k, "Jim the Bold" if k == "name" else v) for k, v in form]
    form = [(k, "3" if k == "wounds" else v) for k, v in form]
    body = client.post(sheet_url(g, tok), data=MultiDict(form)).get_data(as_text=True)
    assert "Saved." in body, body
    sheet, _ = stored(client, g)
    assert sheet["wounds"] == 3 and sheet["stamina"] is None  # empty: full (the current maximum)
    derived = rules.get("tesseris_ads").derived(sheet)
    assert derived["stamina"] == derived["current_max_stamina"]


# --- 3. no field is edited as JSON ---------------------------------------------------------------------------------


TYPED_KINDS = {"int", "float", "die", "text", "bool", "choice", "rows", "flags", "set", "ints"}


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_every_sheet_field_declares_a_typed_kind_and_rows_declare_typed_columns(system_id):
    for spec in rules.get(system_id).sheet_fields():
        assert spec.kind in TYPED_KINDS, spec.key
        if spec.kind == "rows":
            assert spec.columns, spec.key
            for col in spec.columns:
                assert col.kind in TYPED_KINDS - {"rows"}, (spec.key, col.key)
        if spec.kind in ("choice", "die", "flags", "set", "ints"):
            assert spec.choices, spec.key


def parses_as_json_table(text: str) -> bool:
    try:
        return isinstance(json.loads(text), (list, dict))
    except ValueError:
        return False


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_no_box_of_the_editor_holds_json(client, system_id):
    g, tok, _ = game_with_character(client, system_id)
    page = client.get(sheet_url(g, tok)).get_data(as_text=True)
    boxes = [v for _, v in form_pairs(page)]
    assert boxes and not [v for v in boxes if parses_as_json_table(v)]
    assert not [t for t in re.findall(r"<textarea[^>]*>(.*?)</textarea>", page, re.S) if parses_as_json_table(t.strip())]


# --- 4. rows: added, removed, refused with the reason beside them --------------------------------------------------


def test_a_weapon_row_added_and_one_removed_are_stored_the_others_unchanged(client):
    g, tok, _ = game_with_character(client, "savage_worlds")
    before, _ = stored(client, g)
    page = client.get(sheet_url(g, tok)).get_data(as_text=True)
    form = form_pairs(page)
    rows = sorted({re.match(r"weapons\[(\d+)\]", k).group(1) for k, _ in form if k.startswith("weapons[")})
    gone = next(v for k, v in form if k == f"weapons[{rows[0]}][name]")
    form = [(k, v) for k, v in form if not k.startswith(f"weapons[{rows[0]}]")]
    form += new_row(page, "weapons", 7, name="Laser rifle", damage="3d6", range="30/60/120", ap="2")
    form += new_row(page, "weapons", 8)  # added and left empty: no weapon
    body = client.post(sheet_url(g, tok), data=MultiDict(form)).get_data(as_text=True)
    assert "Saved." in body, body
    after, _ = stored(client, g)
    assert after["weapons"]["Laser rifle"] == {"damage": "3d6", "range": "30/60/120", "ap": 2}
    assert gone not in after["weapons"]
    assert {k: v for k, v in after["weapons"].items() if k != "Laser rifle"} == {
        k: v for k, v in before["weapons"].items() if k != gone}
    assert {k: v for k, v in after.items() if k != "weapons"} == {k: v for k, v in before.items() if k != "weapons"}


def cell_of(page: str, name: str) -> str:
    """The label of one field or cell of the editor, with what it shows."""
    at = page.index(f'name="{name}"')
    start = page.rindex("<label", 0, at)
    return page[start:page.index("</label>", at)]


def test_a_bad_die_is_refused_beside_its_field_in_words_and_the_typed_text_stays(client):
    g, tok, _ = game_with_character(client, "savage_worlds")
    before = stored(client, g)
    form = form_pairs(client.get(sheet_url(g, tok)).get_data(as_text=True))
    row = next(k[len("skills["):].split("]")[0] for k, v in form if k.startswith("skills[") and k.endswith("[name]")
               and v == "fighting")
    form = [(k, "d7" if k == f"skills[{row}][die]" else v) for k, v in form]
    form = [(k, "Aria the Brave" if k == "name" else v) for k, v in form]
    body = client.post(sheet_url(g, tok), data=MultiDict(form)).get_data(as_text=True)
    cell = cell_of(body, f"skills[{row}][die]")
    assert 'class="why" role="alert"' in cell and "not a die: &#39;d7&#39; (write d4, d6, d8, d10, d12" in cell
    assert "skills." not in cell  # the reason, not the sheet's internal key
    assert '<option value="d7" selected>' in cell  # what was sent stays, to be put right
    assert 'value="Aria the Brave"' in cell_of(body, "name")  # and the rest of what was typed too
    assert stored(client, g) == before


def test_a_bad_range_typed_in_a_new_weapon_row_is_refused_beside_it_and_kept(client):
    g, tok, _ = game_with_character(client, "savage_worlds")
    before = stored(client, g)
    page = client.get(sheet_url(g, tok)).get_data(as_text=True)
    form = form_pairs(page) + new_row(page, "weapons", 9, name="Bow", damage="2d6", range="12/24")
    body = client.post(sheet_url(g, tok), data=MultiDict(form)).get_data(as_text=True)
    cell = cell_of(body, "weapons[9][range]")
    assert "a range reads like 12/24/48, not &#39;12/24&#39;" in cell and 'value="12/24"' in cell
    assert 'value="Bow"' in cell_of(body, "weapons[9][name]")
    assert "Weapons, Bow, Range" in body  # the summary names it in the sheet's words
    assert stored(client, g) == before


def test_a_number_the_form_cannot_read_and_a_name_listed_twice_are_said_beside_them(client):
    g, tok, _ = game_with_character(client, "gurps_lite")
    before = stored(client, g)
    page = client.get(sheet_url(g, tok)).get_data(as_text=True)
    form = [(k, "eleven" if k == "ST" else v) for k, v in form_pairs(page)]
    form += new_row(page, "skills", 20, name="Broadsword", level="14")
    body = client.post(sheet_url(g, tok), data=MultiDict(form)).get_data(as_text=True)
    assert "a whole number, not &#39;eleven&#39;" in cell_of(body, "ST") and 'value="eleven"' in cell_of(body, "ST")
    assert "listed twice" in cell_of(body, "skills[20][name]")
    assert stored(client, g) == before


def test_a_player_sees_the_gms_fields_but_cannot_send_them_and_saves_the_rest(client):
    g, tok, player = game_with_character(client, "savage_worlds")
    pc = client.application.test_client()  # the player's own browser, sat with the player's key
    pc.get(f"/games/{g['id']}/play?key={player['player_token']}")
    page = pc.get(sheet_url(g, tok)).get_data(as_text=True)
    assert re.search(r'name="wounds"[^>]*disabled', page)
    form = form_pairs(page)
    assert "wounds" not in dict(form) and "shaken" not in dict(form)
    form = [(k, "Aria Swift" if k == "name" else v) for k, v in form]
    body = pc.post(sheet_url(g, tok), data=MultiDict(form)).get_data(as_text=True)
    assert "Saved." in body, body
    assert stored(client, g)[0]["name"] == "Aria Swift"


def test_a_field_sent_back_as_shown_keeps_what_the_table_changed_meanwhile(client):
    """The GM opens the editor, a fight deals a wound and spends a benny, the GM renames the character:
    the save stores the name and leaves the wound and the benny as the table left them."""
    g, tok, _ = game_with_character(client, "savage_worlds")
    page = client.get(sheet_url(g, tok)).get_data(as_text=True)
    cid = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json["characters"][0]["id"]
    r = client.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
                    json={"type": "update_sheet", "character_id": cid, "changes": {"wounds": 2, "bennies": 2}})
    assert r.status_code == 200, r.json
    form = [(k, "Aria the Bold" if k == "name" else v) for k, v in form_pairs(page)]
    body = client.post(sheet_url(g, tok), data=MultiDict(form)).get_data(as_text=True)
    assert "Saved." in body, body
    sheet, _ = stored(client, g)
    assert (sheet["name"], sheet["wounds"], sheet["bennies"]) == ("Aria the Bold", 2, 2)
    # a field the GM did change is saved over the table's value: the GM typed it
    page = client.get(sheet_url(g, tok)).get_data(as_text=True)
    form = [(k, "1" if k == "wounds" else v) for k, v in form_pairs(page)]
    client.post(sheet_url(g, tok), data=MultiDict(form))
    assert stored(client, g)[0]["wounds"] == 1
