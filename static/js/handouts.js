// Hand-outs on a phone (#27): a hand-out the GM shows opens in a sheet over the page; Close puts it
// away, its button in the "Hand-outs" list opens it again. What is shown comes from the server (only
// what this player was given is in the page); this only opens and closes. Live updates redraw the
// panel, so what the player closed is remembered here (a hand-out shown again opens again).
(function () {
  "use strict";
  const KEPT = "tacmap-handouts-closed";
  let closed; // "<id>@<shown seq>": put away by the player (kept over a reload, for this tab)
  try { closed = new Set(JSON.parse(sessionStorage.getItem(KEPT) || "[]")); } catch (err) { closed = new Set(); }
  function putAway(sheet) {
    closed.add(key(sheet));
    try { sessionStorage.setItem(KEPT, JSON.stringify([...closed].slice(-200))); } catch (err) { /* private mode */ }
  }
  let opened = null; // the id the player opened from the list

  function key(sheet) { return sheet.dataset.handoutId + "@" + (sheet.dataset.shown || ""); }

  function apply() {
    const sheets = [...document.querySelectorAll(".handout-sheet")];
    let shown = sheets.find((s) => s.dataset.handoutId === opened);
    if (!shown) shown = sheets.find((s) => s.dataset.open !== undefined && !closed.has(key(s)));
    for (const s of sheets) s.hidden = s !== shown;
    if (shown) {
      const close = shown.querySelector("[data-handout-close]");
      const idle = !document.activeElement || document.activeElement === document.body;
      if (close && (idle || opened === shown.dataset.handoutId) && !shown.contains(document.activeElement)) {
        close.focus({ preventScroll: true }); // never taken from a field the player is typing in
      }
    }
  }

  document.addEventListener("click", (e) => {
    const open = e.target.closest && e.target.closest("[data-handout-open]");
    if (open) { opened = open.dataset.handoutOpen; apply(); return; }
    const close = e.target.closest && e.target.closest("[data-handout-close]");
    const sheet = close ? close.closest(".handout-sheet")
      : (e.target.classList && e.target.classList.contains("handout-sheet") ? e.target : null);
    if (sheet) {
      putAway(sheet);
      if (opened === sheet.dataset.handoutId) opened = null;
      apply();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape") return;
    const sheet = document.querySelector(".handout-sheet:not([hidden])");
    if (sheet) { putAway(sheet); opened = null; apply(); }
  });
  document.addEventListener("tacmap:update", () => setTimeout(apply, 0));
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", apply);
  else apply();
})();
