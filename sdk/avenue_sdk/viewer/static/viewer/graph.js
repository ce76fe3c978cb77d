// Agent Avenue replay viewer: the graph under the board (issue 26 §4). Per turn so far, the
// gap as the board shows it (spaces from A's meeple clockwise to B's: 7 at the start, A
// catches B at 0, B catches A at 14) and each team's agents in play, both read at the
// turn's last step up to the current one; a click on a turn goes to its first step.
// Nothing after the current step is drawn. The moment the game was decided (the payload's
// `decided`, avenue_sdk/viewer/frames.py: the first step from which the winner stayed
// ahead on the gap to the end, else the last step) is marked at the replay's last step, or
// once the current step passed it on a page that shows the result anyway (its "hide the
// result" box unchecked); never in a live match. No dependencies, no inline styles.
//
//   const graph = AvenueGraph.create((step) => viewer.go(step));
//   board.append(graph.node); ... graph.update(data, index, live);
(function () {
  "use strict";

  const NS = "http://www.w3.org/2000/svg";
  const TEAM = ["A", "B"];
  const W = 300, LEFT = 26, RIGHT = 8;
  const G0 = 16, GH = 96;          // the gap's panel: top and height
  const A0 = 136, AH = 40;         // the agents' panel
  const H = 192;
  const MIN_TURNS = 10;            // the x axis spans at least this many turns

  // an SVG element: attributes, then children (nodes, or text)
  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) node.setAttribute(k, v);
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }

  const agentsOf = (f) => f.in_play.map((team) => Object.values(team).reduce((a, b) => a + b, 0));

  // one entry per turn up to `index`: its first and last step, the gap and agents at its last
  function turnsUpTo(frames, index) {
    const turns = [];
    frames.slice(0, index + 1).forEach((f, i) => {
      const last = turns[turns.length - 1];
      const now = { last: i, gap: f.gap, agents: agentsOf(f) };
      if (!last || last.turn !== f.turn) turns.push({ turn: f.turn, first: i, ...now });
      else Object.assign(last, now);
    });
    return turns;
  }

  class Graph {
    constructor(onGo) {
      this.onGo = onGo;
      this.svg = svg("svg", { viewBox: `0 0 ${W} ${H}`, id: "graph-svg", class: "graph-svg", role: "group",
        "aria-label": "the game turn by turn: the gap and the agents in play" });
      this.legend = document.createElement("figcaption");
      this.legend.id = "graph-legend";
      this.legend.className = "graph-legend";
      this.legend.textContent = "Per turn so far: the gap (B's meeple ahead of A's; A catches at 0, B at 14) above, "
        + "each team's agents in play below; a click goes to the turn. ▼ decided: the step from which the winner "
        + "stayed ahead on the gap (A below 7, B above) to the end, or the last step if it did not finish ahead; "
        + "marked at the end of a replay.";
      this.node = document.createElement("figure");
      this.node.id = "graph";
      this.node.className = "graph";
      this.node.append(this.svg, this.legend);
      const box = document.getElementById("hide-result");
      if (box) box.addEventListener("change", () => this.last && this.update(...this.last));
    }

    // the decided mark is shown: never live; at the last step; or past it when the page
    // shows the result anyway (a match page whose "hide the result" box is unchecked)
    decidedShown(data, index, live) {
      const d = data.decided;
      if (!d || live) return false;
      if (index === data.frames.length - 1) return true;
      const box = document.getElementById("hide-result");
      return Boolean(box) && !box.checked && index >= d.step;
    }

    update(data, index, live) {
      this.last = [data, index, live];
      const frames = data.frames;
      const turns = turnsUpTo(frames, index);
      const gaps = turns.map((t) => t.gap);
      const lo = Math.min(0, ...gaps), hi = Math.max(14, ...gaps);
      const most = Math.max(4, ...turns.flatMap((t) => t.agents));
      const span = W - LEFT - RIGHT;
      // the axis grows with the game; at a replay's last step it is the whole game
      const slots = Math.max(turns.length, index === frames.length - 1 && !live ? 2 : MIN_TURNS);
      const x = (k) => LEFT + (k * span) / (slots - 1);
      const gy = (v) => G0 + ((hi - v) * GH) / (hi - lo);
      const ay = (v) => A0 + AH - (v * AH) / most;
      const step = span / (slots - 1);
      const f = frames[index];

      const image = svg("g", { id: "graph-image", role: "img" });
      image.append(
        svg("rect", { x: LEFT, y: gy(hi), width: span, height: gy(7) - gy(hi), class: "band team-b" }),
        svg("rect", { x: LEFT, y: gy(7), width: span, height: gy(lo) - gy(7), class: "band team-a" }),
        svg("text", { x: 2, y: 9, class: "panel-title" }, "gap"),
        svg("text", { x: W - RIGHT, y: gy(14) - 2, "text-anchor": "end", class: "axis-note" }, "B catches A"),
        svg("text", { x: W - RIGHT, y: gy(0) + 9, "text-anchor": "end", class: "axis-note" }, "A catches B"),
        svg("text", { x: 2, y: A0 - 5, class: "panel-title" }, "agents in play"));
      for (const v of [0, 7, 14]) {
        image.append(svg("line", { x1: LEFT, x2: W - RIGHT, y1: gy(v), y2: gy(v), class: v === 7 ? "rule start" : "rule" }),
          svg("text", { x: LEFT - 4, y: gy(v) + 3, "text-anchor": "end", class: "axis" }, v));
      }
      image.append(svg("line", { x1: LEFT, x2: W - RIGHT, y1: ay(0), y2: ay(0), class: "rule" }),
        svg("text", { x: LEFT - 4, y: ay(0) + 3, "text-anchor": "end", class: "axis" }, 0),
        svg("text", { x: LEFT - 4, y: ay(most) + 3, "text-anchor": "end", class: "axis" }, most),
        svg("text", { x: LEFT, y: H - 2, class: "axis" }, `turn ${turns[0].turn}`));
      if (turns.length > 1) {
        image.append(svg("text", { x: x(turns.length - 1), y: H - 2, "text-anchor": "middle", class: "axis" },
          turns[turns.length - 1].turn));
      }
      const line = (values, y, cls) => svg("polyline", { class: cls,
        points: values.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(" ") });
      image.append(line(gaps, gy, "gap-line"),
        line(turns.map((t) => t.agents[0]), ay, "agents-line team-a"),
        line(turns.map((t) => t.agents[1]), ay, "agents-line team-b"));

      let summary = `Turns ${turns[0].turn} to ${turns[turns.length - 1].turn} so far: the gap is ${f.gap} now `
        + `(7 at the start; lowest ${Math.min(...gaps)}, highest ${Math.max(...gaps)}); agents in play: `
        + `team A ${agentsOf(f)[0]}, team B ${agentsOf(f)[1]}.`;
      const d = data.decided;
      if (this.decidedShown(data, index, live)) {
        const k = turns.findIndex((t) => t.first <= d.step && d.step <= t.last);
        const at = x(k < 0 ? turns.length - 1 : k);
        const words = d.by_gap
          ? `Decided at turn ${d.turn} (step ${d.step}): team ${TEAM[d.winner]} took the lead on the gap for good.`
          : `Decided at the last step (turn ${d.turn}): team ${TEAM[d.winner]} won without finishing ahead on the gap.`;
        image.append(svg("g", { id: "graph-decided", class: "decided", "data-step": d.step, "data-turn": d.turn },
          svg("line", { x1: at, x2: at, y1: G0 - 4, y2: A0 + AH, class: "decided-line" }),
          svg("text", { x: at, y: G0 - 6, "text-anchor": at > W - 40 ? "end" : at < LEFT + 20 ? "start" : "middle",
            class: "decided-label" }, "▼ decided"),
          svg("title", {}, words)));
        summary += ` ${words}`;
      }
      image.setAttribute("aria-label", summary);

      const points = svg("g", { class: "points" });
      turns.forEach((t, k) => {
        const label = `turn ${t.turn}: gap ${t.gap}; agents in play: team A ${t.agents[0]}, team B ${t.agents[1]}`;
        const params = new URLSearchParams(location.search);
        params.set("step", t.first);
        params.delete("turn");
        params.delete("from");
        const a = svg("a", { href: `?${params}`, class: `point${t.turn === f.turn ? " current" : ""}`,
          "data-turn": t.turn, "data-step": t.first, "data-gap": t.gap,
          "data-agents": t.agents.join(" "), "aria-label": label });
        a.append(svg("title", {}, label),
          svg("rect", { x: x(k) - step / 2, y: 0, width: step, height: H, class: "hit" }),
          svg("circle", { cx: x(k), cy: gy(t.gap), r: t.turn === f.turn ? 4.5 : 3, class: "dot gap-dot" }),
          ...t.agents.map((n, team) => svg("circle", { cx: x(k), cy: ay(n), r: 2.2,
            class: `dot agents-dot team-${TEAM[team].toLowerCase()}` })));
        a.addEventListener("click", (e) => {
          e.preventDefault();
          this.refocus = t.turn;
          this.onGo(t.first);
        });
        points.append(a);
      });
      this.svg.replaceChildren(image, points);
      // a keyboard user who chose a turn keeps the focus on it (the points are redrawn)
      if (this.refocus !== undefined) {
        const again = points.querySelector(`a[data-turn="${this.refocus}"]`);
        this.refocus = undefined;
        if (again) again.focus();
      }
    }
  }

  window.AvenueGraph = { create: (onGo) => new Graph(onGo), turnsUpTo };
})();
