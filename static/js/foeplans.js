// The GM's foes' plans (#60): on a foe's turn the fight card's #foe-plans asks the server for the foe's best plans
// (GET /games/<id>/foe-plans/<token>: reckoned off the server's loop, never inside a command) and shows them; a
// plan's Do it sends its steps in order through the page's command queue, each judged by the rules as if the GM
// had made it by hand; a refusal stops the plan and says why. A foe's plans may be asked off its turn too (the
// turn order's "Plans"): the plans of its turn were it to begin now, shown without Do it. While an attack waits
// for its answer the server says so instead of plans, and they are asked again on each update until it comes.
// Fresh plans (#67): the plans carry the game's seq they were reckoned on (data-seq); once the page has an update
// past it (the GM moved or acted by hand, a player did, a step of a plan was played) they are out of date: their
// Do it is taken away at once, and the plans are asked again (one request at a time, the last update's wins). Do
// it sends the first step with that seq (reckoned_at) and each next one with the seq its step before left, so the
// server refuses a step of a plan the table has moved past ("stale") and the page asks again.
(function () {
  "use strict";
  // the page's words (i18n.js); named t, so scripts/i18n finds this file's messages
  const t = (text, params) => (window.t ? window.t(text, params)
    : text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? params[k] : m)));
  let shownFor = null;  // "token:round" the plans on screen were fetched for
  let kept = "";  // their HTML, put back when the fight card is drawn again during the same turn
  let stale = false;  // a plan was played: the next drawing of the card asks again
  let loading = false;  // a request for #foe-plans under way: the next waits for it (``again``)
  let again = false;
  let playing = false;  // a plan's steps are being sent: its own updates do not make it stale

  function pageSeq() {
    const root = document.getElementById("live");
    return root ? parseInt(root.dataset.seq, 10) || 0 : 0;
  }

  // the seq the plans in this HTML were reckoned on; null: none (an error, "waiting", plans of another time)
  function seqOf(html) {
    const m = /data-seq="(\d+)"/.exec(html || "");
    return m ? parseInt(m[1], 10) : null;
  }

  // the plans on screen are older than the page: no Do it for them (they are asked again)
  function outdated(slot) {
    const buttons = slot ? slot.querySelectorAll("button[data-do-plan]") : [];
    buttons.forEach((b) => {
      b.disabled = true;
      b.title = t("Out of date: fresh plans are being reckoned");
      const status = b.parentElement.querySelector(".plan-status");
      if (status) status.textContent = t("Out of date: fresh plans are being reckoned");
    });
  }

  async function load(box) {
    const body = box.querySelector(".foe-plans-slot");
    if (!body) return;
    if (loading) { again = true; return; }  // one request at a time: asked again once this one is back
    loading = true;
    box.setAttribute("aria-busy", "true");
    try {
      const answer = await fetch(box.dataset.url, { credentials: "same-origin", headers: { "Accept": "text/html" } });
      kept = answer.ok || answer.status === 429 ? await answer.text() : "";  // 429: the server's "busy, try again"
    } catch (err) {
      kept = "";
    } finally {
      box.removeAttribute("aria-busy");
      loading = false;
    }
    const now = document.getElementById("foe-plans");  // the card may have been drawn again meanwhile
    const slot = now && now.querySelector(".foe-plans-slot");
    if (slot) slot.innerHTML = kept;
    const seq = seqOf(kept);
    if (again || (seq !== null && seq < pageSeq())) {  // the table moved on while they were reckoned
      again = false;
      if (slot) outdated(slot);
      if (now) load(now);
    }
  }

  // a foe's plans asked off its turn (the row's "Plans" in the turn order): shown in #foe-plans-ahead, with "on its
  // turn" for Do it, kept across the card's drawings until closed, or until its turn comes (#foe-plans has it then)
  let ahead = null;  // {id, url, title, html}

  async function loadAhead() {
    const asked = ahead;
    if (asked.loading) return;  // one request at a time: the update that comes after it asks again if need be
    asked.loading = true;
    let html = "";
    try {
      const answer = await fetch(asked.url, { credentials: "same-origin", headers: { "Accept": "text/html" } });
      html = answer.ok || answer.status === 429 ? await answer.text() : "";
    } catch (err) {
      html = "";
    }
    asked.loading = false;
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
    else if (ahead && ahead.html && (seqOf(ahead.html) ?? Infinity) < pageSeq()) loadAhead();  // out of date
    const box = document.getElementById("foe-plans");
    if (!box) { shownFor = null; kept = ""; return; }
    const key = box.dataset.tokenId + ":" + box.dataset.round;
    const slot = box.querySelector(".foe-plans-slot");
    // the plans waited for an attack's answer (a defense, a Soak roll, the table's dice): asked again on each
    // update until it comes, the waiting words kept on screen meanwhile
    const waited = kept.indexOf("foe-plans-waiting") >= 0;
    const seq = seqOf(kept);
    const old = !playing && seq !== null && seq < pageSeq();  // the game moved on since they were reckoned (#67)
    if (key !== shownFor || stale || waited || old) {
      if ((waited || old) && slot && !slot.innerHTML.trim()) slot.innerHTML = kept;
      if (old && slot) outdated(slot);
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
    const plans = button.closest(".foe-plans-body");
    let at = plans && plans.dataset.seq ? parseInt(plans.dataset.seq, 10) : null;
    if (at !== null && at < pageSeq()) {  // the table moved on: this plan is not played, fresh ones are asked
      const why = t("This plan is out of date: the table changed since it was reckoned. Fresh plans are coming.");
      if (status) status.textContent = why;
      window.tacmap.flash(why);
      outdated(button.closest(".foe-plans-slot"));
      const box = document.getElementById("foe-plans");
      if (box && button.closest("#foe-plans")) load(box);
      return;
    }
    button.disabled = true;
    playing = true;
    let refused = false;
    try {
      for (const step of steps) {  // in order: each waits for the answer to the one before, on the state it left
        const ack = await window.tacmap.command(at === null ? step : Object.assign({}, step, { reckoned_at: at }));
        if (!ack || !ack.ok) {  // stopped: the rest is not sent; the plan stays on screen with the reason
          const why = (ack && ack.error) || "";
          if (status && status.isConnected) status.textContent = why;
          window.tacmap.flash(why);
          refused = true;
          if (ack && ack.code === "stale") { stale = true; refused = false; }  // out of date: asked again below
          break;
        }
        at = typeof ack.seq === "number" ? ack.seq : null;
      }
    } finally {
      playing = false;
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
