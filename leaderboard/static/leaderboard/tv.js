// TV (/tv/, /bots/<name>/tv/): moves between the page's states (leaderboard/tv_views.py),
// read from #tv's data-* attributes:
//   live   the viewer follows the match and, when it ends, goes to ?ended=<id> itself
//          (data-on-end). Every data-poll-s seconds this asks /api/tv/ too: a match that
//          ended before the viewer first loaded is left, and a game showing only its deal
//          gives way to one whose moves can be watched.
//   ended  the replay plays out to its last step, which stays data-hold-s seconds; then
//          the TV page again (it chooses the next match).
//   none   nothing to show: asks /api/tv/ every data-poll-s seconds, loads the page when a
//          match is being played.
(function () {
  "use strict";
  const tv = document.getElementById("tv");
  if (!tv) return;
  const here = tv.dataset.here;
  const hold = parseInt(tv.dataset.holdS, 10) * 1000;
  const poll = parseInt(tv.dataset.pollS, 10) * 1000;
  const current = tv.dataset.match ? parseInt(tv.dataset.match, 10) : null;
  const go = (url) => location.replace(url);

  async function ask() {
    try {
      const response = await fetch(tv.dataset.apiUrl, { headers: { Accept: "application/json" }, cache: "no-store" });
      return response.ok ? await response.json() : null;
    } catch (err) {
      return null; // the next check tries again
    }
  }

  function every(check) {
    const again = async () => { if (await check() !== true) setTimeout(again, poll); };
    setTimeout(again, poll);
  }

  if (tv.dataset.state === "none") {
    every(async () => {
      const next = await ask();
      if (next && next.match !== null) { go(here); return true; }
      return false;
    });
  } else if (tv.dataset.state === "live") {
    every(async () => {
      const next = await ask();
      if (!next) return false;
      const mine = next.live.find((c) => c.match === current);
      // not being played any more (the ended page checks, and shows what is live if it is)
      if (!mine) { go(`${here}?ended=${current}`); return true; }
      if (!mine.watchable && next.live.length && next.live[0].watchable) { go(here); return true; }
      return false;
    });
  } else if (tv.dataset.state === "ended") {
    const countdown = document.getElementById("tv-countdown");
    let leaving = false;
    const leave = () => {
      if (leaving) return;
      leaving = true;
      tv.dataset.leaving = "true";
      const until = Date.now() + hold;
      const tick = () => {
        const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
        if (countdown) countdown.textContent = `Next in ${left} s.`;
        if (left > 0) setTimeout(tick, 250);
        else go(here);
      };
      tick();
    };
    if (document.getElementById("viewer")) {
      // opened without the step the live view had reached (?from=N): the last step
      const params = new URLSearchParams(location.search);
      if (!params.has("from") && !params.has("step") && tv.dataset.lastStep) {
        params.set("step", tv.dataset.lastStep);
        history.replaceState(null, "", `${location.pathname}?${params}`);
      }
      document.addEventListener("viewer:step", (e) => { if (e.detail.index === e.detail.last) leave(); });
      // a visitor who stepped back keeps the replay a while, not for ever
      setTimeout(leave, 120000);
    } else {
      leave();
    }
  }
})();
