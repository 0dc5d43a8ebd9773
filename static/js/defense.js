// The defense prompt: the defender's player (or the GM) picks a defense; the server rolls the attack.
(function () {
  "use strict";
  document.addEventListener("click", (e) => {
    if (!window.tacmap || !e.target.closest) return;
    const pick = e.target.closest("[data-defense]");
    if (pick && !pick.disabled) {
      pick.closest(".defense-choices").querySelectorAll("button").forEach((b) => { b.disabled = true; });
      window.tacmap.command({ type: "choose_defense", defense: pick.dataset.defense }).then((ack) => {
        if (!ack.ok) document.querySelectorAll("[data-defense]").forEach((b) => { b.disabled = b.hasAttribute("title"); });
      });
      return;
    }
    if (e.target.closest("[data-defense-cancel]")) window.tacmap.command({ type: "choose_defense", cancel: true });
  });
})();
