// The page that shows a new token once (the answer to a POST).
// - Reloading it must not post the form again (a second token, the first lost): the
//   history entry becomes a plain GET of the bot's page, so a reload shows that page.
//   The token itself is kept nowhere.
// - Copy buttons copy the text of the element named in data-copy.
(function () {
  "use strict";
  const me = document.getElementById("after-post");
  if (me && me.dataset.url) history.replaceState(null, "", me.dataset.url);

  async function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return;
    }
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }

  document.querySelectorAll("button.copy").forEach((button) => {
    button.addEventListener("click", async () => {
      const source = document.querySelector(button.dataset.copy);
      try {
        await copy(source.textContent.trim());
        button.textContent = "Copied";
      } catch (err) {
        button.textContent = "Select and copy by hand";
      }
      setTimeout(() => { button.textContent = "Copy"; }, 2000);
    });
  });
})();
