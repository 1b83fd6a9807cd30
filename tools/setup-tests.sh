#!/usr/bin/env bash
# What the test suite needs on a fresh machine: the package with its test extra, and a
# Chromium for the round viewer's tests (tests/test_viewer.py drives the page headless), from
# the Debian packages when none is on PATH. Without one the viewer's tests skip, or fail under
# CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."
has_chromium() {
  command -v chromium || command -v chromium-browser || command -v google-chrome
} >/dev/null
if ! has_chromium; then
  if command -v apt-get >/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium
  else
    echo "setup-tests: no Chromium on PATH and no apt-get to install it:" \
      "install Chromium for tests/test_viewer.py" >&2
  fi
fi
python -m pip install -e '.[test]'
