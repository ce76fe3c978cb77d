#!/usr/bin/env bash
# Builds the starter into ./avenue-bot, offline, in GOPATH mode against Debian's Go library
# sources (golang-google-grpc-dev, golang-google-protobuf-dev under /usr/share/gocode):
# no go.mod, no module download. GOPATH may name more folders (GOPATH=~/go:/usr/share/gocode)
# for libraries of your own. Extra arguments go to `go build` (e.g. -race).
#
#   bash build.sh          # ./avenue-bot
#   bash build.sh test     # go test (the bots, the encoding of a zero choice_index)
#   bash build.sh vet      # go vet
set -euo pipefail
cd "$(dirname "$0")"
export GO111MODULE=off GOFLAGS="" GOPATH="${AVENUE_GOPATH:-/usr/share/gocode}"
if ! command -v go >/dev/null 2>&1; then
  echo "ERROR: go is missing: run 'bash scripts/ensure_go.sh' from the repository root" >&2
  echo "       (Debian: apt-get install golang-go golang-google-grpc-dev golang-google-protobuf-dev)" >&2
  exit 1
fi
case "${1:-build}" in
  test) shift; exec go test "$@" . ;;
  vet) shift; exec go vet "$@" . ;;
  build) [ $# -gt 0 ] && shift; exec go build -o avenue-bot "$@" . ;;
  *) exec go build -o avenue-bot "$@" . ;;
esac
