#!/usr/bin/env bash
# Fuzzes the engine's input paths with Jazzer, one target after the other (docs/fuzzing.md).
#
#   build-config/fuzz.sh                        every target for 10 s (the CI run: about 2.5 minutes)
#   build-config/fuzz.sh --time 2m FrameFuzzTest
#   build-config/fuzz.sh --runs 10000000 FrameAssemblerFuzzTest 'SetupCodecFuzzTest#reader'
#
# Targets are classes of io.xio.engine.fuzz, with #method where a class has several. A target that fails
# leaves its input in xio-engine/src/test/resources/io/xio/engine/fuzz/<Class>Inputs/<method>/ (commit it:
# from then on ./mvnw verify replays it) and makes the script exit non-zero once every target has run. What a
# run learns goes to xio-engine/.cifuzz-corpus/ (not committed; the next run starts from it). Logs:
# xio-engine/target/fuzz/<target>.log.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

limit=(-Djazzer.max_duration=10s)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --time) limit=(-Djazzer.max_duration="$2"); shift 2 ;;
    # a count of inputs; the duration cap is lifted to a day so that the count decides
    --runs) limit=(-Djazzer.max_executions="$2" -Djazzer.max_duration=24h); shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(FrameFuzzTest 'FrameAssemblerFuzzTest#stream' 'FrameAssemblerFuzzTest#largeFrames' 'SetupCodecFuzzTest#reader'
    'SetupCodecFuzzTest#roundTrip'
    ServerConnectionFuzzTest
    ShmControlFuzzTest)
fi

# Compiled once (with the style check); each target then runs in the surefire execution "fuzz" alone.
./mvnw -B -q -pl xio-engine test-compile
mkdir -p xio-engine/target/fuzz

failed=()
for target in "${targets[@]}"; do
  log="xio-engine/target/fuzz/${target//#/.}.log"
  echo "=== fuzz: ${target} (${limit[*]})"
  # Extra libFuzzer flags go in as jazzer.internal.arg.N (0 is argv[0]): a 10 s limit per input turns a hang
  # into a finding, and the final statistics give the number of inputs run.
  if JAZZER_FUZZ=1 ./mvnw -B -pl xio-engine surefire:test@fuzz -Dtest="io.xio.engine.fuzz.${target}" \
      -Dsurefire.failIfNoSpecifiedTests=false "${limit[@]}" \
      -Djazzer.internal.arg.0=fuzz -Djazzer.internal.arg.1=-timeout=10 -Djazzer.internal.arg.2=-print_final_stats=1 \
      > "$log" 2>&1; then
    status=passed
  else
    status=FAILED
    failed+=("$target")
  fi
  grep -E '^#[0-9]+[[:space:]]+DONE|^Done [0-9]+ runs|^stat::(number_of_executed_units|average_exec_per_sec)' \
    "$log" || true
  grep -E '^== Java Exception|^Caused by|Tests run:.*Fail' "$log" | head -5 || true
  echo "--- ${target}: ${status} (log ${log})"
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets passed"
