// The GM's foes' plans (#60): on a foe's turn the fight card's #foe-plans asks the server for the foe's best plans
// (GET /games/<id>/foe-plans/<token>: reckoned off the server's loop, never inside a command) and shows them; a
// plan's Do it sends its steps in order through the page's command queue, each judged by the rules as if the GM
// had made it by hand; a refusal stops the plan and says why. Fetched once per turn (a new foe, a new round) and
// again on "Suggest plans" or a tactic set. A foe's plans may be asked off its turn too (the turn order's "Plans"):
// the plans of its turn were it to begin now, shown without Do it. While an attack waits for its answer the server
// says so instead of plans, and they are asked again on each update until it comes.
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
      kept = answer.ok || answer.status === 429 ? await answer.text() : "";  // 429: the server's "busy, try again"
    } catch (err) {
      kept = "";
    } finally {
      box.removeAttribute("aria-busy");
    }
    const now = document.getElementById("foe-plans");  // the card may have been drawn again meanwhile
    const slot = now && now.querySelector(".foe-plans-slot");
    if (slot) slot.innerHTML = kept;
  }

  // a foe's plans asked off its turn (the row's "Plans" in the turn order): shown in #foe-plans-ahead, with "on its
  // turn" for Do it, kept across the card's drawings until closed, or until its turn comes (#foe-plans has it then)
  let ahead = null;  // {id, url, title, html}

  async function loadAhead() {
    const asked = ahead;
    let html = "";
    try {
      const answer = await fetch(asked.url, { credentials: "same-origin", headers: { "Accept": "text/html" } });
      html = answer.ok || answer.status === 429 ? await answer.text() : "";
    } catch (err) {
      html = "";
    }
    if (ahead !== asked) return;  // closed, or another foe asked, meanwhile
    ahead.html = html;
    showAhead();
  }

  function showAhead() {
    const box = document.getElementById("foe-plans-ahead");
    if (!box) return;
    const now = document.getElementById("foe-plans");
    const gone = ahead && !document.querySelector('[data-foe-plans-of="' + CSS.escape(ahead.id) + '"]');
    if (ahead && ((now && now.dataset.tokenId === ahead.id) || gone)) ahead = null;  // its turn came, or it left
    box.hidden = !ahead;
    box.querySelector(".ahead-name").textContent = ahead ? ahead.title : "";
    box.querySelector(".foe-plans-slot").innerHTML = ahead ? ahead.html : "";
    box.setAttribute("aria-busy", ahead && !ahead.html ? "true" : "false");
  }

  function check() {
    showAhead();
    if (ahead && ahead.html.indexOf("foe-plans-waiting") >= 0) loadAhead();  // its plans wait for an answer too
    const box = document.getElementById("foe-plans");
    if (!box) { shownFor = null; kept = ""; return; }
    const key = box.dataset.tokenId + ":" + box.dataset.round;
    const slot = box.querySelector(".foe-plans-slot");
    // the plans waited for an attack's answer (a defense, a Soak roll, the table's dice): asked again on each
    // update until it comes, the waiting words kept on screen meanwhile
    const waited = kept.indexOf("foe-plans-waiting") >= 0;
    if (key !== shownFor || stale || waited) {
      if (waited && slot && !slot.innerHTML.trim()) slot.innerHTML = kept;
      shownFor = key; stale = false; load(box);
    }
    else if (slot && !slot.innerHTML.trim() && kept) slot.innerHTML = kept;
  }

  document.addEventListener("click", async (e) => {
    const of = e.target.closest("[data-foe-plans-of]");
    if (of) {
      ahead = { id: of.dataset.foePlansOf, url: of.dataset.url, title: of.title, html: "" };
      showAhead();
      loadAhead();
      return;
    }
    if (e.target.closest("[data-foe-plans-close]")) { ahead = null; showAhead(); return; }
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
    if (!e.target.closest(".foe-tactic")) return;
    if (e.target.closest("#foe-plans-ahead")) { setTimeout(() => { if (ahead) loadAhead(); }, 400); return; }
    setTimeout(() => { const box = document.getElementById("foe-plans"); if (box) load(box); }, 400);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", check); else check();
})();
