// Loads proto/agent_avenue/v1/arena.proto at run time: the starter keeps no copy of it and
// generates nothing, so it always speaks the repository's current protocol.
import * as fs from "node:fs";
import * as path from "node:path";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

export const PROTO_FILE = "agent_avenue/v1/arena.proto";
const SERVICE = "agent_avenue.v1.BotArena";

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true, // field names as in the .proto (match_id, choice_index)
  enums: String, // enum values by name ("DECISION_KIND_PLAY")
  longs: String, // uint64 (seq, nonces) as decimal strings: exact, and echoed back as is
  defaults: true, // unset fields read as their zero value...
  oneofs: true, // ...and each oneof gets a `kind` naming its set member
};

/** The folder holding agent_avenue/: `--proto-dir` or AVENUE_PROTO_DIR, else the
 * repository's proto/ two levels above this package (starters/typescript/). */
export function protoDir(override?: string): string {
  const dir = override ?? process.env.AVENUE_PROTO_DIR ?? path.resolve(__dirname, "../../../../proto");
  if (!fs.existsSync(path.join(dir, PROTO_FILE))) {
    throw new Error(
      `${path.join(dir, PROTO_FILE)} not found: run the bot from the repository's ` +
        "starters/typescript/, or point --proto-dir (AVENUE_PROTO_DIR) at a copy of proto/",
    );
  }
  return dir;
}

export interface Protocol {
  /** The BotArena client constructor (new Client(address, credentials, options)). */
  BotArena: grpc.ServiceClientConstructor;
  definition: protoLoader.PackageDefinition;
}

export function loadProtocol(dir?: string): Protocol {
  const definition = protoLoader.loadSync(PROTO_FILE, { ...LOADER_OPTIONS, includeDirs: [protoDir(dir)] });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    agent_avenue: { v1: { BotArena: grpc.ServiceClientConstructor } };
  };
  return { BotArena: loaded.agent_avenue.v1.BotArena, definition };
}

/** Serializes a BotMessage exactly as the stream will. */
export function encodeBotMessage(protocol: Protocol, message: object): Buffer {
  const method = (protocol.definition[SERVICE] as protoLoader.ServiceDefinition).Connect;
  return method.requestSerialize(message);
}

/**
 * The pitfall every non-Python bot must avoid: `Action.choice_index` is proto3
 * `optional`, so "index 0" and "no index" are different on the wire. A generator or a
 * helper that leaves zero-valued fields out sends an Action with neither index nor
 * choice for option 0, which the arena records as MALFORMED_ACTION and forfeits the
 * game. protobufjs (under proto-loader) writes an explicitly set 0; this check proves it
 * at start-up, so a change of library or options fails here instead of in a match.
 */
export function checkZeroIndexIsSent(protocol: Protocol): void {
  const base = { action: { match_id: "m", seq: "1" } };
  const without = encodeBotMessage(protocol, base);
  const withZero = encodeBotMessage(protocol, { action: { ...base.action, choice_index: 0 } });
  // field 3, varint (tag 0x18), value 0: two more bytes inside the action
  if (withZero.length !== without.length + 2 || !withZero.subarray(-2).equals(Buffer.from([0x18, 0x00]))) {
    throw new Error(
      "this protobuf setup drops choice_index 0; every answer naming option 0 would forfeit the game",
    );
  }
}
