// Connects a Bot to an arena gateway and keeps it connected (docs/protocol.md).
//
// One stream at a time: Hello, Welcome, then every message of every match the bot plays,
// interleaved. The client answers pings, keeps each seat's history (the arena sends it
// in slices), answers every DecisionRequest with its match_id and seq and an explicit
// choice_index, and reconnects with exponential backoff and jitter when the stream
// breaks. A match outlives the stream it started on: the client keeps what it knows of
// each match across streams and, back within the match's reconnect grace, goes on with
// it (the arena sends MatchStarted again with `resumed`, and the pending request again
// with the whole history). It gives up for good when reconnecting cannot help: the token or protocol
// version is refused, or a newer connection of the same bot took over ("superseded":
// two copies of a bot would only keep replacing each other).
import * as grpc from "@grpc/grpc-js";

import type { Bot } from "./bots";
import type { ArenaMessage, BotMessage, DecisionRequest, Event, Limits, MatchEnded, MatchStarted } from "./messages";
import { type Protocol, checkZeroIndexIsSent, loadProtocol } from "./proto";

export const PROTOCOL_VERSION = 1;

/** Status codes after which reconnecting cannot help. */
const FATAL_CODES = new Set([
  grpc.status.UNAUTHENTICATED,
  grpc.status.FAILED_PRECONDITION,
  grpc.status.PERMISSION_DENIED,
  grpc.status.INVALID_ARGUMENT,
]);

export interface ClientOptions {
  arena: string;
  token: string;
  tls?: boolean;
  /** Hello.max_concurrent_matches (the gateway makes 0 into 1 and caps it, 16 by default). */
  maxMatches?: number;
  reconnect?: boolean;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  protoDir?: string;
  /** Log every decision, not only matches starting and ending. */
  verbose?: boolean;
  log?: (line: string) => void;
}

type Stream = grpc.ClientDuplexStream<BotMessage, ArenaMessage>;

interface SessionEnd {
  /** Why reconnecting cannot help, when it cannot. */
  fatal?: string;
}

export class ArenaClient {
  readonly protocol: Protocol;
  welcome?: { bot_id: string; bot_name: string; limits: Limits };
  private readonly opts: Required<Omit<ClientOptions, "protoDir">>;
  private stopping = false;
  private call?: Stream;
  private wake?: () => void;
  /** `${match_id}/${seat}` -> the seat's whole public history so far */
  private readonly histories = new Map<string, Event[]>();
  /** `${match_id}/${seat}` -> the match's reconnect grace (ms), for the seats in play */
  private readonly started = new Map<string, number>();
  /** when the last stream ended (Date.now()), while no new one has a Welcome */
  private streamEndedAt?: number;

  constructor(
    private readonly bot: Bot,
    options: ClientOptions,
  ) {
    this.opts = {
      tls: false,
      maxMatches: 1,
      reconnect: true,
      minBackoffMs: 500,
      maxBackoffMs: 30_000,
      verbose: false,
      log: (line) => console.log(`${new Date().toISOString()} ${line}`),
      ...options,
    };
    this.protocol = loadProtocol(options.protoDir);
    checkZeroIndexIsSent(this.protocol);
  }

  /** Plays until stop() or a refusal; the process's exit code (0, or 2 when refused). */
  async run(): Promise<number> {
    let backoff = this.opts.minBackoffMs;
    while (!this.stopping) {
      const began = Date.now();
      const end = await this.session();
      if (end.fatal !== undefined) {
        this.opts.log(`giving up: ${end.fatal}`);
        return 2;
      }
      if (this.stopping || !this.opts.reconnect) break;
      // A stream that lasted a while was a success: start the backoff over.
      if (Date.now() - began > 10_000) backoff = this.opts.minBackoffMs;
      let delay = backoff * (0.5 + Math.random() / 2);
      // with matches in progress, come back well within their reconnect grace
      if (this.started.size > 0) delay = Math.min(delay, 2_000);
      this.opts.log(`reconnecting in ${(delay / 1000).toFixed(1)} s`);
      await this.sleep(delay);
      backoff = Math.min(backoff * 2, this.opts.maxBackoffMs);
    }
    return 0;
  }

