// A finished match's page can hide its result (the winner, the reason, each seat's result
// and rating change) until the replay reaches its last step, so a visitor can watch the
// game without knowing how it ends. The choice is the "hide the result" box, remembered
// in this browser (localStorage); the viewer tells the page its step ("viewer:step").
(function () {
  "use strict";
  const box = document.getElementById("hide-result");
  if (!box) return;
  const KEY = "avenue:hide-result";
  let atEnd = false;
  const apply = () => document.body.classList.toggle("spoilers-hidden", box.checked && !atEnd);
  try { box.checked = localStorage.getItem(KEY) === "1"; } catch (e) { /* private mode */ }
  box.addEventListener("change", () => {
    try { localStorage.setItem(KEY, box.checked ? "1" : "0"); } catch (e) { /* private mode */ }
    apply();
  });
  document.addEventListener("viewer:step", (e) => { atEnd = e.detail.index === e.detail.last; apply(); });
  apply();
})();
