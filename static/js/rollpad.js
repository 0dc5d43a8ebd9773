// The table's own dice (#59): the pad that asks for the faces of a roll made at the table. The faces typed or
// tapped live in the form's text field (so a screen reader or a keyboard types them as well); the pad is drawn
// again from it after every tap: which die comes next, "Ace! roll it again" after an exploding die's top face
// (Tesseris' dT: "9 and 10 roll again", its own words), each face entered a button that takes it (and those after
// it) back. A face the die asked cannot show (a 7 typed for a d6) is not counted: the pad says why beside the field
// and a tap puts the right face in its place (#70). Done sends enter_dice; the server checks every face again and
// refuses what no such die shows. Rolls made together (#70: a round's initiative) are a row each ([data-roll-row],
// its data-at the roll's place among the command's rolls), each its own pad and Done.
(function () {
  "use strict";
  // the page's words (i18n.js); named t, so scripts/i18n finds this file's messages
  const t = (text, params) => (window.t ? window.t(text, params)
    : text.replace(/\{(\w+)\}/g, (m, k) => (params && k in params ? params[k] : m)));

  function facesOf(input) {
    return input.value.split(/[\s,]+/).filter((s) => s !== "").map(Number);
  }

  function dieName(d) {
    return d.dt ? "dT" : `d${d.sides}`;
  }

  // the highest face a die of the pad shows (a dT is a d10)
  function top(d) {
    return d.dt ? 10 : d.sides;
  }

  // where the entered faces stand: the index of the die asked next, whether it is an explosion of the last, and
  // the index of the first face its die cannot show (-1: none; it and those after it are not counted)
  function progress(pad, faces) {
    let die = 0;
    let again = false;
    for (let i = 0; i < faces.length; i++) {
      const f = faces[i];
      const d = pad[die];
      if (!d) return { die: pad.length, again: false, extra: true, bad: -1 };
      if (!Number.isInteger(f) || f < 1 || f > top(d)) return { die: die, again: again, extra: false, bad: i };
      if (d.again !== null && f >= d.again) { again = true; continue; }
      again = false;
      die += 1;
    }
    return { die: die, again: again, extra: false, bad: -1 };
  }

  function button(text, label, onclick, cls) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    if (label) b.setAttribute("aria-label", label);
    if (cls) b.className = cls;
    b.addEventListener("click", onclick);
    return b;
  }

  function draw(section) { // a row of the prompt (one roll)
    const holder = section.querySelector("[data-roll-pad]");
    const input = section.querySelector("[data-roll-faces]");
    if (!holder || !input) return;
    const pad = JSON.parse(holder.dataset.pad || "[]");
    const faces = facesOf(input);
    const at = progress(pad, faces);
    // a face its die cannot show, said beside the field and not counted (#70); the server refuses it too
    const refused = section.querySelector("[data-roll-refused]");
    if (refused) {
      const d = at.bad >= 0 ? pad[at.die] : null;
      refused.textContent = d ? t("A {die} shows 1 to {top}: {face} is not counted", { die: dieName(d), top: top(d), face: faces[at.bad] }) : "";
      refused.hidden = !d;
      if (d) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
    holder.textContent = "";
    const entered = document.createElement("p");
    entered.className = "roll-entered";
    faces.forEach((f, i) => {
      entered.appendChild(button(String(f), t("Take back {face} and what follows", { face: f }), () => {
        input.value = faces.slice(0, i).join(" ");
        draw(section);
      }, at.bad >= 0 && i >= at.bad ? "chip bad" : "chip"));
    });
    holder.appendChild(entered);
    const done = section.querySelector("[data-roll-done]");
    if (done) done.disabled = at.die < pad.length || at.extra || at.bad >= 0;
    if (at.die >= pad.length && at.bad < 0) {
      const p = document.createElement("p");
      p.className = "roll-ready";
      p.textContent = at.extra ? t("More faces than the dice asked for: take some back.") : t("All in: press Done.");
      holder.appendChild(p);
      return;
    }
    const d = pad[at.die];
    const name = dieName(d);
    const ask = document.createElement("p");
    ask.className = "roll-ask";
    // an exploding die's next roll, in its system's words: Savage Worlds' dice ace, Tesseris' dT roll again
    if (at.again) ask.textContent = d.dt ? t("9 and 10 roll again: roll one more dT") : t("Ace! Roll the {die} again", { die: name });
    else if (d.sides === 100) ask.textContent = t("Die {n} of {count}: the d100, the tens die first, then the units die", { n: at.die + 1, count: pad.length });
    else ask.textContent = t("Die {n} of {count}: the {die}", { n: at.die + 1, count: pad.length, die: name });
    holder.appendChild(ask);
    const row = document.createElement("div");
    row.className = "roll-faces";
    // a tap after a face its die cannot show takes that face's place
    const kept = at.bad >= 0 ? faces.slice(0, at.bad) : faces;
    const add = (face) => { input.value = kept.concat([face]).join(" "); draw(section); };
    if (d.sides === 100) { // d100: the tens die, then the units; 00 and 0 is 100
      const tens = document.createElement("div");
      tens.className = "roll-faces tens";
      tens.setAttribute("role", "group");
      tens.setAttribute("aria-label", t("The tens die"));
      for (let t = 0; t < 10; t++) {
        tens.appendChild(button(t === 0 ? "00" : String(t * 10), null, () => {
          row.dataset.tens = String(t * 10);
          row.querySelectorAll(".units button").forEach((b) => { b.disabled = false; });
        }));
      }
      row.appendChild(tens);
      const units = document.createElement("div");
      units.className = "roll-faces units";
      units.setAttribute("role", "group");
      units.setAttribute("aria-label", t("The units die"));
      for (let u = 0; u < 10; u++) {
        const b = button(String(u), null, () => {
          const total = Number(row.dataset.tens || 0) + u;
          add(total === 0 ? 100 : total);
        });
        b.disabled = true;
        units.appendChild(b);
      }
      row.appendChild(units);
    } else {
      for (let f = 1; f <= d.sides; f++) row.appendChild(button(String(f), `${name}: ${f}`, () => add(f)));
    }
    holder.appendChild(row);
    const first = row.querySelector("button:not([disabled])");
    if (first && section.contains(document.activeElement) && document.activeElement.closest(".roll-pad")) first.focus();
  }

  function drawAll() {
    document.querySelectorAll("#roll-prompt[data-roll]:not([hidden]) [data-roll-row]").forEach(draw);
  }

  // which roll a row enters: the command's id and, of rolls made together, its place (#70)
  function which(row) {
    const at = row.dataset.at;
    return at !== undefined && at !== "" ? { roll_id: row.dataset.roll, at: Number(at) } : { roll_id: row.dataset.roll };
  }

  document.addEventListener("input", (e) => {
    const row = e.target.closest && e.target.closest("#roll-prompt [data-roll-row]");
    if (row && e.target.matches("[data-roll-faces]")) draw(row);
  });
  document.addEventListener("submit", (e) => {
    const form = e.target.closest && e.target.closest("[data-roll-entry]");
    if (!form || !window.tacmap) return;
    e.preventDefault();
    const row = form.closest("[data-roll-row]");
    const input = form.querySelector("[data-roll-faces]");
    const holder = row.querySelector("[data-roll-pad]");
    if (holder && progress(JSON.parse(holder.dataset.pad || "[]"), facesOf(input)).bad >= 0) return; // said beside the field
    const typed = input.value;
    const roll = which(row);
    // sent: the field is emptied, so the next roll's fresh prompt is not held back as a form being typed in
    // (live.js keeps those); refused, the faces come back for a fix
    input.value = "";
    draw(row);
    window.tacmap.command(Object.assign({ type: "enter_dice", faces: facesOf({ value: typed }) }, roll)).then((ack) => {
      const now = document.getElementById(row.id) || document.querySelector("#roll-prompt [data-roll-row]");
      const field = now && now.querySelector("[data-roll-faces]");
      if (ack && !ack.ok && field && now.dataset.roll === roll.roll_id && !field.value) {
        field.value = typed;
        draw(now);
      }
    });
  });
  document.addEventListener("click", (e) => {
    if (!window.tacmap || !e.target.closest) return;
    const section = e.target.closest("#roll-prompt");
    if (!section) return;
    const row = e.target.closest("[data-roll-row]");
    if (row && e.target.closest("[data-roll-app]")) window.tacmap.command(Object.assign({ type: "enter_dice", app: true }, which(row)));
    else if (e.target.closest("[data-roll-off]")) window.tacmap.command({ type: "call_off_roll", roll_id: section.dataset.roll });
  });
  document.addEventListener("tacmap:update", drawAll);
  document.addEventListener("DOMContentLoaded", drawAll);
  drawAll();
})();
