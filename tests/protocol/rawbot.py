"""A bot without the SDK that misbehaves on purpose (the fault tests run it).

    python tests/protocol/rawbot.py --arena HOST:PORT --token T --mode MODE

It writes raw bytes to the stream, so it can send what no generated code would. Modes:
``garbage`` (bytes that are no message), ``empty`` (a BotMessage with nothing set),
``wrong_seq_once`` / ``wrong_seq_always``, ``foreign`` (also answers for --foreign-match),
``illegal`` (an index past the legal choices), ``mismatch`` (index and choice disagree),
``no_pong`` (answers decisions, never pings), ``flood`` (pings as fast as it can),
``big`` (a message larger than the gateway accepts), ``huge_answer`` (answers its first
decision with 10 MB), ``flood_stale`` (200 actions for a decision not pending, then the
right answer), ``old`` (protocol version 0), ``seat_fault`` (a SeatFault with
--fault-cause for each decision instead of an answer, at its seq plus --fault-seq-offset:
what only a bot host may send), ``claims_wait`` (sleeps --sleep-ms before each answer and
claims that wait as the arena's in ``arena_wait_us``, as only a bot host may),
``host_failure`` (a HostFailure for each decision, at its seq plus --fault-seq-offset: a
bot host's report of its own failure). Errors are
printed with the match and seq they name.
"""

from __future__ import annotations

import argparse
import queue
import sys
import time

import grpc

from agent_avenue.v1 import arena_pb2 as pb

METHOD = "/agent_avenue.v1.BotArena/Connect"


def message(**kind: object) -> bytes:
    return pb.BotMessage(**kind).SerializeToString()  # type: ignore[arg-type]


def answer(request: pb.DecisionRequest, seq: int | None = None, index: int = 0) -> bytes:
    action = pb.Action(
        match_id=request.match_id, seq=request.seq if seq is None else seq, choice_index=index
    )
    return message(action=action)


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--arena", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--mode", required=True)
    parser.add_argument("--foreign-match", default="")
    parser.add_argument("--fault-cause", default="FAULT_CAUSE_MEMORY")
    parser.add_argument("--fault-seq-offset", type=int, default=0)
    parser.add_argument("--sleep-ms", type=int, default=0)
    args = parser.parse_args()
    mode = args.mode
    out: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    version = 0 if mode == "old" else 1
    out.put(message(hello=pb.Hello(protocol_version=version, bot_version=f"raw-{mode}")))
    channel = grpc.insecure_channel(
        args.arena, options=[("grpc.max_send_message_length", 32 * 1024 * 1024)]
    )
    connect = channel.stream_stream(
        METHOD,
        request_serializer=lambda b: b,
        response_deserializer=pb.ArenaMessage.FromString,
    )
    wrong_sent = False
    try:
        for msg in connect(
            iter(out.get, None), metadata=[("authorization", f"Bearer {args.token}")]
        ):
            kind = msg.WhichOneof("kind")
            if kind == "error" and msg.error.match_id:
                e = msg.error
                print(f"<< error {e.code} match={e.match_id} seq={e.seq}: {e.message}", flush=True)
            else:
                print(f"<< {kind} {msg.error.code if kind == 'error' else ''}", flush=True)
            if kind == "welcome" and mode == "flood":
                for nonce in range(500):
                    out.put(message(ping=pb.Ping(nonce=nonce)))
            if kind == "welcome" and mode == "big":
                out.put(message(hello=pb.Hello(bot_version="x" * 200_000)))
            if kind == "ping" and mode != "no_pong":
                out.put(message(pong=pb.Pong(nonce=msg.ping.nonce)))
            if kind != "decision_request":
                continue
            request = msg.decision_request
            if mode == "garbage":
                out.put(b"\xff\xff\xff\xff\xff")
            elif mode == "empty":
                out.put(message())
            elif mode == "wrong_seq_always" or (mode == "wrong_seq_once" and not wrong_sent):
                wrong_sent = True
                out.put(answer(request, seq=request.seq + 1000))
                if mode == "wrong_seq_once":
                    out.put(answer(request))
            elif mode == "foreign":
                out.put(
                    message(action=pb.Action(match_id=args.foreign_match, seq=1, choice_index=0))
                )
                out.put(answer(request))
            elif mode == "huge_answer":
                # the right answer, padded with an unknown field (number 1000) to 10 MB
                padding = 10 * 1024 * 1024
                field = bytes([0xC2, 0x3E]) + varint(padding) + b"x" * padding
                out.put(answer(request) + field)
            elif mode == "flood_stale" and not wrong_sent:
                wrong_sent = True
                for _ in range(200):
                    out.put(answer(request, seq=request.seq + 1000))
                out.put(answer(request))
            elif mode == "seat_fault":
                report = pb.SeatFault(
                    match_id=request.match_id,
                    seq=request.seq + args.fault_seq_offset,
                    cause=pb.FaultCause.Value(args.fault_cause),
                    detail="reported by the stream itself",
                )
                out.put(message(seat_fault=report))
            elif mode == "host_failure":
                report = pb.HostFailure(
                    match_id=request.match_id,
                    seq=request.seq + args.fault_seq_offset,
                    detail="the host could not load the version",
                )
                out.put(message(host_failure=report))
            elif mode == "claims_wait":
                time.sleep(args.sleep_ms / 1000)
                action = pb.Action(match_id=request.match_id, seq=request.seq, choice_index=0)
                action.arena_wait_us = args.sleep_ms * 1000
                out.put(message(action=action))
            elif mode == "illegal":
                out.put(answer(request, index=len(request.legal) + 5))
            elif mode == "mismatch":
                action = pb.Action(match_id=request.match_id, seq=request.seq, choice_index=0)
                action.choice.CopyFrom(request.legal[1])
                out.put(message(action=action))
            else:
                out.put(answer(request))
    except grpc.RpcError as exc:
        print(f"status {exc.code().name}: {exc.details()}", flush=True)  # type: ignore[attr-defined]
        return 3
    except KeyboardInterrupt:
        return 0
    finally:
        out.put(None)
        channel.close()
    print("stream ended", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
