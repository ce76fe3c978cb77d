// Agent Avenue replay viewer: steps through frames that the server built by re-simulating
// the stored replay through the referee (leaderboard/frames.py). No dependencies.
//
// <div id="viewer" data-frames-url="/api/matches/7/frames/" data-perspective="spectator"
//      data-live="false"></div>
// Keyboard: ←/→ step, Home/End jump, space play/pause, P next perspective.
(function () {
  "use strict";

  const SPACES = 14;
  const CORNERS = [2, 5, 9, 12];
  const RECALLS = [3, 10];
  const TEAM = ["A", "B"];
  const pretty = (id) => id.toLowerCase().replaceAll("_", " ").replace(/\b\w/g, (c) => c.toUpperCase());

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }

  class Viewer {
    constructor(root) {
      this.root = root;
      this.url = root.dataset.framesUrl;
      this.live = root.dataset.live === "true";
      const params = new URLSearchParams(location.search);
      this.perspective = params.get("perspective") || root.dataset.perspective || "spectator";
      // a deep link's numbers: anything but digits (?step=abc) is ignored, not a NaN index
      const number = (name) => (/^\d{1,6}$/.test(params.get(name) || "") ? parseInt(params.get(name), 10) : null);
      this.wantStep = number("step");
      this.wantTurn = number("turn");
      this.index = 0;
      this.timer = null;
      this.speed = 1;
      this.build();
      this.load();
      document.addEventListener("keydown", (e) => this.onKey(e));
    }

    build() {
      const button = (label, title, action, id) =>
        el("button", { type: "button", title, "aria-label": title, id, onclick: action }, label);
      this.perspectiveSelect = el("select", { id: "perspective", "aria-label": "perspective",
        onchange: () => { this.perspective = this.perspectiveSelect.value; this.load(); } });
      this.speedSelect = el("select", { id: "speed", "aria-label": "speed",
        onchange: () => { this.speed = parseFloat(this.speedSelect.value); if (this.timer) { this.pause(); this.play(); } } },
        ...[0.5, 1, 2, 4, 8].map((s) => el("option", { value: s }, `${s}×`)));
      this.speedSelect.value = "1";
      this.playButton = button("play", "play / pause (space)", () => (this.timer ? this.pause() : this.play()), "play");
      this.slider = el("input", { type: "range", min: 0, max: 0, value: 0, id: "step-slider",
        "aria-label": "step", oninput: () => this.go(parseInt(this.slider.value, 10)) });
      this.stepLabel = el("span", { class: "step-label", id: "step-label" });
      this.controls = el("div", { class: "controls" },
        button("|◀", "start (Home)", () => this.go(0), "first"),
        button("◀", "step back (←)", () => this.go(this.index - 1), "back"),
        this.playButton,
        button("▶", "step forward (→)", () => this.go(this.index + 1), "forward"),
        button("▶|", "end (End)", () => this.go(this.frames.length - 1), "last"),
        this.slider, this.stepLabel,
        el("label", {}, "speed ", this.speedSelect),
        el("label", {}, "view ", this.perspectiveSelect));
      this.board = el("div", { class: "board", id: "board" });
      this.tables = el("div", { class: "tables" });
      this.log = el("ol", { class: "log", id: "event-log", "aria-live": "polite" });
      this.status = el("p", { class: "status", id: "viewer-status" });
      this.root.replaceChildren(this.controls, this.status,
        el("div", { class: "viewer-grid" }, this.board, this.tables, el("div", { class: "log-box" }, el("h3", {}, "Events"), this.log)));
    }

    async load() {
      const keep = this.frames ? this.index : null;
      this.status.textContent = "loading…";
      let response;
      try {
        response = await fetch(`${this.url}?perspective=${encodeURIComponent(this.perspective)}`,
          { headers: { Accept: "application/json" } });
      } catch (err) {
        this.status.textContent = `could not load the replay: ${err}`;
        return;
      }
      const data = await response.json().catch(() => ({}));
      if (response.status === 400 && this.perspective !== "spectator" && !this.frames) {
        // a deep link to a perspective this match does not have (?perspective=bogus):
        // show the spectator's view and say why
        this.badPerspective = this.perspective;
        this.perspective = "spectator";
        return this.load();
      }
      if (!response.ok) {
        this.status.textContent = data.detail || data.error || `could not load the replay (${response.status})`;
        return;
      }
      this.data = data;
      this.frames = data.frames;
      // a live match: the server says what it can show (spectator only, moves at the end)
      const bad = this.badPerspective
        ? `This match has no perspective "${this.badPerspective}"; showing the spectator's view.` : "";
      this.badPerspective = null;
      this.status.textContent = [bad, data.note].filter(Boolean).join(" ");
      this.status.classList.toggle("note", Boolean(data.note || bad));
      this.perspectiveSelect.replaceChildren(...data.perspectives.map((p) =>
        el("option", { value: p }, this.perspectiveLabel(p))));
      this.perspectiveSelect.value = data.perspective;
      this.slider.max = this.frames.length - 1;
      let start = keep ?? 0;
      if (this.wantStep !== null) start = this.wantStep;
      else if (this.wantTurn !== null) {
        const found = this.frames.findIndex((f) => f.turn >= this.wantTurn);
        start = found < 0 ? this.frames.length - 1 : found;
      }
      this.wantStep = this.wantTurn = null;
      if (this.live) start = this.frames.length - 1;
      this.go(start);
      if (this.live && data.live !== false && !this.frames[this.frames.length - 1].outcome) {
        setTimeout(() => this.load(), 5000);
      }
    }

    perspectiveLabel(p) {
      if (p.startsWith("seat:")) {
        const seat = parseInt(p.slice(5), 10);
        const team = this.data.teams[0].includes(seat) ? "A" : "B";
        return `seat ${seat} (team ${team}, ${this.data.seat_names[seat]})`;
      }
      return p;
    }

    go(i) {
      if (!this.frames) return;
      this.index = Math.max(0, Math.min(this.frames.length - 1, i));
      if (this.index === this.frames.length - 1) this.pause();
      this.render();
      const params = new URLSearchParams(location.search);
      params.set("step", this.index);
      params.set("perspective", this.perspective);
      params.delete("turn");
      history.replaceState(null, "", `${location.pathname}?${params}`);
    }

    play() {
      if (this.index >= this.frames.length - 1) this.go(0);
      this.playButton.textContent = "pause";
      this.timer = setInterval(() => this.go(this.index + 1), 800 / this.speed);
    }

    pause() {
      clearInterval(this.timer);
      this.timer = null;
      this.playButton.textContent = "play";
    }

    onKey(e) {
      if (["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName) && e.key !== " ") return;
      const actions = {
        ArrowRight: () => this.go(this.index + 1),
        ArrowLeft: () => this.go(this.index - 1),
        Home: () => this.go(0),
        End: () => this.go(this.frames.length - 1),
        " ": () => (this.timer ? this.pause() : this.play()),
        p: () => this.cyclePerspective(),
        P: () => this.cyclePerspective(),
      };
      if (actions[e.key]) {
        e.preventDefault();
        actions[e.key]();
      }
    }

    cyclePerspective() {
      const list = this.data.perspectives;
      this.perspective = list[(list.indexOf(this.perspective) + 1) % list.length];
      this.load();
    }

    render() {
      const f = this.frames[this.index];
      this.slider.value = this.index;
      this.stepLabel.textContent = `step ${this.index} / ${this.frames.length - 1} · turn ${f.turn}`;
      this.renderBoard(f);
      this.renderTables(f);
      this.renderLog();
    }

    renderBoard(f) {
      const size = 260, c = size / 2, r = 100;
      const at = (space) => {
        const a = (2 * Math.PI * space) / SPACES - Math.PI / 2;
        return [c + r * Math.cos(a), c + r * Math.sin(a)];
      };
      const advanced = this.data.mode === "advanced";
      const summary = this.data.ruleset === "summary-board";
      const root = svg("svg", { viewBox: `0 0 ${size} ${size}`, role: "img", "aria-label": "board" });
      for (let s = 0; s < SPACES; s++) {
        const [x, y] = at(s);
        let cls = "space";
        if (s === 0) cls += " home-a";
        if (s === 7) cls += " home-b";
        if (advanced && CORNERS.includes(s)) cls += " black-market";
        if (summary && RECALLS.includes(s)) cls += " recall";
        root.append(svg("circle", { cx: x, cy: y, r: 14, class: cls, "data-space": s },
          svg("title", {}, `space ${s}`)));
        root.append(svg("text", { x, y: y + 4, class: "space-label", "text-anchor": "middle" },
          s === 0 ? "A" : s === 7 ? "B" : advanced && CORNERS.includes(s) ? "$" : s));
      }
      f.positions.forEach((space, team) => {
        const [x, y] = at(space);
        const dx = team === 0 ? -6 : 6;
        root.append(svg("circle", { cx: x + dx, cy: y - 6, r: 8, class: `meeple team-${TEAM[team].toLowerCase()}`,
          id: `meeple-${TEAM[team].toLowerCase()}`, "data-space": space }, svg("title", {}, `team ${TEAM[team]} on space ${space}`)));
      });
      root.append(svg("text", { x: c, y: c - 4, "text-anchor": "middle", class: "gap" }, `gap ${f.gap}`));
      root.append(svg("text", { x: c, y: c + 14, "text-anchor": "middle", class: "deck" }, `deck ${f.deck_size}`));
      this.board.replaceChildren(root);
    }

    cardList(cards, hiddenCount) {
      if (cards === null || cards === undefined) {
        return el("span", { class: "hidden-cards" }, `${hiddenCount} hidden`);
      }
      if (!cards.length) return el("span", { class: "none" }, "none");
      return el("span", { class: "cards" }, ...cards.map((c) => el("span", { class: `card card-${c.toLowerCase()}` }, this.data.agents[c] || c)));
    }

    renderTables(f) {
      const teams = [0, 1].map((t) => {
        const area = Object.entries(f.in_play[t]);
        return el("section", { class: `team team-${TEAM[t].toLowerCase()}`, id: `team-${TEAM[t].toLowerCase()}` },
          el("h3", {}, `Team ${TEAM[t]}`, f.active_team === t ? el("span", { class: "badge" }, "active") : null),
          el("div", { class: "play-area" }, area.length
            ? area.map(([card, n]) => el("span", { class: `card card-${card.toLowerCase()}` }, `${this.data.agents[card] || card} ×${n}`))
            : el("span", { class: "none" }, "nothing in play")),
          f.ongoing[t].length ? el("div", { class: "ongoing" }, "Black Market: ", f.ongoing[t].map(pretty).join(", ")) : null,
          el("ul", { class: "seats" }, f.seats.filter((s) => s.team === t).map((s) =>
            el("li", { class: "seat", id: `seat-${s.seat}`, "data-seat": s.seat },
              el("strong", {}, `seat ${s.seat} · ${this.data.seat_names[s.seat]}`),
              f.actor === s.seat ? el("span", { class: "badge" }, f.decision) : null,
              el("div", {}, "hand: ", this.cardList(s.hand, s.hand_size)),
              el("div", {}, "discards: ", this.cardList(s.discards, s.discards_used))))));
      });
      const offer = f.offer.face_up || f.offer.face_down_offered
        ? el("section", { class: "offer", id: "offer" }, el("h3", {}, "On offer"),
          el("div", {}, "face up: ", f.offer.face_up ? this.data.agents[f.offer.face_up] : "—"),
          el("div", { id: "face-down" }, "face down: ", f.offer.face_down_offered
            ? (f.offer.face_down ? this.data.agents[f.offer.face_down] : el("span", { class: "hidden-cards" }, "hidden"))
            : "—"))
        : null;
      const market = this.data.mode === "advanced"
        ? el("section", { class: "market" }, el("h3", {}, "Black Market"),
          el("div", { id: "market" }, f.market.length ? f.market.map(pretty).join(", ") : "empty"),
          el("div", { class: "muted" }, `deck ${f.bm_deck_size} · discarded ${f.bm_discard.length}`))
        : null;
      const result = f.outcome
        ? el("p", { class: "result", id: "result" }, `Team ${TEAM[f.outcome.winner]} wins (${f.outcome.reason.replaceAll("_", " ")})`)
        : null;
      const deck = f.deck ? el("details", { class: "deck-order" }, el("summary", {}, "deck order (omniscient)"), f.deck.join(", ")) : null;
      this.tables.replaceChildren(...[result, ...teams, offer, market, deck].filter(Boolean));
    }

    renderLog() {
      const items = [];
      this.frames.slice(0, this.index + 1).forEach((f, i) => {
        f.events.forEach((text) => items.push(el("li", { class: i === this.index ? "new" : "" }, text)));
      });
      this.log.replaceChildren(...items);
      this.log.scrollTop = this.log.scrollHeight;
    }
  }

  window.addEventListener("DOMContentLoaded", () => {
    const root = document.getElementById("viewer");
    if (root) window.viewer = new Viewer(root);
  });
})();
