#!/usr/bin/env bash
# Installs every peer the benchmarks compare against (run as root on Debian):
# rg, fd, git, GNU grep/find, python-ripgrep, ripgrepy, and the plotting/benchmark packages.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  need=()
  command -v fdfind >/dev/null || command -v fd >/dev/null || need+=(fd-find)
  command -v git >/dev/null || need+=(git)
  if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi
python3 -m pip install -q --only-binary ripgrep,python-ripgrep -e '.[bench]'
