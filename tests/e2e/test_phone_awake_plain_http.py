"""A phone over plain HTTP (issue #61): at a real table the phone opens http://192.168.x.y, not a secure context,
so the Screen Wake Lock API is not there; a silent video keeps the screen on instead, as NoSleep.js does. It
starts at the player's first tap (browsers let a video with a sound track play only after one), plays while a
fight is on and the switch is on and the page is shown, and is paused when the switch goes off, the page is
hidden or the fight ends. The switch says which keeper holds the screen (data-keeper) and says so where none can.
Real Chromium with its default autoplay policy, the phone at the server's LAN name, real server, real Socket.IO;
the phone's page is hidden by overriding document.visibilityState, the only way here (Playwright keeps every
headless page visible: microsoft/playwright#2286, and no DevTools call hides one)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from test_table_screens import PHONE, add_token, join, player_url
from test_turns_on_phones import command, new_game

VIDEO = "document.querySelector('video.keep-awake-video')"
#: the video's state, as the page sees it
PLAYBACK = f"""() => {{ const v = {VIDEO}; return v && {{paused: v.paused, ended: v.ended, time: v.currentTime,
  muted: v.muted, volume: v.volume, loop: v.loop, inline: v.hasAttribute('playsinline'), src: v.currentSrc,
  audio: v.webkitAudioDecodedByteCount}}; }}"""


#: the premise, tried by the page itself as it loads, before the test touches it (anything Playwright evaluates in a
#: page counts as a user gesture there): this browser refuses to start a video with a sound track without a tap
UNTAPPED = """document.addEventListener('DOMContentLoaded', () => { const v = document.createElement('video');
  v.src = '/static/media/keep-awake.mp4';
  v.play().then(() => { window.__untapped = 'played'; v.pause(); }, (e) => { window.__untapped = e.name; }); });"""


def open_phone(new_page, server, game, player, init: str | None = None):
    """The player's phone at the LAN name: not a secure context, no Wake Lock API (unless ``init`` makes one)."""
    phone = new_page(**PHONE)
    if init:
        phone.add_init_script(init)
    phone.goto(player_url(server, game, player).replace(server.url, server.lan_url, 1))
    assert phone.evaluate("window.isSecureContext") is False
    expect(phone.locator("#conn.ok")).to_be_visible()
    return phone


def fight_setup(server):
    game = new_game(server, "plain_grid", {"width": 12, "height": 8}, name="Plain HTTP")
    mira = join(server, game, "Mira")
    ids = [add_token(server, game, "Aria", 3, 3, owner=mira["player_id"], kind="pc"), add_token(server, game, "Ogre", 6, 3)]
    return game, mira, ids


def playback(phone) -> dict | None:
    return phone.evaluate(PLAYBACK)


def assert_playing(phone) -> dict:
    """The video plays: not paused, and its time moves on."""
    phone.wait_for_function(f"() => {{ const v = {VIDEO}; return v && !v.paused && v.currentTime > 0; }}")
    before = playback(phone)
    phone.wait_for_timeout(400)
    after = playback(phone)
    assert not after["paused"] and not after["ended"], after
    assert after["time"] != before["time"], f"the video's time stands still: {before} {after}"
    expect(phone.locator("#keep-awake")).to_have_attribute("data-keeper", "video")
    return after


def assert_paused(phone, keeper: str = "off") -> None:
    phone.wait_for_function(f"() => {{ const v = {VIDEO}; return !v || v.paused; }}")
    expect(phone.locator("#keep-awake")).to_have_attribute("data-keeper", keeper)
    def still(now: dict | None) -> dict | None:  # the decoder may finish the audio it had buffered after a pause
        return now and {k: v for k, v in now.items() if k != "audio"}

    stopped = still(playback(phone))
    phone.wait_for_timeout(400)
    assert still(playback(phone)) == stopped, "a paused video's time stands still"


