#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (-sanitize=fuzzer,address, in .build-fuzz, apart from the normal build)
# and runs them: each target starts from its committed seeds (Fuzz/corpus/TARGET) plus what earlier runs found
# (.build-fuzz/corpus/TARGET), with its dictionary (Fuzz/dict/TARGET.dict), after replaying every input of
# Fuzz/regressions/TARGET once. A crash, leak, hang or failed check stops the run with a non-zero exit and
# leaves the input in .build-fuzz/artifacts/. docs/robustness.md describes the targets; docs/measurements.md the runs.
#
#   scripts/fuzz.sh [TARGET...] [--seconds N]   fuzz each TARGET (default: all) for N seconds (default 60)
#   scripts/fuzz.sh --list                      the targets
#   scripts/fuzz.sh --make-seeds                re-record Fuzz/corpus from real traffic (see below)
#   options: --report FILE (append one line of figures per target), --build-only, --no-build
#
# Everything runs under `nice -n 19`: the machines this runs on are small and shared.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(fuzz-frame-reader fuzz-json-options fuzz-origin-rpid fuzz-base64url fuzz-cbor fuzz-authenticator-output
         fuzz-assuan fuzz-ctaphid fuzz-ctap-commands fuzz-softtoken-state)
SCRATCH="$PWD/.build-fuzz"
BIN="$SCRATCH/release"

seconds=60 build=1 run=1 make_seeds=0 report="" selected=()
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift ;;
    --report) report="$2"; shift ;;
    --build-only) run=0 ;;
    --no-build) build=0 ;;
    --make-seeds) make_seeds=1 run=0 ;;
    --list) printf '%s\n' "${TARGETS[@]}"; exit 0 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    fuzz-*) selected+=("$1") ;;
    *) echo "unknown argument: $1 (targets: ${TARGETS[*]})" >&2; exit 2 ;;
  esac
  shift
done
((${#selected[@]})) || selected=("${TARGETS[@]}")
for t in "${selected[@]}"; do
  [[ " ${TARGETS[*]} " == *" $t "* ]] || { echo "unknown target: $t" >&2; exit 2; }
done

# Swift's own crash backtracer would symbolicate for minutes before libFuzzer could save the input.
export SWIFT_BACKTRACE=enable=no
# A leak in one input is a finding (LeakSanitizer, per input); a smaller quarantine keeps RSS modest.
# Allocations above 2 GiB fail (NULL) as they would on a small machine: libcbor (under libfido2) reserves
# whatever count a CBOR array or map header claims, which a C caller survives as a decoding error; Swift code
# asking for that much still stops the run (the Swift runtime traps on a failed allocation).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=64:allocator_may_return_null=1:max_allocation_size_mb=2048}"

if ((build)); then
  # -sanitize=fuzzer,address goes to the compiler as one flag (two --sanitize options reach it as two flags, of
  # which it keeps only the last: no coverage); --sanitize fuzzer also tells SwiftPM that libFuzzer brings main().
  # -enable-testing lets the Assuan target reach the Prompts module's internal reader.
  nice -n 19 swift build -c release --package-path Fuzz --scratch-path "$SCRATCH" \
    --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing
fi

if ((make_seeds)); then
  raw="$SCRATCH/seeds-recorded"
  rm -rf "$raw" && mkdir -p "$raw"
  # 1. libfido2 ↔ SoftToken: open/getInfo, makeCredential with PIN and extensions, getAssertion, large blob, retries.
  ASAN_OPTIONS=detect_leaks=0 nice -n 19 "$BIN/fuzz-seeds" "$raw"
  # 2. What the integration tests send the real host and get back, their token files and pinentry sessions.
  nice -n 19 swift build --product webauthn-bridge
  # shellcheck source=scripts/python-env.sh
  . scripts/python-env.sh
  python_env_setup webauthn fido2 pytest pytest-timeout
  FUZZ_SEED_DIR="$raw" PYTHONPATH="$PWD/Fuzz/seeds" WEBAUTHN_BRIDGE_HOST="$PWD/.build/debug/webauthn-bridge" \
    nice -n 19 python3 -m pytest -q -p record_integration --timeout=120 \
    Tests/Integration/test_ceremonies.py Tests/Integration/test_protocol.py Tests/Integration/test_pin.py \
    Tests/Integration/test_extensions.py || echo "(some integration tests failed; their frames were recorded all the same)"
  # 3. Keep only the recordings that reach code no other recording reaches (libFuzzer's corpus merge).
  for t in "${TARGETS[@]}"; do
    rm -rf "Fuzz/corpus/$t" && mkdir -p "Fuzz/corpus/$t" "$raw/$t"
    nice -n 19 "$BIN/$t" -merge=1 "Fuzz/corpus/$t" "$raw/$t" >"$SCRATCH/$t.merge.log" 2>&1
    echo "$t: $(find "$raw/$t" -type f | wc -l) recorded, $(find "Fuzz/corpus/$t" -type f | wc -l) kept"
  done
  exit 0
fi
((run)) || exit 0

mkdir -p "$SCRATCH/artifacts"
for t in "${selected[@]}"; do
  work="$SCRATCH/corpus/$t" seeds="Fuzz/corpus/$t" log="$SCRATCH/$t.log"
  mkdir -p "$work" "$seeds"
  if compgen -G "Fuzz/regressions/$t/*" >/dev/null; then
    echo "== $t: replaying Fuzz/regressions/$t"
    nice -n 19 "$BIN/$t" -runs=1 Fuzz/regressions/"$t"/* >"$SCRATCH/$t.regressions.log" 2>&1 \
      || { tail -40 "$SCRATCH/$t.regressions.log"; echo "FAIL: $t regression input crashes again" >&2; exit 1; }
  fi
  dict=() && [ -f "Fuzz/dict/$t.dict" ] && dict=(-dict="Fuzz/dict/$t.dict")
  echo "== $t: fuzzing for ${seconds}s"
  started=$(date +%s)
  if ! nice -n 19 "$BIN/$t" "$work" "$seeds" "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
      -use_value_profile=1 -rss_limit_mb=2560 -malloc_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$SCRATCH/artifacts/$t-" >"$log" 2>&1; then
    grep -v '^#[0-9]' "$log" | tail -60
    echo "FAIL: $t found a crash; the input is in $SCRATCH/artifacts/ (log: $log)" >&2
    exit 1
  fi
  elapsed=$(($(date +%s) - started))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' <<<"$last") ft=$(sed -n 's/.* ft: \([0-9]*\) .*/\1/p' <<<"$last")
  corpus=$(find "$work" -type f | wc -l)
  line="$t executions=$execs exec/s=$rate cov=$cov features=$ft corpus=$corpus seconds=$elapsed crashes=0"
  echo "$line"
  [ -z "$report" ] || echo "$(date -u +%FT%TZ) $line" >>"$report"
done
