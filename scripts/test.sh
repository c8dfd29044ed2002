#!/usr/bin/env bash
# Builds everything (installing dependencies with apt-get when missing) and runs the tests.
#
#   scripts/test.sh [ctest args...]      e.g. scripts/test.sh -R Options
#
# The default set is fast. Longer runs sit behind environment variables, documented in README.md.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
build=$("$REPO/scripts/build.sh" | tail -n 1)
cd "$build"
ctest --output-on-failure --timeout 900 -j "$(nproc)" "$@"
