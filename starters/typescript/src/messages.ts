// The protocol's messages as @grpc/proto-loader hands them over with the options in
// proto.ts (keepCase, enums as names, 64-bit integers as decimal strings, defaults
// filled in, `kind` naming the set member of each oneof). Only what a bot reads is
// typed here; proto/agent_avenue/v1/arena.proto is the source of truth for the rest.

/** An enum value: its name, or the bare number when this copy of the .proto does not
 * know it (a newer arena may add values). */
export type EnumValue = string | number;

/** uint64 fields (seq, nonces) arrive as decimal strings: a JavaScript number would
 * round a nonce above 2^53, and the Pong would then name the wrong Ping. */
export type Uint64 = string;

export interface CardCount {
  agent: EnumValue;
  count: number;
}

export interface TeamInfo {
  team: number;
  in_play: CardCount[];
  position: number;
  ongoing: EnumValue[];
  effects_used: EnumValue[];
}

export interface SeatInfo {
  seat: number;
  team: number;
  hand_size: number;
  discards_used: number;
  discards_left: number;
}

export interface Event {
  kind: EnumValue;
  // proto3 `optional` fields: absent (undefined) unless the event kind uses them.
  team?: number;
  seat?: number;
  agent: EnumValue;
  black_market: EnumValue;
  amount: number;
  space?: number;
  side: EnumValue;
  reason: EnumValue;
}

export interface MatchConfig {
  mode: EnumValue;
  ruleset: string;
  ruleset_version: number;
  teams: { seats: number[] }[];
  first_team: number;
}

export interface Observation {
  config: MatchConfig;
  seat: number;
  team: number;
  turn: number;
  active_team: number;
  decision: EnumValue;
  actor: number;
  captains: number[];
  face_up_seat: number;
  hand: CardCount[];
  discards: CardCount[];
  my_face_down: EnumValue;
  seats: SeatInfo[];
  teams: TeamInfo[];
  gap: number;
  deck_size: number;
  offer_up: EnumValue;
  face_down_offered: boolean;
  market: EnumValue[];
  bm_deck_size: number;
  bm_discard: EnumValue[];
  history: Event[];
  history_start: number;
}

/** One legal choice: exactly one member is set, and `kind` names it. */
export interface Choice {
  kind: string;
  stop_discarding?: Record<string, never>;
  discard?: { card: EnumValue };
  play?: { face_up: EnumValue; face_down: EnumValue };
  name_face_up?: { seat: number };
  play_face_up?: { card: EnumValue };
  play_face_down?: { card: EnumValue };
  recruit?: { side: EnumValue };
  take_black_market?: { card: EnumValue; taker: number };
  choose_agent?: { card: EnumValue };
  retrieve?: { card: EnumValue; recruit: boolean };
}

export interface DecisionRequest {
  match_id: string;
  seq: Uint64;
  kind: EnumValue;
  seat: number;
  observation: Observation;
  legal: Choice[];
  decision_ms: number;
  bank_ms: number;
  previous_latency_ms: number;
}

export interface Player {
  seat: number;
  team: number;
  name: string;
}

export interface MatchStarted {
  match_id: string;
  seat: number;
  team: number;
  config: MatchConfig;
  players: Player[];
  time_control: { decision_ms: number; bank_ms: number };
  /** Set when the match goes on after this bot's stream dropped and it came back. */
  resumed: boolean;
  /** How long the arena waits for this bot to come back if its stream drops (ms). */
  reconnect_grace_ms: number;
}

export interface MatchEnded {
  match_id: string;
  seat: number;
  outcome: EnumValue;
  winner_team?: number;
  reason: EnumValue;
  fault: EnumValue;
  fault_seat?: number;
  turns: number;
  replay_id: string;
  message: string;
}

export interface Limits {
  protocol_version: number;
  max_concurrent_matches: number;
  max_message_bytes: number;
  rate_limit_per_second: number;
  rate_limit_burst: number;
  heartbeat_interval_ms: number;
  heartbeat_timeout_ms: number;
}

export interface Welcome {
  bot_id: string;
  bot_name: string;
  limits: Limits;
}

export interface ArenaError {
  code: string;
  message: string;
  match_id: string;
  seq: Uint64;
}

export interface ArenaMessage {
  kind: string;
  welcome?: Welcome;
  error?: ArenaError;
  ping?: { nonce: Uint64 };
  pong?: { nonce: Uint64 };
  match_started?: MatchStarted;
  decision_request?: DecisionRequest;
  match_ended?: MatchEnded;
  notice?: Notice;
}

/** An event the bot's owner is told of, sent while the bot is connected (informational:
 * nothing to answer). `data_json` is a JSON object; `kind` may be one this starter does
 * not know: ignore it. */
export interface Notice {
  event_id: string;
  kind: string;
  text: string;
  data_json: string;
  created_at_ms: Uint64;
}

/** What the bot writes. `choice_index` must always be set, 0 included: see proto.ts. */
export interface Action {
  match_id: string;
  seq: Uint64;
  choice_index: number;
}

export type BotMessage =
  | { hello: { protocol_version: number; bot_version: string; max_concurrent_matches: number } }
  | { ping: { nonce: Uint64 } }
  | { pong: { nonce: Uint64 } }
  | { action: Action };
