// node --test (npm test): the bots' choices on hand-made requests, and the encoding of
// a zero choice_index through the real proto-loader setup the client uses.
import assert from "node:assert/strict";
import { test } from "node:test";

import { heuristicBot, outcome, randomBot, seededRandom, unseen } from "../src/bots";
import type { CardCount, Choice, DecisionRequest, Observation } from "../src/messages";
import { checkZeroIndexIsSent, encodeBotMessage, loadProtocol } from "../src/proto";

function observation(over: Partial<Observation> = {}): Observation {
  const team = (t: number, in_play: CardCount[] = []) => ({ team: t, in_play, position: 7 * t, ongoing: [], effects_used: [] });
  return {
    config: { mode: "MODE_SIMPLE", ruleset: "standard", ruleset_version: 1, teams: [{ seats: [0] }, { seats: [1] }], first_team: 0 },
    seat: 0,
    team: 0,
    turn: 3,
    active_team: 0,
    decision: "DECISION_KIND_PLAY",
    actor: 0,
    captains: [0, 1],
    face_up_seat: -1,
    hand: [],
    discards: [],
    my_face_down: "AGENT_UNSPECIFIED",
    seats: [],
    teams: [team(0), team(1)],
    gap: 7,
    deck_size: 20,
    offer_up: "AGENT_UNSPECIFIED",
    face_down_offered: false,
    market: [],
    bm_deck_size: 0,
    bm_discard: [],
    history: [],
    history_start: 0,
    ...over,
  };
}

function request(kind: string, obs: Observation, legal: Choice[]): DecisionRequest {
  return { match_id: "1.1", seq: "5", kind, seat: obs.seat, observation: obs, legal, decision_ms: 5000, bank_ms: 60000, previous_latency_ms: 0 };
}

const recruit: Choice[] = [
  { kind: "recruit", recruit: { side: "SIDE_FACE_UP" } },
  { kind: "recruit", recruit: { side: "SIDE_FACE_DOWN" } },
];

test("a zero choice_index reaches the bytes and reads back as 0", () => {
  const protocol = loadProtocol();
  assert.doesNotThrow(() => checkZeroIndexIsSent(protocol));
  const bytes = encodeBotMessage(protocol, { action: { match_id: "73.1", seq: "12", choice_index: 0 } });
  assert.deepEqual([...bytes.subarray(-2)], [0x18, 0x00]);
});

test("the heuristic takes the face-up card rather than hand the opponent its third Codebreaker", () => {
  const obs = observation({
    team: 1,
    seat: 1,
    active_team: 0,
    teams: [
      { team: 0, in_play: [{ agent: "AGENT_CODEBREAKER", count: 2 }], position: 0, ongoing: [], effects_used: [] },
      { team: 1, in_play: [], position: 7, ongoing: [], effects_used: [] },
    ],
    offer_up: "AGENT_CODEBREAKER",
    face_down_offered: true,
  });
  assert.equal(outcome(obs, 1, "AGENT_ENFORCER", "AGENT_CODEBREAKER"), -100);
  assert.equal(heuristicBot().decide(request("DECISION_KIND_RECRUIT", obs, recruit)), 0);
});

test("the heuristic leaves a face-up Daredevil that would be its third", () => {
  const obs = observation({
    team: 1,
    seat: 1,
    teams: [
      { team: 0, in_play: [], position: 0, ongoing: [], effects_used: [] },
      { team: 1, in_play: [{ agent: "AGENT_DAREDEVIL", count: 2 }], position: 7, ongoing: [], effects_used: [] },
    ],
    offer_up: "AGENT_DAREDEVIL",
    face_down_offered: true,
  });
  assert.equal(heuristicBot().decide(request("DECISION_KIND_RECRUIT", obs, recruit)), 1);
});

test("the heuristic keeps its third Daredevil out of the pair it plays", () => {
  const obs = observation({
    hand: [
      { agent: "AGENT_DAREDEVIL", count: 1 },
      { agent: "AGENT_ENFORCER", count: 1 },
      { agent: "AGENT_SENTINEL", count: 1 },
    ],
    teams: [
      { team: 0, in_play: [{ agent: "AGENT_DAREDEVIL", count: 2 }], position: 0, ongoing: [], effects_used: [] },
      { team: 1, in_play: [], position: 7, ongoing: [], effects_used: [] },
    ],
  });
  const play = (up: string, down: string): Choice => ({ kind: "play", play: { face_up: up, face_down: down } });
  const legal = [
    play("AGENT_DAREDEVIL", "AGENT_ENFORCER"),
    play("AGENT_ENFORCER", "AGENT_DAREDEVIL"),
    play("AGENT_ENFORCER", "AGENT_SENTINEL"),
    play("AGENT_SENTINEL", "AGENT_DAREDEVIL"),
  ];
  assert.equal(heuristicBot().decide(request("DECISION_KIND_PLAY", obs, legal)), 2);
});

test("a catch ends the game in the heuristic's judgement", () => {
  const obs = observation({ gap: 2 });
  assert.equal(outcome(obs, 0, "AGENT_SIDEKICK", "AGENT_CODEBREAKER"), 100); // A moves 4: d = -2
  assert.equal(outcome(observation({ gap: 12 }), 1, "AGENT_DAREDEVIL", "AGENT_CODEBREAKER"), 100); // B moves 2: d = 14
});

test("unseen cards exclude the hand, the discards, both play areas and the face-up offer", () => {
  const obs = observation({
    hand: [{ agent: "AGENT_MOLE", count: 1 }],
    discards: [{ agent: "AGENT_ENFORCER", count: 2 }],
    offer_up: "AGENT_SIDEKICK",
  });
  const left = new Map(unseen(obs));
  assert.equal(left.get("AGENT_MOLE"), undefined);
  assert.equal(left.get("AGENT_SIDEKICK"), undefined);
  assert.equal(left.get("AGENT_ENFORCER"), 4);
  assert.equal([...left.values()].reduce((a, b) => a + b, 0), 38 - 4);
});

test("the random bot answers an index into legal, the same ones for the same seed", () => {
  const obs = observation();
  const legal = Array.from({ length: 6 }, (): Choice => ({ kind: "stop_discarding", stop_discarding: {} }));
  const picks = (seed: number) => {
    const bot = randomBot(seededRandom(seed));
    return Array.from({ length: 50 }, () => bot.decide(request("DECISION_KIND_DISCARD", obs, legal)) as number);
  };
  assert.ok(picks(1).every((i) => Number.isInteger(i) && i >= 0 && i < 6));
  assert.deepEqual(picks(1), picks(1));
  assert.ok(new Set(picks(1)).size > 1);
});
