// A phone at the table: awake during a fight, told when its turn or a defense comes.
// - Awake while it is wanted: a fight on (or a defense asked of the player), the page shown, and the phone's
//   "Screen on in fights" switch on (remembered on this device, in localStorage). Two keepers (issue #61):
//   * the Screen Wake Lock API where the browser has it: taken when wanted, taken again when the page is shown
//     again (the browser lets it go when hidden), let go when the fight ends or the switch goes off;
//   * where it is missing (a plain http:// page, not a secure context: a phone reaching the GM's laptop at
//     http://192.168.x.y) or refused, a silent video, as NoSleep.js does: tiny, inline, played while wanted,
//     paused otherwise. Browsers let a page play a video with a sound track only after a tap on it, so the
//     first tap, click or key on the page starts it (or plays it for an instant to be allowed later).
//     What makes a browser keep the screen on for a video: it plays, and it has a sound track it may hear
//     (not muted; the track is silence), and for Safari it does not `loop` (so it is sent back to its start
//     before its end). Chromium's rule is VideoWakeLock::ShouldBeActive (video_wake_lock.cc), WebKit's
//     HTMLMediaElement::shouldDisableSleep: a muted video keeps neither awake unless it covers a fifth of
//     the screen. The files: static/media/keep-awake.{mp4,webm} (docs/DEVELOPING.md says how they were made).
//   The switch says which keeper holds the screen (data-keeper: wake-lock, video, tap (wanted, waits for a
//   tap), none (wanted, and this browser has no way), off); a note beside it says when a tap is needed or when
//   this browser cannot keep the screen on (the tap note's room stays, empty, until the fight ends: #70).
// - "Your turn" (the turn bar) and a defense prompt: a vibration (where the Vibration API is) and a pulse
//   of the bar or the prompt, once when it starts, not on every live update.
(function () {
  "use strict";
  const SWITCH = "tacmap.keepAwake";
  const toggle = document.getElementById("keep-awake");
  let lock = null;        // the WakeLockSentinel held
  let asking = false;     // a request under way
  let useLock = "wakeLock" in navigator; // false where missing, and once refused: the video keeps the screen
  let video = null;       // the silent video, made at the first tap that needs it
  let allowed = false;    // the video played once from a tap: it may play again without one
  let broken = false;     // the video cannot play here (no format this browser reads)
  let shown = { turn: null, defense: null };

  function wanted() {
    return !!(toggle && toggle.checked) && document.visibilityState === "visible" &&
      !!document.querySelector("#combat.fighting, #defense-prompt.asking:not([hidden])");
  }

  function keepAwake() {
    if (useLock) keepWithLock();
    else keepWithVideo(false);
  }

  function keepWithLock() {
    if (wanted()) {
      if (lock || asking) return;
      asking = true;
      navigator.wakeLock.request("screen").then((sentinel) => {
        asking = false;
        lock = sentinel;
        sentinel.addEventListener("release", () => { if (lock === sentinel) { lock = null; mark(); } });
        if (!wanted()) letGo(); // the fight ended or the switch went off while it was asked
        mark();
      }, () => { // refused (battery saver, a policy): the video keeps the screen from now on
        asking = false;
        useLock = false;
        keepWithVideo(false);
      });
    } else {
      letGo();
    }
    mark();
  }

  function letGo() {
    if (!lock) return;
    const held = lock;
    lock = null;
    held.release().catch(() => {});
  }

  function makeVideo() {
    const v = document.createElement("video");
    v.className = "keep-awake-video";
    v.setAttribute("playsinline", "");   // inline on iPhones, never full screen
    v.setAttribute("aria-hidden", "true");
    v.setAttribute("tabindex", "-1");
    v.preload = "auto";
    v.disablePictureInPicture = true;
    const sources = [["mp4", 'video/mp4; codecs="avc1.42E01E, mp4a.40.2"'], ["webm", 'video/webm; codecs="vp8, opus"']];
    for (const [kind, type] of sources) {
      const url = toggle.dataset[kind];
      if (!url) continue;
      const source = document.createElement("source");
      source.src = url;
      source.type = type;
      v.appendChild(source);
    }
    const last = v.lastElementChild;
    if (last) last.addEventListener("error", () => { broken = true; v.pause(); mark(); }); // none it can play
    else broken = true;
    // back to the start before the end: a looping (or ended) video keeps no iPhone awake
    v.addEventListener("timeupdate", () => {
      if (v.duration && v.currentTime > v.duration - 0.75) v.currentTime = 0;
    });
    v.addEventListener("ended", () => keepWithVideo(false));
    v.addEventListener("playing", mark);
    v.addEventListener("pause", mark);
    document.body.appendChild(v);
    return v;
  }

  function keepWithVideo(tapped) {
    if (!toggle || broken) { mark(); return; }
    const want = wanted();
    // a tap while the switch is on allows the video for later (played for an instant when not wanted now)
    if (!want && !(tapped && !allowed && toggle.checked)) {
      if (video && !video.paused) video.pause();
      mark();
      return;
    }
    if (!allowed && !tapped) { mark(); return; } // waits for a tap
    if (!video) video = makeVideo();
    if (!video.paused) { mark(); return; }
    const started = video.play();
    if (started && started.then) {
      started.then(() => {
        allowed = true;
        if (!wanted()) video.pause();
        mark();
      }, (err) => {
        if (err && err.name === "NotAllowedError") allowed = false; // asks for a tap again
        else if (err && err.name === "NotSupportedError") broken = true;
        else if (tapped) allowed = true; // an AbortError: a pause came first; the tap counted all the same
        mark();
      });
    }
    mark();
  }

  // which keeper holds the screen, on the switch; the note beside it when a tap is needed or none can
  function mark() {
    if (!toggle) return;
    let keeper = "off";
    if (lock) keeper = "wake-lock";
    else if (asking) keeper = toggle.dataset.keeper || "off"; // asked: known when answered
    else if (!useLock && broken) keeper = wanted() ? "none" : "off";
    else if (video && !video.paused) keeper = "video"; // playing, or loading to play
    else if (wanted() && !useLock) keeper = "tap";
    if (toggle.dataset.keeper !== keeper) toggle.dataset.keeper = keeper;
    const none = !useLock && broken;
    const fighting = wanted();
    document.querySelectorAll(".keep-awake-note").forEach((note) => {
      const show = note.dataset.note === "none" ? none : keeper === "tap";
      // The tap note goes at the tap that starts the video, on its touchend, before the browser aims that tap's
      // click: had its row gone, the page moved up under the finger and the click landed below it (another button,
      // or none: #70). So it leaves its room behind, empty, while the fight is on; the room goes with the fight.
      const spent = !show && note.dataset.note === "tap" && fighting && !note.hidden;
      if (note.classList.contains("spent") !== spent) note.classList.toggle("spent", spent);
      if (note.hidden === (show || spent)) note.hidden = !(show || spent);
    });
  }

  function tapped(event) {
    if (event.type === "keydown" && (event.key === "Escape" || event.repeat)) return;
    if (!useLock && !allowed) keepWithVideo(true);
  }

  // what asks for attention now: a key per turn ("round:token") and per defense asked (its words)
  function current() {
    const bar = document.querySelector("#turn-bar.my-turn:not([hidden])");
    const turn = bar && bar.dataset.turn ? bar.dataset.turn : null;
    const prompt = document.querySelector("#defense-prompt.asking:not([hidden])");
    const defense = prompt ? prompt.textContent.replace(/\s+/g, " ").trim() : null;
    return { turn: turn, defense: defense };
  }

  function tell(el) {
    if (typeof navigator.vibrate === "function") {
      try { navigator.vibrate([200, 100, 200]); } catch (e) { /* not allowed before a tap: the pulse still shows */ }
    }
    if (!el) return;
    el.classList.remove("attention");
    void el.offsetWidth; // restart the pulse
    el.classList.add("attention");
    if (el.scrollIntoView) el.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  function check() {
    const now = current();
    if (now.turn && now.turn !== shown.turn) tell(document.getElementById("turn-bar"));
    if (now.defense && now.defense !== shown.defense) tell(document.getElementById("defense-prompt"));
    shown = now;
    keepAwake();
  }

  if (toggle) {
    toggle.checked = localStorage.getItem(SWITCH) !== "off";
    toggle.addEventListener("change", () => {
      localStorage.setItem(SWITCH, toggle.checked ? "on" : "off");
      keepAwake();
    });
    // a browser that reads neither file has no keeper here: said at once, not at the first tap
    const probe = document.createElement("video");
    if (!useLock && typeof probe.canPlayType === "function" && !probe.canPlayType("video/mp4") &&
        !probe.canPlayType("video/webm")) broken = true;
    // the taps that may start a video (capture: before a handler stops them); a user gesture each
    for (const type of ["click", "touchend", "keydown"]) document.addEventListener(type, tapped, true);
  }
  shown = current(); // what the page opened with is not news
  document.addEventListener("tacmap:update", check);
  document.addEventListener("visibilitychange", keepAwake);
  keepAwake();
  window.tacmapDevice = { held: () => !!lock || !!(video && !video.paused) };
})();
