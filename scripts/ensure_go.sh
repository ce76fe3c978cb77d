#!/usr/bin/env bash
# The Go starter (starters/go/) and its tests (tests/starters/test_go.py) build offline
# against Debian's Go toolchain and Debian's Go library sources under /usr/share/gocode
# (grpc-go, google.golang.org/protobuf), with Debian's protoc and its Go plugins for the
# generated-code drift test. grpc-go's codec goes through github.com/golang/protobuf: it
# must be the 1.5 package (a wrapper of google.golang.org/protobuf); the 1.3 one, which
# apt may pick for golang-google-grpc-dev, cannot marshal the generated messages. Install them where missing, the way
# scripts/ensure_chromium.sh installs chromium.
set -euo pipefail
PACKAGES="golang-go golang-google-grpc-dev golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev protoc-gen-go protoc-gen-go-grpc protobuf-compiler"
GOCODE=/usr/share/gocode/src

have_all() {
  command -v go >/dev/null 2>&1 &&
    command -v protoc >/dev/null 2>&1 &&
    command -v protoc-gen-go >/dev/null 2>&1 &&
    command -v protoc-gen-go-grpc >/dev/null 2>&1 &&
    [ -d "$GOCODE/google.golang.org/grpc" ] &&
    [ -d "$GOCODE/google.golang.org/protobuf" ] &&
    [ -f "$GOCODE/github.com/golang/protobuf/proto/registry.go" ]
}

report() {
  echo "ok       go at $(command -v go) ($(go version 2>/dev/null | awk '{print $3}'))"
  echo "ok       grpc-go $(sed -n 's/^const Version = "\(.*\)"/\1/p' "$GOCODE/google.golang.org/grpc/version.go" 2>/dev/null || echo '(version unknown)') with google.golang.org/protobuf and github.com/golang/protobuf 1.5 under $GOCODE"
  echo "ok       protoc $(protoc --version 2>/dev/null | awk '{print $2}'), $(protoc-gen-go --version 2>/dev/null), $(protoc-gen-go-grpc --version 2>/dev/null)"
}

if have_all; then
  report
  exit 0
fi

echo "Go, grpc-go, protobuf-go or protoc is missing; the Go starter's tests need them."
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ERROR: cannot install them here (needs root and apt-get). Install Debian's packages by hand:"
  echo "         sudo apt-get update && sudo apt-get install -y $PACKAGES"
  exit 1
fi
echo "running: apt-get update && apt-get install -y --no-install-recommends $PACKAGES"
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! { apt-get update -q && apt-get install -y -q --no-install-recommends $PACKAGES; }; then
  echo "ERROR: apt-get could not install the Go packages (see above); the Go starter cannot be built."
  exit 1
fi
if ! have_all; then
  echo "ERROR: apt-get finished but go, protoc, a protoc plugin or the sources under $GOCODE are still missing."
  exit 1
fi
report