def set_shown(phone, state_: str) -> None:
    """The phone put away (hidden) or taken out again (visible): document.visibilityState and its event."""
    phone.evaluate("""(s) => { window.__shown = s;
      Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => window.__shown});
      Object.defineProperty(document, 'hidden', {configurable: true, get: () => window.__shown !== 'visible'});
      document.dispatchEvent(new Event('visibilitychange')); }""", state_)
    assert phone.evaluate("document.visibilityState") == state_


def test_over_plain_http_a_silent_video_keeps_the_phone_awake_from_the_first_tap_until_the_fight_ends(
        server, new_page, shot):
    game, mira, ids = fight_setup(server)
    phone = open_phone(new_page, server, game, mira, init=UNTAPPED)
    assert phone.evaluate("'wakeLock' in navigator") is False, "plain HTTP: no Screen Wake Lock API"
    phone.wait_for_function("() => !!window.__untapped")
    assert phone.evaluate("window.__untapped") == "NotAllowedError", "the default autoplay policy: a tap first"
    switch = phone.locator("#keep-awake")
    expect(switch).to_be_checked()
    expect(switch).to_have_attribute("data-keeper", "off")  # no fight: nothing keeps the screen on

    # the fight starts before any tap: the video may not play yet, and the phone says a tap is needed
    command(server, game, {"type": "start_combat", "token_ids": ids})
    expect(phone.locator("#combat.fighting")).to_be_attached()
    expect(switch).to_have_attribute("data-keeper", "tap")
    expect(phone.locator(".keep-awake-note[data-note=tap]")).to_be_visible()
    shot(phone, "phone-390-awake-tap-needed")
    assert phone.evaluate(f"() => {{ const v = {VIDEO}; return !v || v.paused; }}")

    # the player's first tap on the page (its title, nothing that does anything) starts it
    phone.tap("h1.game-name")
    video = assert_playing(phone)
    expect(phone.locator(".keep-awake-note")).to_have_count(2)
    expect(phone.locator(".keep-awake-note[data-note=tap]")).to_be_hidden()
    # what keeps a screen on in Chromium and Safari: a sound track it may hear (silent), inline, no `loop`
    assert video["muted"] is False and video["volume"] > 0 and video["inline"] and video["loop"] is False, video
    assert "/static/media/keep-awake." in video["src"], video
    assert video["audio"] > 0, f"its (silent) sound track is played: {video}"
    phone.wait_for_timeout(2600)  # past the clip's two seconds: sent back to its start, still playing
    assert_playing(phone)
    shot(phone, "phone-390-awake-plain-http")

    # the switch off: paused, and a live update does not start it again; on again: it plays
    switch.uncheck()
    assert_paused(phone)
    command(server, game, {"type": "next_turn"})
    phone.wait_for_timeout(500)
    assert playback(phone)["paused"]
    switch.check()
    assert_playing(phone)

    # the phone put away: paused; taken out again: it plays, no tap needed
    set_shown(phone, "hidden")
    assert_paused(phone)
    set_shown(phone, "visible")
    assert_playing(phone)

    # the GM ends the fight: paused
    command(server, game, {"type": "end_combat"})
    expect(phone.locator("#combat.fighting")).to_have_count(0)
    assert_paused(phone)


def test_a_tap_before_the_fight_lets_the_video_start_when_the_gm_starts_it(server, new_page):
    game, mira, ids = fight_setup(server)
    phone = open_phone(new_page, server, game, mira)
    phone.tap("h1.game-name")  # a tap with no fight on: the video plays an instant, to be allowed later
    phone.wait_for_function(f"() => {{ const v = {VIDEO}; return v && v.paused && v.readyState > 0; }}")
    expect(phone.locator("#keep-awake")).to_have_attribute("data-keeper", "off")
    phone.wait_for_timeout(300)

    command(server, game, {"type": "start_combat", "token_ids": ids})  # no tap: the live update starts it
    assert_playing(phone)
    command(server, game, {"type": "end_combat"})
    assert_paused(phone)
    command(server, game, {"type": "start_combat", "token_ids": ids})  # and again
    assert_playing(phone)


