// node dist/src/main.js [--bot random|heuristic|first] [--arena HOST:PORT] [--token aat_...]
// Flags win over the environment: AVENUE_ARENA (default 127.0.0.1:50051), AVENUE_TOKEN.
import { parseArgs } from "node:util";

import { BOTS } from "./bots";
import { ArenaClient } from "./client";

const USAGE = `usage: node dist/src/main.js [options]

  --bot NAME          ${Object.keys(BOTS).join(" | ")} (default heuristic)
  --arena HOST:PORT   the gateway (default $AVENUE_ARENA or 127.0.0.1:50051)
  --token TOKEN       the bot's token (default $AVENUE_TOKEN)
  --tls               connect with TLS
  --max-matches N     matches to play at once (default 1)
  --seed N            seed the random bot
  --no-reconnect      exit when the stream ends
  --proto-dir DIR     where agent_avenue/v1/arena.proto is (default: the repository's proto/)
  -v, --verbose       log every decision`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(64);
}

function integer(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) fail(`${name} must be a whole number, not ${JSON.stringify(text)}`);
  return n;
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        bot: { type: "string", default: "heuristic" },
        arena: { type: "string" },
        token: { type: "string" },
        tls: { type: "boolean", default: false },
        "max-matches": { type: "string" },
        seed: { type: "string" },
        "no-reconnect": { type: "boolean", default: false },
        "proto-dir": { type: "string" },
        verbose: { type: "boolean", short: "v", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const make = BOTS[values.bot];
  if (make === undefined) fail(`unknown bot ${JSON.stringify(values.bot)}`);
  const token = values.token ?? process.env.AVENUE_TOKEN;
  if (!token) fail("no token: pass --token or set AVENUE_TOKEN (make demo prints one)");
  const seed = values.seed === undefined ? undefined : integer(values.seed, "--seed", 0);

  let client: ArenaClient;
  try {
    client = new ArenaClient(make(seed), {
      arena: values.arena ?? process.env.AVENUE_ARENA ?? "127.0.0.1:50051",
      token,
      tls: values.tls,
      maxMatches: integer(values["max-matches"], "--max-matches", 1),
      reconnect: !values["no-reconnect"],
      protoDir: values["proto-dir"],
      verbose: values.verbose,
    });
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    return 2;
  }
  let signalled = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (signalled) process.exit(130); // a second Ctrl-C: do not wait for the stream
      signalled = true;
      console.log(`${new Date().toISOString()} ${signal}: closing the connection`);
      client.stop();
    });
  }
  const code = await client.run();
  console.log(`${new Date().toISOString()} stopped`);
  return code;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
