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
/** What a third Codebreaker (a win) or a third Daredevil (a loss) is worth. */
const WIN = 20;
/** Roughly what an unseen card is worth to whoever recruits it. */
const AVERAGE = 1;

export function inPlay(obs: Observation, team: number, agent: EnumValue): number {
  return obs.teams[team].in_play.filter((c) => c.agent === agent).reduce((n, c) => n + c.count, 0);
}

/** How good recruiting `agent` right now is for `team`: its move, or a win/loss. */
export function value(obs: Observation, team: number, agent: EnumValue): number {
  const moves = MOVES[String(agent)];
  if (moves === undefined) return 0;
  const copies = inPlay(obs, team, agent) + 1;
  let score = moves[Math.min(copies, 3) - 1];
  if (copies >= 3 && agent === "AGENT_CODEBREAKER") score += WIN;
  if (copies >= 3 && agent === "AGENT_DAREDEVIL") score -= WIN;
  return score;
}

function best(request: DecisionRequest, score: (choice: Choice) => number): number {
  let index = 0;
  request.legal.forEach((choice, i) => {
    if (score(choice) > score(request.legal[index])) index = i;
  });
  return index;
}

/**
 * Values each card by how far it moves its recruiter now (a third Codebreaker wins, a
 * third Daredevil loses). Plays the pair that leaves it furthest ahead whichever card
 * the opponent takes; recruits the face-up card when it is worth more to both teams
 * together than two unseen cards (so it also takes a card it must not hand over, like
 * the opponent's third Codebreaker); discards the Mole. Anything else: the first choice.
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
            const theyTakeUp = value(obs, us, down) - value(obs, them, up);
            const theyTakeDown = value(obs, us, up) - value(obs, them, down);
            return (theyTakeUp + theyTakeDown) / 2;
          });
        case "DECISION_KIND_PLAY_FACE_UP":
        case "DECISION_KIND_PLAY_FACE_DOWN":
          // Team play: one card each; keep the ones good for us and bad for them.
          return best(request, (c) => {
            const card = c.play_face_up?.card ?? c.play_face_down?.card ?? 0;
            return value(obs, us, card) - value(obs, them, card);
          });
        case "DECISION_KIND_RECRUIT": {
          // Taking the face-up card gives them the hidden one, and the other way round.
          const up = obs.offer_up;
          const takeUp = value(obs, us, up) + value(obs, them, up) >= 2 * AVERAGE;
          const side = takeUp ? "SIDE_FACE_UP" : "SIDE_FACE_DOWN";
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
