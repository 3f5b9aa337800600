#!/usr/bin/env bash
# ripgrep 15.2.0's own integration suite run against codesift-rg.
#
# Fetches the `ripgrep` crate through cargo (nothing is vendored), builds its suite
# (`cargo test --no-run --test integration`, which also builds the real rg), runs it once with
# that rg and once with codesift-rg standing in for it (the suite runs
# `<test executable's dir>/../rg`) under CODESIFT_RG_FALLBACK=never, then once more with
# CODESIFT_RG_INDEX=force as well (every case's tree indexed by a private daemon, its own
# socket and cache directories, stopped afterwards), and fails when a case that passes with
# the real rg fails with codesift-rg in either run.
#
#   scripts/rg_suite.sh                 # builds codesift-rg (release) from this checkout
#   CODESIFT_RG_BIN=path scripts/rg_suite.sh   # tests that binary instead
#   RG_SUITE_DIR=dir (default target/rg-suite) keeps the build between runs.
#
# Both rgs are built with PCRE2 (`--features pcre2`, PCRE2's C source built by `pcre2-sys`):
# every case (`rgtest!`) runs twice in one test, the second time with `--pcre2`, so a case
# counts as passed only when both its default-engine and its PCRE2 run pass.
#
# The last line is `rg suite: N passed, M failed` (M: cases the real rg passes and codesift-rg
# fails); the exit status is 0 only when M is 0 and the real rg ran the suite.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${RG_SUITE_DIR:-$repo/target/rg-suite}
version=15.2.0
mkdir -p "$work/fetch/src"
start=$(date +%s)

# 1. The crate's source, through cargo's registry cache.
cat > "$work/fetch/Cargo.toml" <<TOML
[package]
name = "rg-suite-fetch"
version = "0.0.0"
edition = "2021"
[dependencies]
ripgrep = "=$version"
# Its own workspace, wherever RG_SUITE_DIR is (the default is inside this repository).
[workspace]
TOML
echo 'fn main() {}' > "$work/fetch/src/main.rs"
(cd "$work/fetch" && cargo fetch --quiet)
src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ripgrep-$version 2>/dev/null | head -1 || true)
[ -d "$src" ] || { echo "rg_suite: ripgrep-$version source not found after cargo fetch" >&2; exit 2; }
rm -rf "$work/ripgrep" && cp -r "$src" "$work/ripgrep"
# The crate's lock file, with `ignore` and `globset` at the versions codesift-rg is built
# with: what `cargo install ripgrep@15.2.0` resolves today (the walk's symlink handling and
# the type table differ between versions, and the real rg is what both are held to).
locked() {
  python3 -c '
import re, sys
text = open(sys.argv[1]).read()
print(re.search(r"name = \"%s\"\nversion = \"([^\"]+)\"" % sys.argv[2], text).group(1))' \
    "$repo/Cargo.lock" "$1"
}
(cd "$work/ripgrep" && cargo update --quiet -p ignore --precise "$(locked ignore)" \
    && cargo update --quiet -p globset --precise "$(locked globset)") \
  || { echo "rg_suite: cannot build ripgrep with codesift-rg's ignore and globset" >&2; exit 2; }

# 2. The suite and the real rg, with PCRE2 as ripgrep's releases are built: each case then
# runs a second time with `--pcre2` (ripgrep's `rgtest!`), on codesift-rg as on the real rg.
(cd "$work/ripgrep" && cargo test --no-run --test integration --features pcre2 \
    --target-dir "$work/target" --message-format=json > "$work/build.json" 2> "$work/build.log") \
  || { tail -30 "$work/build.log" >&2; exit 2; }
suite=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "integration" and m.get("executable"):
        print(m["executable"])' "$work/build.json" | tail -1)
rg_path="$work/target/debug/rg"
cp "$rg_path" "$work/rg.real"

# 3. codesift-rg.
if [ -n "${CODESIFT_RG_BIN:-}" ]; then
  ours=$CODESIFT_RG_BIN
else
  (cd "$repo" && cargo build --release --bin codesift-rg --no-default-features --quiet)
  ours="$repo/target/release/codesift-rg"
fi
[ -x "$ours" ] || {
  echo "rg_suite: $ours is not an executable (pip install -e . builds python/codesift/bin/codesift-rg)" >&2
  exit 2
}
built=$(date +%s)

run_suite() {  # $1: output file
  "$suite" --test-threads="${RG_SUITE_THREADS:-2}" > "$1" 2>&1 || true
}
restore() { cp "$work/rg.real" "$rg_path"; }
trap restore EXIT

run_suite "$work/real.txt"
cp "$ours" "$rg_path"
CODESIFT_RG_FALLBACK=never run_suite "$work/ours.txt"
# The index run: a private daemon (started by the first forced query, with this checkout's
# package), stopped afterwards.
private=$(mktemp -d)
mkdir -m 700 "$private/run"
python=${CODESIFT_PYTHON:-$(command -v python3)}
index_env=(XDG_RUNTIME_DIR="$private/run" CODESIFT_CACHE_DIR="$private/cache"
           CODESIFT_PYTHON="$python" PYTHONPATH="$repo/python${PYTHONPATH:+:$PYTHONPATH}")
(export "${index_env[@]}" CODESIFT_RG_FALLBACK=never CODESIFT_RG_INDEX=force
 run_suite "$work/index.txt")
env "${index_env[@]}" "$python" -m codesift daemon status --json > "$work/index-status.json" 2>/dev/null || true
env "${index_env[@]}" "$python" -m codesift daemon stop > /dev/null 2>&1 || true
rm -rf "$private"
restore
finished=$(date +%s)

passes() { sed -n 's/^test \(.*\) \.\.\. ok$/\1/p' "$1" | sort; }
all() { sed -n 's/^test \(.*\) \.\.\. [a-zA-Z]*$/\1/p' "$1" | sort; }
passes "$work/real.txt" > "$work/real.pass"
passes "$work/ours.txt" > "$work/ours.pass"
total=$(all "$work/real.txt" | wc -l)
passes "$work/index.txt" > "$work/index.pass"
comm -23 "$work/real.pass" "$work/ours.pass" > "$work/regressions.txt"
comm -23 "$work/real.pass" "$work/index.pass" > "$work/regressions-index.txt"
queries=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("queries", "?"))' \
  "$work/index-status.json" 2>/dev/null || echo "?")
real_passed=$(wc -l < "$work/real.pass")
ours_passed=$(wc -l < "$work/ours.pass")
index_passed=$(wc -l < "$work/index.pass")
echo "real rg:                     $real_passed / $total passed"
echo "codesift-rg (scan):          $ours_passed / $total passed (CODESIFT_RG_FALLBACK=never)"
echo "codesift-rg (index, forced): $index_passed / $total passed (daemon queries: $queries)"
echo "build $((built - start))s, runs $((finished - built))s; outputs in $work"
fails=$(cat "$work/regressions.txt" "$work/regressions-index.txt" | wc -l)
if [ "$fails" -gt 0 ]; then
  echo "cases the real rg passes and codesift-rg fails:"
  sed 's/^/  scan: /' "$work/regressions.txt"
  sed 's/^/  index: /' "$work/regressions-index.txt"
fi
if [ "$total" -eq 0 ] || [ "$real_passed" -eq 0 ]; then
  echo "rg_suite: the suite did not run with the real rg (see $work/real.txt)" >&2
  echo "rg suite: $((ours_passed + index_passed)) passed, $fails failed"
  exit 2
fi
echo "rg suite: $((ours_passed + index_passed)) passed, $fails failed"
[ "$fails" -eq 0 ]
