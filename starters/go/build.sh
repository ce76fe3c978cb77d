#!/usr/bin/env bash
# Builds the starter into ./avenue-bot, offline, in GOPATH mode against Debian's Go library
# sources (golang-google-grpc-dev, golang-google-protobuf-dev under /usr/share/gocode):
# no go.mod, no module download. GOPATH may name more folders (GOPATH=~/go:/usr/share/gocode)
# for libraries of your own (AVENUE_GOPATH overrides the default).
#
#   bash build.sh          # ./avenue-bot
#   bash build.sh build F  # the binary at F instead
#   bash build.sh test     # go test (the bots, the encoding of a zero choice_index)
#   bash build.sh vet      # go vet
set -euo pipefail
cd "$(dirname "$0")"
export GO111MODULE=off GOFLAGS="" GOPATH="${AVENUE_GOPATH:-/usr/share/gocode}"
# go keeps its build cache under $HOME; somewhere writable when there is no HOME
if [ -z "${GOCACHE:-}${XDG_CACHE_HOME:-}${HOME:-}" ]; then
  export GOCACHE="${TMPDIR:-/tmp}/avenue-go-build-cache"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "ERROR: go is missing: run 'bash scripts/ensure_go.sh' from the repository root" >&2
  echo "       (Debian: apt-get install golang-go golang-google-grpc-dev golang-google-protobuf-dev)" >&2
  exit 1
fi
case "${1:-build}" in
  test) shift; exec go test "$@" . ;;
  vet) shift; exec go vet "$@" . ;;
  build) exec go build -o "${2:-avenue-bot}" . ;;
  *) echo "usage: bash build.sh [build [OUT] | test [go test flags] | vet]" >&2; exit 64 ;;
esac
