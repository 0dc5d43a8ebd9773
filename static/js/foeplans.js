// The GM's foes' plans (#60): on a foe's turn the fight card's #foe-plans asks the server for the foe's best plans
// (GET /games/<id>/foe-plans/<token>: reckoned off the server's loop, never inside a command) and shows them; a
// plan's Do it sends its steps in order through the page's command queue, each judged by the rules as if the GM
// had made it by hand; a refusal stops the plan and says why. Fetched once per turn (a new foe, a new round) and
// again on "Suggest plans" or a tactic set.
(function () {
  "use strict";
  let shownFor = null;  // "token:round" the plans on screen were fetched for
  let kept = "";  // their HTML, put back when the fight card is drawn again during the same turn
  let stale = false;  // a plan was played: the next drawing of the card asks again

  async function load(box) {
    const body = box.querySelector(".foe-plans-slot");
    if (!body) return;
    box.setAttribute("aria-busy", "true");
    try {
      const answer = await fetch(box.dataset.url, { credentials: "same-origin", headers: { "Accept": "text/html" } });
      kept = answer.ok ? await answer.text() : "";
    } catch (err) {
      kept = "";
    } finally {
      box.removeAttribute("aria-busy");
    }
    const now = document.getElementById("foe-plans");  // the card may have been drawn again meanwhile
    const slot = now && now.querySelector(".foe-plans-slot");
    if (slot) slot.innerHTML = kept;
  }

  function check() {
    const box = document.getElementById("foe-plans");
    if (!box) { shownFor = null; kept = ""; return; }
    const key = box.dataset.tokenId + ":" + box.dataset.round;
    const slot = box.querySelector(".foe-plans-slot");
    if (key !== shownFor || stale) { shownFor = key; stale = false; load(box); }
    else if (slot && !slot.innerHTML.trim() && kept) slot.innerHTML = kept;
  }

  document.addEventListener("click", async (e) => {
    const ask = e.target.closest("[data-foe-plans-ask]");
    if (ask) { const box = document.getElementById("foe-plans"); if (box) load(box); return; }
    const button = e.target.closest("button[data-do-plan]");
    if (!button || !window.tacmap) return;
    let steps;
    try { steps = JSON.parse(button.dataset.steps); } catch (err) { return; }
    const status = button.parentElement.querySelector(".plan-status");
    button.disabled = true;
    let refused = false;
    for (const step of steps) {  // in order: each waits for the answer to the one before
      const ack = await window.tacmap.command(step);
      if (!ack || !ack.ok) {  // stopped: the rest is not sent; the plan stays on screen with the reason
        const why = (ack && ack.error) || "";
        if (status && status.isConnected) status.textContent = why;
        window.tacmap.flash(why);
        refused = true;
        break;
      }
    }
    if (button.isConnected) button.disabled = false;
    if (!refused) { stale = true; check(); }  // played: the plans are asked again for what is left of the turn
  });

  document.addEventListener("tacmap:update", check);
  document.addEventListener("submit", (e) => {  // a tactic set: the plans follow it
    if (e.target.closest(".foe-tactic")) setTimeout(() => { const box = document.getElementById("foe-plans"); if (box) load(box); }, 400);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", check); else check();
})();
