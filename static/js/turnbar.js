// The phone's turn bar (templates/_turn_bar.html) folds to one line once a choice is made in the turn (#61):
// an action sent from the bar, the Attack… or Move link followed, or an attack, a move or an action of the
// acting token answered "ok" (live.js's "tacmap:answered"). Folded, it keeps whose turn it is, what is left,
// End my turn and the button that unfolds it (aria-expanded); a tap on that button folds or unfolds it, and a
// new turn of the player's (the bar's data-turn: round, phase, token) opens it again, and so does a shot the
// rules owe now. The choice is this page's own: kept for the tab (sessionStorage), so a reload of the page
// keeps the bar as it was.
(function () {
  "use strict";
  const root = document.getElementById("live");
  if (!root || !document.getElementById("turn-bar")) return;
  const KEY = "tacmap.turnbar." + root.dataset.game;
  const CHOICES = new Set(["act", "attack", "move_token"]);
  let turn = null, folded = false;

  try {
    const kept = JSON.parse(sessionStorage.getItem(KEY) || "null");
    if (kept && typeof kept.turn === "string") { turn = kept.turn; folded = !!kept.folded; }
  } catch (err) { /* storage refused (private mode): the bar starts open */ }

  function keep() {
    try { sessionStorage.setItem(KEY, JSON.stringify({ turn: turn, folded: folded })); } catch (err) { /* nothing */ }
  }
  const bar = () => document.getElementById("turn-bar");
  const actingToken = () => { const b = bar(); return b && b.dataset.turn ? b.dataset.turn.split(":").pop() : null; };

  // the bar as its state says, after each redraw of it (a live update draws it afresh, open)
  function apply() {
    const b = bar();
    if (!b) return;
    const now = b.dataset.turn || null;
    if (now && now !== turn) { turn = now; folded = false; keep(); }  // the player's turn anew: open
    // a shot the rules owe now (a free attack, phase/TN's shots) is never folded away: its button comes first
    const fold = !!now && folded && !b.querySelector(".due-roll");
    b.classList.toggle("folded", fold);
    const toggle = b.querySelector(".turn-bar-fold");
    if (toggle) toggle.setAttribute("aria-expanded", fold ? "false" : "true");
  }
  function fold(value) {
    const b = bar();
    if (!b || !b.dataset.turn) return;
    turn = b.dataset.turn;
    folded = value;
    keep();
    const row = b.querySelector(".turn-bar-row");
    const inRow = value && row && row.contains(document.activeElement);
    apply();
    // the keyboard was on a control the fold hides (a choice made from the keyboard): it goes to the fold button,
    // which says the turn's actions are folded and opens them again, not to the top of the page (#70)
    const toggle = b.querySelector(".turn-bar-fold");
    const now = document.activeElement;
    if (inRow && toggle && (!now || now === document.body || !now.getClientRects().length)) toggle.focus({ preventScroll: true });
  }

  document.addEventListener("click", (e) => {
    const toggle = e.target.closest("#turn-bar .turn-bar-fold");
    if (toggle) { fold(toggle.getAttribute("aria-expanded") === "true"); return; }
    // the Attack… and Move links: the choice is made, the card or the map below wants the room
    if (e.target.closest("#turn-bar .turn-bar-actions a.button")) fold(true);
  });
  document.addEventListener("tacmap:answered", (e) => {
    const { payload, ack } = e.detail;
    if (!ack || !ack.ok || !payload || !CHOICES.has(payload.type)) return;
    const acting = actingToken();
    if (acting && (payload.token_id === acting || payload.attacker === acting)) fold(true);
  });
  document.addEventListener("tacmap:update", apply);
  document.addEventListener("tacmap:replay", apply);
  apply();
})();
