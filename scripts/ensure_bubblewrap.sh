#!/usr/bin/env bash
# Hosted bots run in a bubblewrap sandbox (arena/adapters/bothost/sandbox.py); the hosting tests and
# the bot host need Debian's bubblewrap (bwrap), setpriv (util-linux) and libseccomp2 (the
# sandbox's seccomp filter, arena/adapters/bothost/seccomp.py). Install where missing,
# the way scripts/ensure_chromium.sh installs chromium.
set -euo pipefail
BWRAP=/usr/bin/bwrap

has_seccomp() { ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2'; }

if [ -x "$BWRAP" ] && command -v setpriv >/dev/null 2>&1 && has_seccomp; then
  echo "ok       bubblewrap at $BWRAP ($("$BWRAP" --version 2>/dev/null | head -1 || echo 'version unknown'))"
  exit 0
fi

echo "bubblewrap, setpriv or libseccomp2 is missing; hosted bots and their tests need them."
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ERROR: cannot install it here (needs root and apt-get). Install Debian's packages by hand:"
  echo "         sudo apt-get update && sudo apt-get install -y bubblewrap util-linux libseccomp2"
  exit 1
fi
echo "running: apt-get update && apt-get install -y --no-install-recommends bubblewrap util-linux libseccomp2"
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -q && apt-get install -y -q --no-install-recommends bubblewrap util-linux libseccomp2; }; then
  echo "ERROR: apt-get could not install bubblewrap (see above); hosted bots cannot run."
  exit 1
fi
if [ ! -x "$BWRAP" ]; then
  echo "ERROR: apt-get finished but $BWRAP is still missing."
  exit 1
fi
echo "ok       bubblewrap installed: $("$BWRAP" --version 2>/dev/null | head -1)"
