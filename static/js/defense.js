// The defense prompt: the defender's player (or the GM) picks a defense; the server rolls the attack.
(function () {
  "use strict";
  // the attack answered: one called off or taken back meanwhile refuses the answer (issue 58)
  const answering = (el, body) => {
    const prompt = el.closest("[data-attack]");
    const id = prompt ? prompt.dataset.attack : null;
    return id ? Object.assign(body, { attack: id }) : body;
  };
  document.addEventListener("click", (e) => {
    if (!window.tacmap || !e.target.closest) return;
    const pick = e.target.closest("[data-defense]");
    if (pick && !pick.disabled) {
      pick.closest(".defense-choices").querySelectorAll("button").forEach((b) => { b.disabled = true; });
      window.tacmap.command(answering(pick, { type: "choose_defense", defense: pick.dataset.defense })).then((ack) => {
        if (!ack.ok) document.querySelectorAll("[data-defense]").forEach((b) => { b.disabled = b.hasAttribute("title"); });
      });
      return;
    }
    const off = e.target.closest("[data-defense-cancel]");
    if (off) window.tacmap.command(answering(off, { type: "choose_defense", cancel: true }));
  });
})();
