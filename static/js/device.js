// A phone at the table: awake during a fight, told when its turn or a defense comes.
// - Screen Wake Lock (where the browser has it) while a fight is on and the page is shown; taken again
//   when the page is shown again (the browser lets it go when hidden); let go when the fight ends or the
//   player turns the switch off (remembered on this device, in localStorage); a defense asked of the
//   player outside a fight keeps it on too, while it waits.
// - "Your turn" (the turn bar) and a defense prompt: a vibration (where the Vibration API is) and a pulse
//   of the bar or the prompt, once when it starts, not on every live update.
(function () {
  "use strict";
  const SWITCH = "tacmap.keepAwake";
  const toggle = document.getElementById("keep-awake");
  let lock = null;        // the WakeLockSentinel held
  let asking = false;     // a request under way
  let shown = { turn: null, defense: null };

  function wanted() {
    return !!(toggle && toggle.checked) && document.visibilityState === "visible" &&
      !!document.querySelector("#combat.fighting, #defense-prompt.asking:not([hidden])");
  }

  function keepAwake() {
    if (!("wakeLock" in navigator)) return;
    if (wanted()) {
      if (lock || asking) return;
      asking = true;
      navigator.wakeLock.request("screen").then((sentinel) => {
        asking = false;
        lock = sentinel;
        sentinel.addEventListener("release", () => { if (lock === sentinel) lock = null; });
        if (!wanted()) letGo(); // the fight ended or the switch went off while it was asked
      }, () => { asking = false; }); // refused (battery saver, not shown): asked again on the next change
    } else {
      letGo();
    }
  }

  function letGo() {
    if (!lock) return;
    const held = lock;
    lock = null;
    held.release().catch(() => {});
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
  }
  shown = current(); // what the page opened with is not news
  document.addEventListener("tacmap:update", check);
  document.addEventListener("visibilitychange", keepAwake);
  keepAwake();
  window.tacmapDevice = { held: () => !!lock };
})();
