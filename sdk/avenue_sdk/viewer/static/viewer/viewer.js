// Agent Avenue replay viewer: a card table over frames the server built by re-simulating
// the stored replay through the referee (avenue_sdk/viewer/frames.py). No dependencies;
// the site and `python -m avenue_sdk view` serve this same file.
//
// <div id="viewer" data-frames-url="/api/matches/7/frames/" data-perspective="spectator"
//      data-live="false"></div>
// Keys: ←/→ step, Home/End, N next turn, M next Black Market card, space play/pause,
// P next perspective.
(function () {
  "use strict";

  const SPACES = 14;
  const CORNERS = [2, 5, 9, 12];
  const RECALLS = [3, 10];
  const TEAM = ["A", "B"];
  // one symbol per agent type (DejaVu Sans has them all)
  const ICONS = {
    DOUBLE_AGENT: "◐", ENFORCER: "⚔", CODEBREAKER: "⌨", SABOTEUR: "✂",
    DAREDEVIL: "⚡", SENTINEL: "◉", SIDEKICK: "♞", MOLE: "☠",
  };
  // the 3rd-copy icons that move nothing but end the game (spec: WIN / LOSE)
  const THIRD = { CODEBREAKER: "WIN", DAREDEVIL: "LOSE" };
  const DECISIONS = {
    discard: "to discard", play: "to play", name_face_up: "to name who plays face up",
    play_face_up: "to play face up", play_face_down: "to play face down", recruit: "to choose",
    black_market: "to take a Black Market card",
  };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
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

  const signed = (n) => (n > 0 ? `+${n}` : `${n}`);
  const pretty = (id) => id.toLowerCase().replaceAll("_", " ").replace(/\b\w/g, (c) => c.toUpperCase());

  class Viewer {
    constructor(root) {
      this.root = root;
      this.url = root.dataset.framesUrl;
      this.live = root.dataset.live === "true";
      // data-on-end: where a live page goes when its match ends, instead of reloading as
      // the replay (TV goes on to the next match)
      this.onEnd = root.dataset.onEnd || null;
      const params = new URLSearchParams(location.search);
      this.perspective = params.get("perspective") || root.dataset.perspective || "spectator";
      // a deep link's numbers: anything but digits (?step=abc) is ignored, not a NaN index
      const number = (name) => (/^\d{1,6}$/.test(params.get(name) || "") ? parseInt(params.get(name), 10) : null);
      this.wantStep = number("step");
      this.wantTurn = number("turn");
      // ?from=N: a live page whose match just ended opens the replay at the step it had
      // shown and plays the rest of the game to its last step
      this.playFrom = number("from");
      this.index = 0;
      this.timer = null;
      this.speed = 1;
      this.angles = [null, null];
      this.build();
      this.load();
      if (this.live) setInterval(() => this.tickClock(), 250);
      document.addEventListener("keydown", (e) => this.onKey(e));
    }

    // ------------------------------------------------------------------ layout

    build() {
      const button = (label, title, action, id) =>
        el("button", { type: "button", title, "aria-label": title, id, onclick: action }, label);
      this.perspectiveSelect = el("select", { id: "perspective", "aria-label": "perspective",
        onchange: () => { this.perspective = this.perspectiveSelect.value; this.load(); } });
      this.speedSelect = el("select", { id: "speed", "aria-label": "speed",
        onchange: () => { this.speed = parseFloat(this.speedSelect.value); if (this.timer) { this.pause(); this.play(); } } },
        ...[0.5, 1, 2, 4, 8].map((s) => el("option", { value: s }, `${s}×`)));
      this.speedSelect.value = "1";
      this.skipBox = el("input", { type: "checkbox", id: "skip-quiet" });
      this.playButton = button("play", "play / pause (space)", () => (this.timer ? this.pause() : this.play()), "play");
      this.slider = el("input", { type: "range", min: 0, max: 0, value: 0, id: "step-slider",
        "aria-label": "step", oninput: () => this.go(parseInt(this.slider.value, 10)) });
      this.stepLabel = el("span", { class: "step-label", id: "step-label" });
      this.controls = el("div", { class: "controls" },
        el("span", { class: "group" },
          button("|◀", "start (Home)", () => this.go(0), "first"),
          button("◀", "step back (←)", () => this.step(-1), "back"),
          this.playButton,
          button("▶", "step forward (→)", () => this.step(1), "forward"),
          button("▶|", "end (End)", () => this.go(this.frames.length - 1), "last")),
        el("span", { class: "group" },
          button("next turn", "next turn (N)", () => this.nextTurn(), "next-turn"),
          this.nextMarketButton = button("next $", "next Black Market card (M)", () => this.nextMarket(), "next-market")),
        this.slider, this.stepLabel,
        el("span", { class: "group" },
          el("label", { title: "skip steps where nothing on the table or the board changes" }, this.skipBox, " skip quiet steps"),
          el("label", {}, "speed ", this.speedSelect),
          el("label", {}, "view ", this.perspectiveSelect)));
      this.summary = el("p", { class: "turn-summary", id: "turn-summary", "aria-live": "polite" });
      // the owner's page only: the step where their bot's decision faulted
      const fault = this.root.dataset.faultStep;
      this.faultStep = /^\d{1,6}$/.test(fault || "") ? parseInt(fault, 10) : null;
      this.faultNote = el("p", { class: "fault-note", id: "fault-note", hidden: "" },
        this.root.dataset.faultText || "Your bot's fault was here");
      this.board = el("div", { class: "board", id: "board" });
      this.buildBoard();
      // the graph under the board (graph.js, loaded before this file where the page has it)
      this.graph = window.AvenueGraph ? window.AvenueGraph.create((i) => this.go(i)) : null;
      if (this.graph) this.board.append(this.graph.node);
      this.tables = el("div", { class: "tables" });
      this.log = el("ol", { class: "log", id: "event-log" });
      this.moves = el("ol", { class: "moves", id: "move-list", "aria-label": "one line per turn" });
      this.status = el("p", { class: "status", id: "viewer-status" });
      this.root.replaceChildren(this.controls, this.status, this.faultNote, this.summary,
        el("div", { class: "viewer-grid" }, this.board, this.tables,
          el("div", { class: "log-box" }, el("h3", {}, "Moves"), this.moves, el("h3", {}, "Events"), this.log)));
    }

    // the board is built once, so the meeples can move between frames
    buildBoard() {
      const size = 300, c = size / 2;
      this.center = c;
      this.radius = 104;
      this.boardSvg = svg("svg", { viewBox: `0 0 ${size} ${size}`, role: "img", "aria-label": "board" });
      this.boardSvg.append(svg("circle", { cx: c, cy: c, r: this.radius, class: "track" }));
      this.spaceNodes = [];
      for (let s = 0; s < SPACES; s++) {
        const [x, y] = this.at(s, this.radius);
        const dot = svg("circle", { cx: x, cy: y, r: 15, class: "space", "data-space": s }, svg("title", {}, `space ${s}`));
        const label = svg("text", { x, y: y + 4, class: "space-label", "text-anchor": "middle" }, String(s));
        this.boardSvg.append(dot, label);
        this.spaceNodes.push([dot, label]);
      }
      this.meeples = [0, 1].map((team) => {
        const t = TEAM[team].toLowerCase();
        const body = svg("circle", { r: 10, class: `meeple team-${t}`, "data-space": 0 });
        const letter = svg("text", { y: 4, "text-anchor": "middle", class: "meeple-label" }, TEAM[team]);
        const title = svg("title", {}, "");
        const g = svg("g", { id: `meeple-${t}`, class: "meeple-group" }, body, letter, title);
        this.boardSvg.append(g);
        return { g, body, title };
      });
      // the gap: how far B's meeple is ahead of A's, clockwise (rules section 2): A catches B
      // at 0 or less, B catches A at 14 or more; its title says so on hover
      this.gapTitle = svg("title", {}, "");
      this.gapText = svg("text", { x: c, y: c - 6, "text-anchor": "middle", class: "gap", id: "gap" }, "");
      this.deckText = svg("text", { x: c, y: c + 14, "text-anchor": "middle", class: "deck" }, "");
      this.boardSvg.append(this.gapText, this.deckText);
      this.board.replaceChildren(this.boardSvg, el("p", { class: "board-legend", id: "board-legend" },
        "gap: spaces from A's meeple clockwise to B's (7 at the start); team A catches B at 0, team B catches A at 14."));
    }

    at(space, radius) {
      const a = (2 * Math.PI * space) / SPACES - Math.PI / 2;
      return [this.center + radius * Math.cos(a), this.center + radius * Math.sin(a)];
    }

    // ------------------------------------------------------------------ data

    async load() {
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
      if ((response.status === 400 || (this.live && response.status === 403))
          && this.perspective !== "spectator" && !this.frames) {
        // a deep link to a perspective this match does not have (?perspective=bogus), or
        // one a live match does not serve: show the spectator's view and say why
        this.badPerspective = response.status === 400
          ? `This match has no perspective "${this.perspective}"; showing the spectator's view.`
          : `${data.error || "Only the spectator's view is served while the match is played"}.`;
        this.perspective = "spectator";
        return this.load();
      }
      if (!response.ok) {
        // a live page whose match ended (its replay may now be withheld until the other
        // game of its pair is over): the page itself says what there is now
        if (this.live && this.frames) return this.liveEnded();
        this.status.textContent = data.detail || data.error || `could not load the replay (${response.status})`;
        return;
      }
      if (this.live && this.frames && data.live === false) return this.liveEnded();
      this.show(data);
    }

    // the frames (fetched, or pushed by a live match's stream) on the table
    show(data) {
      const keep = this.frames ? this.index : null;
      this.data = data;
      // a live match's newest frame: when it arrived, for the deciding seat's running clock
      if (!this.frames || data.frames.length !== this.frames.length) this.shownAt = Date.now();
      this.frames = data.frames;
      const bad = this.badPerspective || "";
      this.badPerspective = null;
      this.status.textContent = [bad, data.note].filter(Boolean).join(" ");
      this.status.classList.toggle("note", Boolean(data.note || bad));
      this.perspectiveSelect.replaceChildren(...data.perspectives.map((p) =>
        el("option", { value: p }, this.perspectiveLabel(p))));
      this.perspectiveSelect.value = data.perspective;
      this.slider.max = this.frames.length - 1;
      this.markSpaces();
      this.nextMarketButton.hidden = data.mode !== "advanced";
      let start = keep ?? 0;
      if (this.playFrom !== null) start = this.playFrom;
      else if (this.wantStep !== null) start = this.wantStep;
      else if (this.wantTurn !== null) {
        const found = this.frames.findIndex((f) => f.turn >= this.wantTurn);
        start = found < 0 ? this.frames.length - 1 : found;
      }
      const playOut = this.playFrom !== null && start < this.frames.length - 1;
      this.wantStep = this.wantTurn = this.playFrom = null;
      // live: follow the game unless the visitor stepped back to look at something
      const following = keep === null || this.followLive;
      if (this.live && following) start = this.frames.length - 1;
      this.go(start);
      if (playOut) this.play();
      // an embedded replay with ?autoplay=1 plays from its first step, once
      if (this.root.dataset.autoplay === "true" && !this.live && keep === null && start === 0) this.play();
      if (this.live) this.liveSeats();
      if (this.live && data.live !== false) this.follow();
    }

    // live: the server pushes each new step (server-sent events, data-events-url); where
    // it cannot (no EventSource, every stream of the server taken, a stream refused), the
    // page asks again every 2 s
    follow() {
      if (this.events) return;
      const url = this.root.dataset.eventsUrl;
      if (this.events === undefined && url && window.EventSource) {
        const source = new EventSource(url);
        this.events = source;
        source.addEventListener("frames", (e) => {
          const update = JSON.parse(e.data);
          const frames = (this.frames || []).slice(0, update.from).concat(update.frames);
          this.show({ ...update, frames });
        });
        source.addEventListener("end", () => {
          source.close();
          this.liveEnded();
        });
        source.addEventListener("error", () => {
          // a lost connection is retried by the browser; a refused stream is closed
          if (source.readyState !== EventSource.CLOSED) return;
          this.events = null;
          setTimeout(() => this.load(), 2000);
        });
        return;
      }
      setTimeout(() => this.load(), 2000);
    }

    // the live match is over: the page reloads as the replay (its header, seat table and
    // result are the finished match's). A visitor who was following the game sees the
    // steps the live delay had held back played out to the last one; one who had stepped
    // back stays on the step they were looking at.
    liveEnded() {
      if (this.onEnd) {
        // there, the replay opens at the step shown here (see ?from=N)
        const next = new URL(this.onEnd, location.href);
        next.searchParams.set("from", this.index);
        return location.replace(next.href);
      }
      const params = new URLSearchParams(location.search);
      params.set("perspective", "spectator");
      params.delete("turn");
      if (this.followLive) {
        params.delete("step");
        params.set("from", this.index);
      }
      location.replace(`${location.pathname}?${params}`);
    }

    // live: the page's seat table (rendered when the match had no decisions yet) counts the
    // decisions shown so far and their latencies, as the finished match's table will
    liveSeats() {
      const seats = new Map();
      for (const f of this.frames) {
        if (!f.last) continue;
        const s = seats.get(f.last.seat) || { asked: [], auto: 0 };
        if (f.last.latency_ms === null || f.last.latency_ms === undefined) s.auto += 1;
        else s.asked.push(f.last.latency_ms);
        seats.set(f.last.seat, s);
      }
      const ms = (v) => v.toFixed(1);
      document.querySelectorAll("[data-seat-decisions]").forEach((cell) => {
        const s = seats.get(parseInt(cell.dataset.seatDecisions, 10)) || { asked: [], auto: 0 };
        cell.textContent = `${s.asked.length}${s.auto ? ` (+${s.auto} auto)` : ""}`;
      });
      document.querySelectorAll("[data-seat-latency]").forEach((cell) => {
        const s = seats.get(parseInt(cell.dataset.seatLatency, 10));
        if (!s || !s.asked.length) { cell.textContent = "—"; return; }
        const v = [...s.asked].sort((a, b) => a - b);
        const pct = (q) => v[Math.min(v.length - 1, Math.floor(q * v.length))];
        cell.textContent = `${ms(pct(0.5))} / ${ms(pct(0.9))} / ${ms(v[v.length - 1])} ms`;
      });
    }

    markSpaces() {
      const advanced = this.data.mode === "advanced";
      const summaryBoard = this.data.ruleset === "summary-board";
      this.spaceNodes.forEach(([dot, label], s) => {
        const cls = ["space"];
        if (s === 0) cls.push("home-a");
        if (s === 7) cls.push("home-b");
        if (advanced && CORNERS.includes(s)) cls.push("black-market");
        if (summaryBoard && RECALLS.includes(s)) cls.push("recall");
        dot.setAttribute("class", cls.join(" "));
        const what = s === 0 ? "team A's home" : s === 7 ? "team B's home"
          : advanced && CORNERS.includes(s) ? "a Black Market space" : summaryBoard && RECALLS.includes(s) ? "a recall space" : "";
        dot.querySelector("title").textContent = `space ${s}${what ? `: ${what}` : ""}`;
        label.textContent = s === 0 ? "A" : s === 7 ? "B" : advanced && CORNERS.includes(s) ? `${s}$` : String(s);
      });
    }

    name(seat) {
      return this.data.seat_names[seat];
    }

    teamName(t) {
      return this.data.teams[t].map((s) => this.name(s)).join(" & ");
    }

    perspectiveLabel(p) {
      if (p.startsWith("seat:")) {
        const seat = parseInt(p.slice(5), 10);
        const team = this.data.teams[0].includes(seat) ? "A" : "B";
        return `seat ${seat} (team ${team}, ${this.name(seat)})`;
      }
      return p === "omniscient" ? "omniscient (everything)" : p;
    }

    // ------------------------------------------------------------------ moving

    go(i) {
      if (!this.frames) return;
      this.index = Math.max(0, Math.min(this.frames.length - 1, i));
      this.followLive = this.index === this.frames.length - 1;
      if (this.index === this.frames.length - 1) this.pause();
      this.render();
      // the page around the viewer may follow the step (the result hidden until the end)
      document.dispatchEvent(new CustomEvent("viewer:step",
        { detail: { index: this.index, last: this.frames.length - 1, live: this.live } }));
      const params = new URLSearchParams(location.search);
      params.set("step", this.index);
      params.set("perspective", this.perspective);
      params.delete("turn");
      params.delete("from");
      history.replaceState(null, "", `${location.pathname}?${params}`);
    }

    step(direction) {
      let i = this.index + direction;
      if (this.skipBox.checked) {
        while (i > 0 && i < this.frames.length - 1 && !this.frames[i].changed) i += direction;
      }
      this.go(i);
    }

    nextTurn() {
      const turn = this.frames[this.index].turn;
      const found = this.frames.findIndex((f, i) => i > this.index && f.turn > turn);
      this.go(found < 0 ? this.frames.length - 1 : found);
    }

    nextMarket() {
      if (this.data.mode !== "advanced") return;  // simple mode has no Black Market
      const found = this.frames.findIndex((f, i) => i > this.index && f.market_event);
      if (found < 0) {
        this.status.textContent = "No Black Market card is taken or revealed after this step.";
        return;
      }
      this.go(found);
    }

    play() {
      if (this.index >= this.frames.length - 1) this.go(0);
      this.playButton.textContent = "pause";
      this.timer = setInterval(() => this.step(1), 800 / this.speed);
    }

    pause() {
      clearInterval(this.timer);
      this.timer = null;
      this.playButton.textContent = "play";
    }

    onKey(e) {
      if (["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName) && e.key !== " ") return;
      if (!this.frames) return;
      const actions = {
        ArrowRight: () => this.step(1),
        ArrowLeft: () => this.step(-1),
        Home: () => this.go(0),
        End: () => this.go(this.frames.length - 1),
        " ": () => (this.timer ? this.pause() : this.play()),
        n: () => this.nextTurn(), N: () => this.nextTurn(),
        m: () => this.nextMarket(), M: () => this.nextMarket(),
        p: () => this.cyclePerspective(), P: () => this.cyclePerspective(),
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

    // ------------------------------------------------------------------ drawing

    render() {
      const f = this.frames[this.index];
      this.slider.value = this.index;
      this.stepLabel.textContent = `step ${this.index} / ${this.frames.length - 1} · turn ${f.turn}`;
      this.faultNote.hidden = this.faultStep !== this.index;
      const who = f.outcome ? "game over" : `team ${TEAM[f.active_team]}'s turn (${this.teamName(f.active_team)})`;
      this.summary.replaceChildren(el("strong", {}, `Turn ${f.turn} · ${who}`), f.summary ? `: ${f.summary}` : "");
      this.renderBoard(f);
      this.renderTables(f);
      this.renderLog();
      this.renderMoves();
      if (this.graph) this.graph.update(this.data, this.index, this.live);
    }

    // the move list: one line per turn so far (who offered what, who took what, where the
    // meeples went: the turn's summary), the current turn highlighted; a click goes to
    // the turn's first step. Turns after the current step are not listed (no spoilers).
    renderMoves() {
      const turns = [];
      this.frames.slice(0, this.index + 1).forEach((f, i) => {
        const last = turns[turns.length - 1];
        if (!last || last.turn !== f.turn) turns.push({ turn: f.turn, first: i, summary: f.summary });
        else last.summary = f.summary;
      });
      const current = this.frames[this.index].turn;
      this.moves.replaceChildren(...turns.map((t) => el("li", {
        class: `move${t.turn === current ? " current" : ""}`, "data-turn": t.turn, "data-step": t.first,
        onclick: () => this.go(t.first),
      }, el("span", { class: "turn-number" }, `${t.turn}.`), " ", t.summary || "the deal")));
      const mark = this.moves.querySelector(".current");
      // keep the current turn in view inside the list (the page itself does not scroll)
      if (mark) {
        const list = this.moves, top = mark.offsetTop;
        if (top < list.scrollTop || top + mark.offsetHeight > list.scrollTop + list.clientHeight) {
          list.scrollTop = Math.max(0, top - list.clientHeight / 2);
        }
      }
    }

    renderBoard(f) {
      // meeples ride outside the track, so they never cover a space's number
      const outer = this.radius + 27;
      f.positions.forEach((space, team) => {
        const m = this.meeples[team];
        const target = (2 * Math.PI * space) / SPACES;
        const shared = f.positions[0] === f.positions[1];
        const nudge = shared ? (team === 0 ? -0.09 : 0.09) : 0;
        m.body.setAttribute("data-space", space);
        this.animate(team, target + nudge, outer);
        m.title.textContent = `team ${TEAM[team]} (${this.teamName(team)}) on space ${space}`;
      });
      this.gapText.textContent = `gap ${f.gap}`;
      this.gapTitle.textContent = `gap ${f.gap}: B's meeple is ${f.gap} spaces ahead of A's, clockwise; `
        + `team A catches B at 0, team B catches A at 14 (it started at 7)`;
      this.gapText.append(this.gapTitle);
      this.deckText.textContent = `deck ${f.deck_size}`;
    }

    animate(team, target, radius) {
      const m = this.meeples[team];
      const place = (a) => {
        const x = this.center + radius * Math.cos(a - Math.PI / 2);
        const y = this.center + radius * Math.sin(a - Math.PI / 2);
        m.g.setAttribute("transform", `translate(${x.toFixed(1)} ${y.toFixed(1)})`);
      };
      const from = this.angles[team];
      this.angles[team] = target;
      if (m.raf) cancelAnimationFrame(m.raf);
      // data-at: the space the meeple stands on once it has arrived (tests wait for it)
      const space = m.body.getAttribute("data-space");
      m.g.removeAttribute("data-at");
      if (from === null || from === target || matchMedia("(prefers-reduced-motion: reduce)").matches) {
        place(target);
        m.g.setAttribute("data-at", space);
        return;
      }
      // the shorter way round the track, over 450 ms
      let delta = target - from;
      while (delta > Math.PI) delta -= 2 * Math.PI;
      while (delta < -Math.PI) delta += 2 * Math.PI;
      const start = performance.now();
      const tick = (now) => {
        const t = Math.min(1, (now - start) / 450);
        const eased = t < 0.5 ? 2 * t * t : 1 - Math.pow(-2 * t + 2, 2) / 2;
        place(from + delta * eased);
        if (t < 1) m.raf = requestAnimationFrame(tick);
        else m.g.setAttribute("data-at", space);
      };
      m.raf = requestAnimationFrame(tick);
    }

    // an agent card: icon, name, and the 1 / 2 / 3+ move values (the current one marked)
    agentCard(agent, opts = {}) {
      const info = this.data.agent_info ? this.data.agent_info[agent] : null;
      const title = info ? info.title : (this.data.agents[agent] || agent);
      const count = opts.count || 0;
      let moves = null;
      let help = title;
      if (info) {
        const values = info.copies === 1 ? [info.moves[0]] : info.moves.map((m, i) => (i === 2 && THIRD[agent]) ? THIRD[agent] : m);
        const labels = info.copies === 1 ? ["every copy"] : ["1st", "2nd", "3rd+"];
        const now = count ? Math.min(count, values.length) - 1 : -1;
        moves = el("span", { class: "moves" }, values.map((v, i) =>
          el("span", { class: `mv${i === now ? " now" : ""}`, title: labels[i] }, typeof v === "number" ? signed(v) : v)));
        help = `${title}: ${values.map((v, i) => `${labels[i]} ${typeof v === "number" ? signed(v) : v}`).join(", ")}`;
      }
      return el("span", { class: `card agent agent-${agent.toLowerCase()}${opts.small ? " small" : ""}`, title: help, "data-agent": agent },
        el("span", { class: "icon", "aria-hidden": "true" }, ICONS[agent] || "?"),
        el("span", { class: "card-name" }, title),
        opts.small ? null : moves,
        count > 1 ? el("span", { class: "count", title: `${count} in play` }, `×${count}`) : null);
    }

    back(label) {
      return el("span", { class: "card back", title: label || "a face-down card" }, el("span", { class: "back-mark", "aria-hidden": "true" }, "?"));
    }

    cardRow(cards, hiddenCount, label) {
      if (cards === null || cards === undefined) {
        if (!hiddenCount) return el("span", { class: "none" }, "none");
        return el("span", { class: "cards hidden-cards", title: `${hiddenCount} ${label}, hidden from this view` },
          Array.from({ length: hiddenCount }, () => this.back()));
      }
      if (!cards.length) return el("span", { class: "none" }, "none");
      return el("span", { class: "cards" }, cards.map((c) => this.agentCard(c, { small: true })));
    }

    marketCard(card, where) {
      const info = this.data.black_market ? this.data.black_market[card] : null;
      const title = info ? info.title : pretty(card);
      const effect = info ? info.effect : "";
      const node = el("button", { type: "button", class: `card bm${info && info.ongoing ? " ongoing" : ""}`, title: effect,
        "aria-expanded": "false", "data-card": card, "data-where": where },
        el("span", { class: "icon", "aria-hidden": "true" }, "$"), el("span", { class: "card-name" }, title),
        el("span", { class: "effect" }, effect));
      node.addEventListener("click", () => node.setAttribute("aria-expanded", node.getAttribute("aria-expanded") === "true" ? "false" : "true"));
      return node;
    }

    // a seat's clock at this step: its bank left, and how long it took over the decision
    // asked here (live, on the newest frame: how long it has been thinking, counting)
    clockText(f, seat) {
      const c = f.clocks[seat];
      const time = (ms) => (ms < 1000 ? `${ms.toFixed(ms < 10 ? 1 : 0)} ms` : `${(ms / 1000).toFixed(1)} s`);
      const parts = [`bank ${time(c.bank_ms)}`];
      if (f.actor === seat && f.decision) {
        if (c.thinking_ms !== null) parts.push(`took ${time(c.thinking_ms)} here`);
        else if (this.live && this.index === this.frames.length - 1) parts.push(`thinking ${time(Date.now() - this.shownAt)}`);
      } else if (c.last_ms !== null) {
        parts.push(`last answer ${time(c.last_ms)}`);
      }
      return `clock: ${parts.join(" · ")}`;
    }

    tickClock() {
      const f = this.frames && this.frames[this.index];
      if (!f || !f.clocks || f.actor < 0) return;
      const node = this.root.querySelector(`#clock-${f.actor}`);
      if (node) node.textContent = this.clockText(f, f.actor);
    }

    renderTables(f) {
      const teams = [0, 1].map((t) => {
        const area = Object.entries(f.in_play[t]);
        return el("section", { class: `team team-${TEAM[t].toLowerCase()}${f.active_team === t && !f.outcome ? " active" : ""}`, id: `team-${TEAM[t].toLowerCase()}` },
          el("h3", {}, `Team ${TEAM[t]}`, el("span", { class: "team-names" }, this.teamName(t)),
            f.active_team === t && !f.outcome ? el("span", { class: "badge" }, "active") : null,
            f.positions ? el("span", { class: "where" }, `space ${f.positions[t]}`) : null),
          el("div", { class: "play-area", "aria-label": `team ${TEAM[t]}'s agents in play` }, area.length
            ? area.map(([card, n]) => this.agentCard(card, { count: n }))
            : el("span", { class: "none" }, "no agent in play yet")),
          f.ongoing[t].length ? el("div", { class: "ongoing" }, el("span", { class: "muted" }, "Black Market: "), f.ongoing[t].map((c) => this.marketCard(c, `team-${t}`))) : null,
          el("ul", { class: "seats" }, f.seats.filter((s) => s.team === t).map((s) =>
            el("li", { class: `seat${f.actor === s.seat ? " acting" : ""}`, id: `seat-${s.seat}`, "data-seat": s.seat },
              el("div", { class: "seat-head" }, el("strong", {}, `seat ${s.seat} · ${this.name(s.seat)}`),
                f.captains && f.captains[t] === s.seat && this.data.teams[t].length > 1 ? el("span", { class: "tag" }, "captain") : null,
                f.actor === s.seat && f.decision ? el("span", { class: "badge" }, DECISIONS[f.decision] || f.decision) : null),
              f.clocks ? el("div", { class: "clock", id: `clock-${s.seat}` }, this.clockText(f, s.seat)) : null,
              el("div", { class: "hand" }, el("span", { class: "label" }, "hand"), this.cardRow(s.hand, s.hand_size, "cards in hand")),
              el("div", { class: "discards" }, el("span", { class: "label" }, "discards"), this.cardRow(s.discards, s.discards_used, "discarded cards"))))));
      });
      const offer = f.offer.face_up || f.offer.face_down_offered
        ? el("section", { class: "offer", id: "offer" }, el("h3", {}, "On offer"),
          el("div", { class: "offer-cards" },
            el("div", { id: "face-up" }, el("span", { class: "label" }, "face up"), f.offer.face_up ? this.agentCard(f.offer.face_up) : el("span", { class: "none" }, "—")),
            el("div", { id: "face-down" }, el("span", { class: "label" }, "face down"), f.offer.face_down_offered
              ? (f.offer.face_down ? this.agentCard(f.offer.face_down) : this.back("the face-down card: hidden until the choice"))
              : el("span", { class: "none" }, "—"))))
        : null;
      const market = this.data.mode === "advanced"
        ? el("section", { class: "market" }, el("h3", {}, "Black Market"),
          el("div", { id: "market", class: "market-cards" }, f.market.length ? f.market.map((c) => this.marketCard(c, "market")) : el("span", { class: "none" }, "empty")),
          el("div", { class: "muted small" }, `deck ${f.bm_deck_size} · discarded ${f.bm_discard.length} · tap a card for its effect`))
        : null;
      const result = f.outcome
        ? el("section", { class: "result", id: "result" }, el("strong", {}, `Team ${TEAM[f.outcome.winner]} (${this.teamName(f.outcome.winner)}) wins`),
          el("p", { id: "ending" }, f.ending || f.outcome.reason.replaceAll("_", " ")))
        : null;
      const deck = f.deck ? el("details", { class: "deck-order" }, el("summary", {}, `deck order (omniscient): ${f.deck.length} cards`),
        el("span", { class: "cards" }, f.deck.map((c) => this.agentCard(c, { small: true })))) : null;
      this.tables.replaceChildren(...[result, offer, ...teams, market, deck].filter(Boolean));
    }

    renderLog() {
      const items = [];
      this.frames.slice(0, this.index + 1).forEach((f, i) => {
        const go = () => this.go(i);
        if (f.last) {
          const ms = f.last.latency_ms;
          items.push(el("li", { class: `decision${i === this.index ? " new" : ""}`, "data-step": i, onclick: go },
            `${this.name(f.last.seat)}: ${f.last.kind.replaceAll("_", " ")}`,
            ms !== null && ms !== undefined ? el("span", { class: "latency", title: "how long the bot took to answer" }, ` ${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`) : null));
        }
        f.events.forEach((text) => items.push(el("li", { class: `event${i === this.index ? " new" : ""}${text.startsWith("—") ? " turn" : ""}`, "data-step": i, onclick: go }, text)));
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
