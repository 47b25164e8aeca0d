#!/usr/bin/env bash
# Installs Debian's chromium for `npm run test:browser` (the browser test drives it with
# playwright-core through executablePath, so no browser download from npm is needed).
# Idempotent; needs root or sudo on Debian/Ubuntu. Set CHROMIUM_PATH to use another binary.
set -euo pipefail

if [ -n "${CHROMIUM_PATH:-}" ]; then
  echo "Using CHROMIUM_PATH=${CHROMIUM_PATH}"
  exit 0
fi
for candidate in chromium chromium-browser; do
  if command -v "$candidate" >/dev/null 2>&1; then
    echo "Found $("$candidate" --version 2>/dev/null || echo "$candidate")"
    exit 0
  fi
done

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-browser: no chromium and no apt-get; install Chromium and set CHROMIUM_PATH." >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium
chromium --version
