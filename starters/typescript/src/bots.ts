// The bots of the starter. A bot is one function: given a DecisionRequest, return an
// index into request.legal. Write your own by copying one of these.
import type { Choice, DecisionRequest, EnumValue, MatchEnded, MatchStarted, Observation } from "./messages";

export interface Bot {
  /** Sent in Hello as bot_version and shown on the bot's page. */
  version: string;
  /** An index into request.legal (0 is a real choice: the client always sends it). */
  decide(request: DecisionRequest): number | Promise<number>;
  onMatchStarted?(started: MatchStarted): void;
  onMatchEnded?(ended: MatchEnded): void;
}

/** A small seeded generator (mulberry32), so a bot's games can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks any legal choice. */
export function randomBot(random: () => number = Math.random): Bot {
  return {
    version: "ts-random-1",
    decide: (request) => Math.floor(random() * request.legal.length),
  };
}

/** Always the first legal choice: every answer is index 0, the one a generator that
 * drops zero-valued fields would lose (see proto.ts). */
export function firstBot(): Bot {
  return { version: "ts-first-1", decide: () => 0 };
}

// ------------------------------------------------------------------ heuristic

/** Meeple move for the 1st, 2nd and 3rd+ copy in play (rules section 1). */
export const MOVES: Record<string, [number, number, number]> = {
  AGENT_DOUBLE_AGENT: [-1, 6, -1],
  AGENT_ENFORCER: [1, 2, 3],
  AGENT_CODEBREAKER: [0, 0, 0],
  AGENT_SABOTEUR: [-1, -1, -2],
  AGENT_DAREDEVIL: [2, 3, 0],
  AGENT_SENTINEL: [0, 2, 6],
  AGENT_SIDEKICK: [4, 4, 4],
  AGENT_MOLE: [-3, -3, -3],
};
/** Copies of each agent in the 38-card deck (rules section 1). */
export const COPIES: Record<string, number> = {
  AGENT_DOUBLE_AGENT: 6,
  AGENT_ENFORCER: 6,
  AGENT_CODEBREAKER: 6,
  AGENT_SABOTEUR: 6,
  AGENT_DAREDEVIL: 6,
  AGENT_SENTINEL: 6,
  AGENT_SIDEKICK: 1,
  AGENT_MOLE: 1,
};
/** A won (or lost) game, in spaces: more than any move. */
const WIN = 100;

function count(cards: { agent: EnumValue; count: number }[], agent: EnumValue): number {
  return cards.filter((c) => c.agent === agent).reduce((n, c) => n + c.count, 0);
}

export function inPlay(obs: Observation, team: number, agent: EnumValue): number {
  return count(obs.teams[team].in_play, agent);
}

/**
 * The end step (rules section 4) after `team` recruits `ours` and the other team
 * `theirs`, seen from `team`: WIN or -WIN when the game ends, else how many spaces the
 * turn gains on the opponent. Black Market effects are ignored.
 */
export function outcome(obs: Observation, team: number, ours: EnumValue, theirs: EnumValue): number {
  const other = 1 - team;
  const copies = (t: number, agent: EnumValue) => inPlay(obs, t, agent) + 1;
  const move = (t: number, agent: EnumValue) => MOVES[String(agent)]?.[Math.min(copies(t, agent), 3) - 1] ?? 0;
  const mine = move(team, ours);
  const theirsMove = move(other, theirs);
  // The gap is the clockwise distance from team A's meeple to team B's (section 2).
  const gap = obs.gap - (team === 0 ? mine - theirsMove : theirsMove - mine);
  const wins = (t: number, agent: EnumValue, otherAgent: EnumValue): boolean =>
    (t === 0 ? gap <= 0 : gap >= 14) ||
    (agent === "AGENT_CODEBREAKER" && copies(t, agent) >= 3) ||
    (otherAgent === "AGENT_DAREDEVIL" && copies(1 - t, otherAgent) >= 3);
  const weWin = wins(team, ours, theirs);
  const theyWin = wins(other, theirs, ours);
  if (weWin && theyWin) return obs.active_team === team ? WIN : -WIN;
  if (weWin) return WIN;
  if (theyWin) return -WIN;
  return mine - theirsMove;
}

/** The agents this seat has not seen, with how many copies of each: any of them may be
 * the card offered face down. */
export function unseen(obs: Observation): [EnumValue, number][] {
  return Object.entries(COPIES)
    .map(([agent, copies]): [EnumValue, number] => {
      const seen =
        count(obs.hand, agent) +
        count(obs.discards, agent) +
        inPlay(obs, 0, agent) +
        inPlay(obs, 1, agent) +
        (obs.offer_up === agent ? 1 : 0);
      return [agent, Math.max(0, copies - seen)];
    })
    .filter(([, n]) => n > 0);
}

function best(request: DecisionRequest, score: (choice: Choice) => number): number {
  let index = 0;
  const scores = request.legal.map(score);
  scores.forEach((s, i) => {
    if (s > scores[index]) index = i;
  });
  return index;
}

/**
 * Judges a turn by where it leaves the two meeples: a catch, a third Codebreaker (a
 * win) or a third Daredevil (a loss) outweighs any move. Plays the pair whose worse case
 * (the opponent takes the card that hurts us more) is best; recruits the side that is
 * better on average over the cards it has not seen (so it does not hand over the
 * opponent's third Codebreaker, nor gamble a hidden card when a third Daredevil would
 * lose); discards the Mole. Anything else: the first legal choice.
 */
export function heuristicBot(): Bot {
  return {
    version: "ts-heuristic-1",
    decide(request) {
      const obs = request.observation;
      const us = obs.team;
      const them = 1 - us;
      switch (request.kind) {
        case "DECISION_KIND_DISCARD": {
          const mole = request.legal.findIndex((c) => c.discard?.card === "AGENT_MOLE");
          if (mole >= 0) return mole;
          const stop = request.legal.findIndex((c) => c.kind === "stop_discarding");
          return stop >= 0 ? stop : 0;
        }
        case "DECISION_KIND_PLAY":
          return best(request, (c) => {
            const up = c.play?.face_up ?? 0;
            const down = c.play?.face_down ?? 0;
            return Math.min(outcome(obs, us, down, up), outcome(obs, us, up, down));
          });
        case "DECISION_KIND_PLAY_FACE_UP":
        case "DECISION_KIND_PLAY_FACE_DOWN":
          // Team play: one card each; keep the ones worth more to us than to them.
          return best(request, (c) => {
            const card = c.play_face_up?.card ?? c.play_face_down?.card ?? 0;
            return outcome(obs, us, card, 0) - outcome(obs, them, card, 0);
          });
        case "DECISION_KIND_RECRUIT": {
          const up = obs.offer_up;
          const hidden = unseen(obs);
          const total = hidden.reduce((n, [, k]) => n + k, 0) || 1;
          const mean = (f: (agent: EnumValue) => number) => hidden.reduce((s, [a, k]) => s + k * f(a), 0) / total;
          const takeUp = mean((down) => outcome(obs, us, up, down));
          const takeDown = mean((down) => outcome(obs, us, down, up));
          const side = takeUp >= takeDown ? "SIDE_FACE_UP" : "SIDE_FACE_DOWN";
          const index = request.legal.findIndex((c) => c.recruit?.side === side);
          return index >= 0 ? index : 0;
        }
        default:
          return 0;
      }
    },
  };
}

export const BOTS: Record<string, (seed?: number) => Bot> = {
  random: (seed) => randomBot(seed === undefined ? Math.random : seededRandom(seed)),
  heuristic: () => heuristicBot(),
  first: () => firstBot(),
};
