// The keyboard stays where it was across a live update (#61). An update swaps parts of the page for fresh
// copies (live.js, htmx out-of-band swaps): a focused button among them went with its old copy, and the focus
// fell to the top of the page. live.js asks `remember()` before a swap and `restore(memory)` after it: when the
// element that had the focus is gone, its twin in the fresh copy takes it back (the same id, or the same keys:
// its form's data-command, its name, the token or player it belongs to, its words), with the caret and
// selection of a text field kept, and no scrolling; with no twin, where its part says (data-focus-next, #70). Nothing
// had the focus: nothing gets it.
(function () {
  "use strict";
  const SCOPE = ["data-token-id", "data-player-id", "data-for", "data-group"]; // an ancestor that says whose it is
  const words = (el) => (el.textContent || "").replace(/\s+/g, " ").trim();

  // what the element is, by what a fresh copy keeps: its part (nearest ancestor with an id) and its keys
  function describe(el) {
    let part = el.parentElement;
    while (part && !part.id && part !== document.body) part = part.parentElement;
    const form = el.form || el.closest("form");
    const scope = {};
    for (const k of SCOPE) {
      const owner = el.closest("[" + k + "]");
      if (owner) scope[k] = owner.getAttribute(k);
    }
    return {
      tag: el.tagName, part: part && part.id ? part.id : null, type: el.getAttribute("type") || "",
      name: el.getAttribute("name") || "", command: form ? form.getAttribute("data-command") || form.getAttribute("hx-post") || "" : "",
      hidden: form ? Array.from(form.querySelectorAll("input[type=hidden][name]")).filter((h) => !h.hasAttribute("data-json"))
        .map((h) => h.name + "=" + h.value).join("&") : "",
      scope: scope, label: el.getAttribute("aria-label") || "", href: el.getAttribute("href") || "",
      value: el.tagName === "BUTTON" ? el.value : "", text: /^(BUTTON|A|SUMMARY)$/.test(el.tagName) ? words(el) : "",
      cls: el.getAttribute("class") || "",
    };
  }

  // how surely `b` (in a fresh copy) is the element `a` described; -1: it is not
  function likeness(a, b) {
    if (a.tag !== b.tag || a.type !== b.type || a.name !== b.name || a.command !== b.command) return -1;
    for (const k of SCOPE) if ((a.scope[k] || null) !== (b.scope[k] || null)) return -1;
    let score = (a.name ? 8 : 0) + (a.command ? 8 : 0) + Object.keys(a.scope).length * 4;
    for (const [k, w] of [["hidden", 3], ["label", 3], ["text", 3], ["href", 2], ["value", 2], ["cls", 1]]) {
      if (a[k] && a[k] === b[k]) score += w;
    }
    return score;
  }

  const usable = (el) => !el.disabled && !el.closest("[hidden], [inert]") && el.getClientRects().length > 0;

  function remember() {
    const el = document.activeElement;
    if (!el || el === document.body || el === document.documentElement) return null;
    const memory = { el: el, id: el.id, what: describe(el), index: 0 };
    const root = (memory.what.part && document.getElementById(memory.what.part)) || document.body;
    memory.index = Array.from(root.querySelectorAll(el.tagName)).indexOf(el);
    if (typeof el.selectionStart === "number") {
      try {
        memory.caret = [el.selectionStart, el.selectionEnd, el.selectionDirection, el.value];
      } catch (e) { /* a field without a caret (a number field) */ }
    }
    return memory;
  }

  function twinOf(memory) {
    if (memory.id) {
      const same = document.getElementById(memory.id);
      if (same && same.tagName === memory.el.tagName) return same;
    }
    const root = (memory.what.part && document.getElementById(memory.what.part)) || document.body;
    let best = null, bestScore = 0, bestGap = Infinity;
    Array.from(root.querySelectorAll(memory.el.tagName)).forEach((c, i) => {
      const score = likeness(memory.what, describe(c));
      const gap = Math.abs(i - memory.index);
      // usable asked last: of the few that would win (it lays the page out once the swap has changed it)
      if ((score > bestScore || (score === bestScore && score > 0 && gap < bestGap)) && usable(c)) {
        best = c; bestScore = score; bestGap = gap;
      }
    });
    return bestScore >= 3 ? best : null; // by place alone it could be anything: better nothing
  }

  // no twin: a part may name where the keyboard goes when its control is gone (data-focus-next: selectors, the first
  // usable one wins; the turn bar's: after a choice of the turn, the next of its actions, or its fold button, #70)
  function fallback(memory) {
    const part = memory.what.part && document.getElementById(memory.what.part);
    const holder = part && part.closest("[data-focus-next]");
    if (!holder) return null;
    return Array.from(holder.querySelectorAll(holder.getAttribute("data-focus-next"))).find(usable) || null;
  }

  function restore(memory) {
    if (!memory || memory.el.isConnected) return; // still there (kept, or patched around): the focus is too
    const now = document.activeElement;
    if (now && now !== document.body && now !== document.documentElement && now !== memory.el) return; // put somewhere on purpose
    const twin = twinOf(memory) || fallback(memory);
    if (!twin) return;
    twin.focus({ preventScroll: true });
    if (memory.caret && twin.setSelectionRange && twin.value === memory.caret[3]) {
      try { twin.setSelectionRange(memory.caret[0], memory.caret[1], memory.caret[2] || "none"); } catch (e) { /* no caret */ }
    }
  }

  window.tacmapFocus = { remember: remember, restore: restore };
})();