  /** Ends the stream and does not reconnect (safe from a signal handler). */
  stop(): void {
    this.stopping = true;
    this.call?.cancel();
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** One stream, until it ends. */
  private session(): Promise<SessionEnd> {
    const credentials = this.opts.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
    const client = new this.protocol.BotArena(this.opts.arena, credentials, {
      "grpc.max_receive_message_length": 16 * 1024 * 1024,
      "grpc.keepalive_time_ms": 30_000,
      "grpc.keepalive_timeout_ms": 10_000,
    });
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${this.opts.token}`);
    const call = (client as unknown as { Connect(md: grpc.Metadata): Stream }).Connect(metadata);
    this.call = call;
    this.opts.log(`connecting to ${this.opts.arena}`);
    call.write({
      hello: {
        protocol_version: PROTOCOL_VERSION,
        bot_version: this.bot.version,
        max_concurrent_matches: this.opts.maxMatches,
      },
    });
    if (this.stopping) call.cancel();

    let superseded = "";
    let heardAt = Date.now();
    // The arena pings every heartbeat_interval_ms; hearing nothing for that long plus
    // heartbeat_timeout_ms means the stream is dead even if TCP has not noticed yet.
    const watchdog = setInterval(() => {
      const limits = this.welcome?.limits;
      if (limits === undefined || this.call !== call) return;
      const limit = limits.heartbeat_interval_ms + limits.heartbeat_timeout_ms;
      if (Date.now() - heardAt > limit) {
        this.opts.log(`the arena has been silent for over ${limit / 1000} s; dropping the stream`);
        call.cancel();
      }
    }, 1_000);

    return new Promise((resolve) => {
      call.on("data", (message: ArenaMessage) => {
        heardAt = Date.now();
        if (message.kind === "error" && message.error?.code === "superseded") {
          superseded = message.error.message;
        }
        this.handle(message, call);
      });
      // grpc-js emits "error" for every status but OK, then "status" in all cases.
      call.on("error", () => undefined);
      call.on("status", (status: grpc.StatusObject) => {
        clearInterval(watchdog);
        this.streamEndedAt ??= Date.now();
        if (this.call === call) this.call = undefined;
        client.close();
        const name = grpc.status[status.code];
        if (superseded !== "" && !this.stopping) {
          resolve({ fatal: `another connection of this bot took over (${superseded})` });
        } else if (FATAL_CODES.has(status.code)) {
          resolve({ fatal: `the arena refused the bot (${name}): ${status.details}` });
        } else {
          if (!this.stopping) this.opts.log(`stream ended (${name}): ${status.details}`);
          resolve({});
        }
      });
    });
  }

  // ---------------------------------------------------------------- messages

  private send(call: Stream, message: BotMessage): void {
    // An answer computed after its stream ended is dropped: if the bot is back within the
    // grace, the arena asks that decision again on the new stream.
    if (this.call === call) call.write(message);
  }

  private handle(message: ArenaMessage, call: Stream): void {
    switch (message.kind) {
      case "welcome": {
        const w = message.welcome!;
        this.welcome = w;
        this.forgetLostMatches();
        this.opts.log(
          `connected as ${w.bot_name} (id ${w.bot_id}), up to ${w.limits.max_concurrent_matches} ` +
            `matches at once, heartbeat every ${w.limits.heartbeat_interval_ms / 1000} s`,
        );
        break;
      }
      case "ping":
        this.send(call, { pong: { nonce: message.ping!.nonce } });
        break;
      case "pong":
        break;
      case "match_started":
        this.matchStarted(message.match_started!);
        break;
      case "decision_request":
        void this.answer(message.decision_request!, call);
        break;
      case "match_ended":
        this.matchEnded(message.match_ended!);
        break;
      case "notice": {
        const n = message.notice!;
        this.opts.log(`notice ${n.kind}: ${n.text}`);
        break;
      }
      case "error": {
        const e = message.error!;
        const where = e.match_id ? ` (match ${e.match_id}, decision ${e.seq})` : "";
        this.opts.log(`arena error ${e.code}${where}: ${e.message}`);
        break;
      }
      default:
        this.opts.log(`ignoring an unknown message (${message.kind}) from a newer arena`);
    }
  }

  /** On a new stream: matches the bot was away from for longer than their reconnect
   * grace are over for it (ended with DISCONNECT, or voided): forget them. The others go
   * on, and the arena says so with a resumed MatchStarted. */
  private forgetLostMatches(): void {
    const endedAt = this.streamEndedAt;
    this.streamEndedAt = undefined;
    if (endedAt === undefined) return;
    const away = Date.now() - endedAt;
    for (const [key, grace] of this.started) {
      if (away <= grace) continue;
      this.opts.log(`match ${key.split("/")[0]}: away ${(away / 1000).toFixed(1)} s, longer than its reconnect grace; forgetting it`);
      this.started.delete(key);
      this.histories.delete(key);
    }
  }

  private matchStarted(m: MatchStarted): void {
    const key = `${m.match_id}/${m.seat}`;
    if (m.resumed && this.started.has(key)) {
      // the same match goes on: keep its history; the pending request comes again
      this.opts.log(`match ${m.match_id} resumed: seat ${m.seat}, on a new stream`);
      return;
    }
    this.started.set(key, m.reconnect_grace_ms ?? 0);
    this.histories.set(key, []);
    const resumed = m.resumed ? " (resumed: this process never saw it start)" : "";
    const others = m.players
      .filter((p) => p.seat !== m.seat)
      .map((p) => `${p.name} (seat ${p.seat}, team ${"AB"[p.team]})`)
      .join(", ");
    const mode = String(m.config.mode).replace("MODE_", "").toLowerCase();
    this.opts.log(
      `match ${m.match_id} started: seat ${m.seat} (team ${"AB"[m.team]}), ${mode} mode, with ${others}${resumed}`,
    );
    this.bot.onMatchStarted?.(m);
  }

  private matchEnded(m: MatchEnded): void {
    // A fresh process of the bot may be told of the end of a match an earlier process
    // of it was playing (e.g. its seat forfeited for the disconnect).
    const key = `${m.match_id}/${m.seat}`;
    const unseen = this.started.has(key) ? "" : " (started on an earlier stream)";
    const outcome = String(m.outcome).replace("MATCH_OUTCOME_", "").toLowerCase();
    this.opts.log(
      `match ${m.match_id} ended, seat ${m.seat}${unseen}: ${outcome}: ${m.message} (replay ${m.replay_id})`,
    );
    this.histories.delete(key);
    this.started.delete(key);
    this.bot.onMatchEnded?.(m);
  }

  /** The wire carries only the events since this seat's previous request: put the whole
   * history back, so the bot sees every event from the start with history_start 0. */
  private fullHistory(request: DecisionRequest): void {
    const obs = request.observation;
    const key = `${request.match_id}/${request.seat}`;
    const known = obs.history_start === 0 ? [] : (this.histories.get(key) ?? []);
    if (obs.history_start !== known.length) {
      this.opts.log(
        `match ${request.match_id}: the history starts at event ${obs.history_start} but ` +
          `${known.length} are known; the bot sees a history with a gap`,
      );
    }
    known.push(...obs.history);
    this.histories.set(key, known);
    obs.history = known.slice();
    obs.history_start = 0;
  }

  private async answer(request: DecisionRequest, call: Stream): Promise<void> {
    const began = process.hrtime.bigint();
    this.fullHistory(request);
    let index: number;
    try {
      index = await this.bot.decide(request);
    } catch (err) {
      this.opts.log(`match ${request.match_id}: the bot failed on decision ${request.seq} (${String(err)}); answering 0`);
      index = 0;
    }
    if (!Number.isInteger(index) || index < 0 || index >= request.legal.length) {
      this.opts.log(
        `match ${request.match_id}: the bot chose ${index} on decision ${request.seq}, not an index ` +
          `into its ${request.legal.length} legal choices; answering 0`,
      );
      index = 0;
    }
    // choice_index is proto3 `optional`: set it even when it is 0 (checkZeroIndexIsSent).
    this.send(call, { action: { match_id: request.match_id, seq: request.seq, choice_index: index } });
    if (this.opts.verbose) {
      const ms = Number(process.hrtime.bigint() - began) / 1e6;
      this.opts.log(
        `match ${request.match_id} #${request.seq} ${String(request.kind).replace("DECISION_KIND_", "")}: ` +
          `choice ${index} of ${request.legal.length} (${ms.toFixed(1)} ms)`,
      );
    }
  }
}
