// A running event's page fills in by itself: every data-poll-s seconds it asks the page's
// body again (?part=body, the same HTML the server renders) and puts it in place; once
// the event is over the answer no longer says data-live, and the asking stops.
(function () {
  "use strict";
  const body = document.getElementById("event-body");
  if (!body || body.dataset.live !== "1") return;
  const url = body.dataset.url;
  const every = Math.max(2, Number(body.dataset.pollS) || 10) * 1000;
  let last = body.innerHTML;
  const poll = () => {
    if (document.hidden) { setTimeout(poll, every); return; }
    fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
      .then((html) => {
        if (html !== last) {
          body.innerHTML = html;
          last = html;
        }
        if (/<span class="live">● running<\/span>/.test(html)) setTimeout(poll, every);
        else body.dataset.live = "0";
      })
      .catch(() => setTimeout(poll, every * 2));
  };
  setTimeout(poll, every);
})();