def test_a_refused_wake_lock_hands_over_to_the_video(server, new_page):
    """A browser that has the API but refuses it (battery saver): the video keeps the screen on instead."""
    refusing = """Object.defineProperty(navigator, 'wakeLock', {configurable: true, value: {request: () => {
      window.__asked = (window.__asked || 0) + 1;
      return Promise.reject(new DOMException('battery saver', 'NotAllowedError')); }}});"""
    game, mira, ids = fight_setup(server)
    phone = open_phone(new_page, server, game, mira, init=refusing)
    command(server, game, {"type": "start_combat", "token_ids": ids})
    phone.wait_for_function("() => window.__asked === 1")
    expect(phone.locator("#keep-awake")).to_have_attribute("data-keeper", "tap")
    phone.tap("h1.game-name")
    assert_playing(phone)
    command(server, game, {"type": "next_turn"})
    phone.wait_for_timeout(300)
    assert phone.evaluate("window.__asked") == 1, "refused once: not asked again"


@pytest.mark.console_errors(r"^Failed to load resource: net::ERR_FAILED \(http://[^ ]+/static/media/keep-awake\.(mp4|webm):0\)$",
                            why="the test aborts both keep-awake videos, as a phone that plays neither")
def test_a_phone_that_can_play_neither_file_says_its_screen_may_sleep(server, new_page, shot):
    game, mira, ids = fight_setup(server)
    phone = new_page(**PHONE)
    phone.route("**/static/media/**", lambda route: route.abort())  # neither file reaches the phone
    phone.goto(player_url(server, game, mira).replace(server.url, server.lan_url, 1))
    expect(phone.locator("#conn.ok")).to_be_visible()
    command(server, game, {"type": "start_combat", "token_ids": ids})
    phone.tap("h1.game-name")
    expect(phone.locator("#keep-awake")).to_have_attribute("data-keeper", "none")
    note = phone.locator(".keep-awake-note[data-note=none]")
    expect(note).to_be_visible()
    expect(note).to_have_text("This browser cannot keep the screen on")
    expect(phone.locator(".keep-awake-note[data-note=tap]")).to_be_hidden()
    shot(phone, "phone-390-awake-cannot")


def test_the_first_tap_of_a_fight_presses_what_it_touched_though_the_tap_note_goes(server, new_page, shot):
    """Issue #70: the note "Tap the page to keep the screen on" went at the first tap, the page moved up 34 px
    under the finger and the click landed 34 px below it: the List button, or End my turn, was not pressed."""
    game, mira, ids = fight_setup(server)
    phone = open_phone(new_page, server, game, mira)
    command(server, game, {"type": "start_combat", "token_ids": ids})  # Aria first
    note = phone.locator(".keep-awake-note[data-note='tap']")
    expect(note).to_be_visible()
    expect(phone.locator("#turn-bar")).to_contain_text("Your turn")
    shot(phone, "phone-tap-note")

    switch = phone.locator("[data-board-view='list']")
    before = switch.bounding_box()
    switch.tap()  # the first tap: the video starts, the note goes
    expect(phone.locator("#keep-awake")).to_have_attribute("data-keeper", "video")
    expect(note).not_to_be_visible()
    assert switch.bounding_box() == before, "nothing moved under the finger"
    expect(phone.locator("[data-board-view='list']")).to_have_attribute("aria-pressed", "true")
    expect(phone.locator("#board-list")).to_be_visible()
    shot(phone, "phone-tap-note-gone")
    phone.locator("#turn-bar button", has_text="End my turn").tap()
    expect(phone.locator("#combat li.current")).to_contain_text("Ogre")
    command(server, game, {"type": "end_combat"})  # the note's room goes with the fight
    expect(note).to_be_hidden()
    expect(note).to_have_attribute("hidden", "")
