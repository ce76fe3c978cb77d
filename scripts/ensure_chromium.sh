#!/usr/bin/env bash
# The browser tests (tests/web/test_browser.py) drive Debian's chromium package through
# Playwright; Playwright's own browser download is never used. Install it where missing.
set -euo pipefail
CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "ok       chromium at $CHROMIUM ($("$CHROMIUM" --version 2>/dev/null | head -1 || echo 'version unknown'))"
  exit 0
fi

echo "chromium is missing at $CHROMIUM; the browser tests need it."
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ERROR: cannot install it here (needs root and apt-get). Install Debian's package by hand:"
  echo "         sudo apt-get update && sudo apt-get install -y chromium"
  exit 1
fi
echo "running: apt-get update && apt-get install -y --no-install-recommends chromium"
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -q && apt-get install -y -q --no-install-recommends chromium; }; then
  echo "ERROR: apt-get could not install chromium (see above); the browser tests cannot run."
  exit 1
fi
if [ ! -x "$CHROMIUM" ]; then
  echo "ERROR: apt-get finished but $CHROMIUM is still missing."
  exit 1
fi
echo "ok       chromium installed: $("$CHROMIUM" --version 2>/dev/null | head -1)"
