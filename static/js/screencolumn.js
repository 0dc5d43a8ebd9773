// The table screen's column beside the map (templates/screen.html): the turn order, the newest result and
// the newest rolls share it. When they do not all fit, the rolls give way first (static/css/areas.css) and
// the turn order scrolls itself so that the acting row and the rows after it are in view; a roll line that
// does not fit whole is not shown in part; rows of the turn order out of view are marked by a "…".
(function () {
  "use strict";
  if (!document.body.classList.contains("screen-view")) return;

  function keepActingInView() {
    const combat = document.getElementById("combat");
    const row = combat && combat.querySelector(".turn-order li.current");
    if (!row) return;
    const box = combat.getBoundingClientRect();
    const title = combat.querySelector("h2");
    const top = box.top + (title ? title.getBoundingClientRect().height : 0); // the round's title stays on top
    const r = row.getBoundingClientRect();
    const last = (row.nextElementSibling || row).getBoundingClientRect();
    if (r.top >= top - 0.5 && last.bottom <= box.bottom + 0.5) return; // in view already
    combat.scrollTop += r.top - top - 4;
  }

  // the rows of the turn order scrolled out of view, above (under the round's title) or below: a "…" says
  // there are more (#58: the TV dropped rows with no cue); static/css/combat.css draws it
  function cueHiddenRows() {
    const combat = document.getElementById("combat");
    if (!combat) return;
    const box = combat.getBoundingClientRect();
    const title = combat.querySelector("h2");
    const top = title ? title.getBoundingClientRect().bottom : box.top;
    let above = 0, below = 0;
    for (const li of combat.querySelectorAll(".turn-order > li")) {
      const r = li.getBoundingClientRect();
      if (r.top < top - 0.5) above += 1;
      else if (r.bottom > box.bottom + 0.5) below += 1;
    }
    combat.classList.toggle("more-above", above > 0);
    combat.classList.toggle("more-below", below > 0);
    combat.dataset.hiddenAbove = String(above);
    combat.dataset.hiddenBelow = String(below);
  }

  function wholeRollsOnly() {
    const feed = document.getElementById("screen-feed");
    if (!feed) return;
    const bottom = feed.getBoundingClientRect().bottom;
    let shown = 0;
    for (const li of feed.querySelectorAll("li")) {
      const fits = li.getBoundingClientRect().bottom <= bottom + 0.5;
      li.style.visibility = fits ? "" : "hidden";
      shown += fits ? 1 : 0;
    }
    const title = feed.querySelector("h2");
    if (title) title.style.visibility = shown ? "" : "hidden";
  }

  function fit() {
    keepActingInView();
    cueHiddenRows();
    wholeRollsOnly();
  }

  let queued = false;
  function later() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; fit(); });
  }
  // the result card comes and goes, the banner folds, an update swaps the parts: each changes their sizes
  const watched = new WeakSet();
  const sizes = new ResizeObserver(later);
  function watch() {
    for (const id of ["combat", "screen-feed", "result-card"]) {
      const el = document.getElementById(id);
      if (el && !watched.has(el)) { watched.add(el); sizes.observe(el); }
    }
  }
  document.addEventListener("tacmap:update", () => { watch(); later(); });
  window.addEventListener("resize", later);
  watch();
  fit();
})();
