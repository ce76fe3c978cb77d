#!/usr/bin/env bash
# Regenerates the protocol code of the Go starter from the repository's proto/:
#   arena.pb.go       (protoc-gen-go: the messages)
#   arena_grpc.pb.go  (protoc-gen-go-grpc: the BotArena client)
# Both are checked in, in package main beside the starter's own code, so that building the
# starter needs only Go and the two libraries. tests/starters/test_go.py regenerates them
# into a temporary folder and fails when the checked-in copies' code differs (comments
# aside); `make proto` runs this after the Python code's generator.
#
#   bash gen_proto.sh          # writes into this folder
#   bash gen_proto.sh OUT_DIR  # writes into OUT_DIR instead (the drift test)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$HERE}"
mkdir -p "$OUT"
for tool in protoc protoc-gen-go protoc-gen-go-grpc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "ERROR: $tool is missing: run 'bash scripts/ensure_go.sh' from the repository root" >&2
    exit 1
  fi
done
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
PROTO=agent_avenue/v1/arena.proto
# M maps the .proto to this folder's package: the generated files say `package main`.
MAP="M$PROTO=agentavenue/starters/go;main"
(cd "$ROOT/proto" && protoc -I. \
  --go_out="$TMP" --go_opt=paths=source_relative --go_opt="$MAP" \
  --go-grpc_out="$TMP" --go-grpc_opt=paths=source_relative --go-grpc_opt="$MAP" \
  "$PROTO")
cp "$TMP/agent_avenue/v1/arena.pb.go" "$TMP/agent_avenue/v1/arena_grpc.pb.go" "$OUT/"
