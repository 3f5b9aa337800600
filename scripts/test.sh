#!/usr/bin/env bash
# Installs what the tests need and runs the whole suite: Rust unit tests, ripgrep 15.2.0's own
# integration suite against the codesift-rg the install built (scripts/rg_suite.sh), a smoke
# run of the benchmarks (tiny corpus, one round, so they never rot; the index benchmark leaves
# codesearch out when cindex/csearch are not installed), then the pytest suite.
#
# System packages: the remote-search tests start a real OpenSSH sshd on 127.0.0.1
# (openssh-server, openssh-client); the benchmark smoke run uses fd (fd-find) as a peer; the
# tests of `codesift serve`'s page drive a headless Chromium (chromium, chromium-driver); a
# test counts the system calls codesift-rg makes to print paths (strace). As
# root with apt-get they are installed here; otherwise what is missing is printed and the run
# goes on (the remote tests then fail naming the package, the smoke run leaves fd out, the
# browser tests are skipped with the command that installs Chromium). CODESIFT_TEST_NO_APT=1
# forbids the apt-get step.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore

need=()
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v ssh >/dev/null || need+=(openssh-client)
command -v fdfind >/dev/null || command -v fd >/dev/null || need+=(fd-find)
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
command -v strace >/dev/null || need+=(strace)
if [ ${#need[@]} -gt 0 ]; then
  if [ "${CODESIFT_TEST_NO_APT:-0}" = 0 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "installing system packages: ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "warning: missing system packages: ${need[*]}" >&2
    echo "warning: install them with: sudo apt-get install -y ${need[*]}" >&2
    echo "warning: (or your system's equivalent); continuing without them" >&2
  fi
fi

python3 -m pip install -q --only-binary python-ripgrep -e '.[test,bench]'
cargo test --quiet
# Style gates: rustfmt, clippy with warnings as errors, ruff.
cargo fmt --check
cargo clippy --quiet --all-targets -- -D warnings
python3 -m ruff check python tests benches scripts
python3 -m ruff format --check python tests benches scripts
# The editable install above built codesift-rg into the package (build.rs); the suite's crate
# comes from crates.io through cargo.
CODESIFT_RG_BIN="$PWD/python/codesift/bin/codesift-rg" bash scripts/rg_suite.sh

stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
smoke_out=$(mktemp -d)
CODESIFT_BENCH_SMOKE=1 CODESIFT_BENCH_CORPUS="$stdlib/email" \
  python3 -m pytest benches -q -p no:cacheprovider --benchmark-disable
python3 benches/compare.py --quick --rounds 1 --no-git --corpus "$stdlib/email" \
  --out "$smoke_out" > "$smoke_out/log" || { cat "$smoke_out/log"; exit 1; }
echo "benchmark smoke run: ok ($(grep -c '^| ' "$smoke_out/compare.md") table rows)"
python3 benches/compare.py --index --quick --corpus "$stdlib/email" --out "$smoke_out/index" \
  > "$smoke_out/index_log" || { cat "$smoke_out/index_log"; exit 1; }
echo "index benchmark smoke run: ok ($(grep -c '^| ' "$smoke_out/index/index.md") table rows)"
python3 benches/long_lines.py --rounds 1 --size 200000 --hits 200 > "$smoke_out/long_lines" \
  || { cat "$smoke_out/long_lines"; exit 1; }
python3 benches/startup.py --rounds 2 --files 20 --importtime 1 > "$smoke_out/startup" \
  || { cat "$smoke_out/startup"; exit 1; }
echo "start-up benchmark smoke run: ok"
python3 benches/scale.py --corpus "$stdlib/email" --copies 2 --rounds 1 --library --out "$smoke_out/scale" \
  > "$smoke_out/scale_log" 2>&1 || { cat "$smoke_out/scale_log"; exit 1; }
echo "scale benchmark smoke run: ok"
python3 benches/output_modes.py --smoke --corpus "$stdlib/email" --pattern 'def \w+' \
  > "$smoke_out/output_modes" || { cat "$smoke_out/output_modes"; exit 1; }
echo "output modes benchmark smoke run: ok ($(grep -c '^| ' "$smoke_out/output_modes") table rows)"


python3 -m pytest -q "$@"
