// The replay panel (#36): the game's timeline (GET /games/<id>/timeline), scrubbed with a range input,
// stepped or played; each position is a `replay` command (nothing stored), "Back to the table" is
// `replay_end`. The GM's range runs over every event of the log; a player's over the moments of their fights.
// The banner (in _live.html) says what a replaying screen shows, on every page.
(function () {
  "use strict";
  const banner = document.getElementById("replay-banner");
  document.addEventListener("tacmap:replay", (e) => {
    if (banner) banner.textContent = e.detail ? e.detail.banner : "";
    const where = document.getElementById("replay-at");
    if (where) where.textContent = e.detail ? e.detail.banner : "";
  });

  const panel = document.getElementById("replay-panel");
  if (!panel || !window.tacmap) return;
  const gm = panel.dataset.role === "gm";
  const details = document.getElementById("replay-details");
  const range = document.getElementById("replay-range");
  const list = document.getElementById("replay-timeline");
  const play = document.getElementById("replay-play");
  const speed = document.getElementById("replay-speed");
  const onScreen = document.getElementById("replay-on-screen");
  let moments = [], head = 0, timer = null, sending = false, wanted = null, shown = null;

  async function load() {
    const r = await fetch(panel.dataset.timeline, { credentials: "same-origin" });
    if (!r.ok) return;
    const t = await r.json();
    moments = t.moments; head = t.head;
    range.max = String(gm ? head : Math.max(moments.length - 1, 0));
    if (shown === null) range.value = range.max;
    list.replaceChildren(...moments.map((m, i) => {
      const li = document.createElement("li");
      li.className = "k-" + m.kind;
      li.dataset.seq = String(m.seq);
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = m.text;
      b.addEventListener("click", () => go(gm ? m.seq : i));
      li.append(b);
      return li;
    }));
  }
  // the seq a position of the range stands for
  const seqOf = (pos) => gm ? pos : (moments[pos] || {}).seq;

  async function go(pos) {
    pos = Math.max(0, Math.min(parseInt(range.max, 10), pos));
    range.value = String(pos);
    wanted = pos;
    if (sending) return; // the newest position goes once the one on its way is answered
    sending = true;
    while (wanted !== null) {
      const at = seqOf(wanted);
      wanted = null;
      if (at === undefined) break;
      const payload = { type: "replay", at: at };
      if (gm) payload.on = onScreen && onScreen.checked ? ["gm", "screen"] : ["gm"];
      const ack = await window.tacmap.command(payload);
      if (ack.ok) {
        shown = at;
        mark(at);
        if (ack.replay && ack.replay.head > head) load();
      } else stop();
    }
    sending = false;
  }
  function mark(at) {
    let current = null;
    for (const li of list.children) {
      li.classList.remove("current");
      if (parseInt(li.dataset.seq, 10) <= at) current = li;
    }
    if (current) { current.classList.add("current"); current.scrollIntoView({ block: "nearest" }); }
  }
  // the position of the moment before or after the one shown
  function moment(step) {
    const at = shown === null ? seqOf(parseInt(range.value, 10)) : shown;
    if (!gm) return Math.max(0, Math.min(moments.length - 1, parseInt(range.value, 10) + step));
    const seqs = moments.map((m) => m.seq);
    const next = step > 0 ? seqs.find((s) => s > at) : seqs.reverse().find((s) => s < at);
    return next === undefined ? (step > 0 ? head : 0) : next;
  }
  function stop() {
    clearInterval(timer); timer = null;
    play.textContent = t("▶ Play"); play.setAttribute("aria-pressed", "false");
  }

  details.addEventListener("toggle", () => { if (details.open) load(); });
  range.addEventListener("input", () => go(parseInt(range.value, 10)));
  document.getElementById("replay-prev").addEventListener("click", () => go(parseInt(range.value, 10) - 1));
  document.getElementById("replay-next").addEventListener("click", () => go(parseInt(range.value, 10) + 1));
  document.getElementById("replay-prev-moment").addEventListener("click", () => go(moment(-1)));
  document.getElementById("replay-next-moment").addEventListener("click", () => go(moment(1)));
  play.addEventListener("click", () => {
    if (timer) { stop(); return; }
    if (parseInt(range.value, 10) >= parseInt(range.max, 10)) range.value = "0";
    play.textContent = t("❚❚ Pause"); play.setAttribute("aria-pressed", "true");
    timer = setInterval(() => {
      const pos = parseInt(range.value, 10) + 1;
      if (pos > parseInt(range.max, 10)) { stop(); return; }
      go(pos);
    }, parseInt(speed.value, 10));
  });
  speed.addEventListener("change", () => { if (timer) { stop(); play.click(); } });
  if (onScreen) onScreen.addEventListener("change", () => { if (shown !== null) go(parseInt(range.value, 10)); });
  document.getElementById("replay-end").addEventListener("click", async () => {
    stop();
    await window.tacmap.command({ type: "replay_end" });
    shown = null;
    for (const li of list.children) li.classList.remove("current");
  });
})();
