#!/usr/bin/env bash
# Installs what the tests need and runs the whole suite: Rust unit tests, a smoke run of the
# benchmarks (tiny corpus, one round, so they never rot), then the pytest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --only-binary ripgrep,python-ripgrep -e '.[test,bench]'
cargo test --quiet

stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
smoke_out=$(mktemp -d)
CODESIFT_BENCH_SMOKE=1 CODESIFT_BENCH_CORPUS="$stdlib/email" \
  python3 -m pytest benches -q -p no:cacheprovider --benchmark-disable
python3 benches/compare.py --quick --rounds 1 --no-git --corpus "$stdlib/email" \
  --out "$smoke_out" > "$smoke_out/log" || { cat "$smoke_out/log"; exit 1; }
echo "benchmark smoke run: ok ($(grep -c '^| ' "$smoke_out/compare.md") table rows)"
python3 benches/long_lines.py --rounds 1 --size 200000 --hits 200 > "$smoke_out/long_lines" \
  || { cat "$smoke_out/long_lines"; exit 1; }

python3 -m pytest -q "$@"
