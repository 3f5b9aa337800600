#!/usr/bin/env bash
# Installs what the tests need and runs the whole suite: Rust unit tests, then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --only-binary ripgrep -e '.[test]'
cargo test --quiet
python3 -m pytest -q "$@"
