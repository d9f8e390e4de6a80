#!/usr/bin/env bash
# Runs the AOT-processed sample jar (built by ./mvnw -pl sample-app -am package -Paot) the way the README's demo
# runs, on a free TCP port, a unique shm name and a random web port, and checks that it started from the AOT
# artifacts, that every configured client stored, read back and verified all its values, that the quotes feed
# ran its two subscribers, and that the exactly-once payments ran once per order and replayed every retry (both
# clients are pointed at the same port). The load itself fails the run (non-zero exit) on a mismatch, a round that
# fails (sample.retries=0) or payments that do not add up; timeout bounds a hang.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

jars=()
for jar in sample-app/target/sample-app-*.jar; do
  case "$jar" in
    *-sources.jar|*-javadoc.jar|*-tests.jar) ;;
    *) jars+=("$jar") ;;
  esac
done
if [[ ${#jars[@]} -ne 1 ]]; then
  echo "xio CI: expected one sample-app jar in sample-app/target, found: ${jars[*]:-none}" >&2
  exit 1
fi

# The sample's clients name the server's URI, so the port is chosen here: one nothing on 127.0.0.1 answers on.
port=""
for _ in $(seq 1 50); do
  candidate=$((20000 + RANDOM % 40000))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
    port=$candidate
    break
  fi
done
if [[ -z "$port" ]]; then
  echo "xio CI: no free port found for the AOT sample run" >&2
  exit 1
fi
shm="xio-ci-aot-$$-$RANDOM"
cleanup() { rm -rf /dev/shm/"$shm"* 2>/dev/null || true; }
trap cleanup EXIT

values=2000
clients=(blobs blobs-shm)
log=sample-app/target/aot-run.log
status=0
SAMPLE_LINGER=0s timeout 300 "${JAVA_HOME:+$JAVA_HOME/bin/}java" -Dspring.aot.enabled=true -jar "${jars[0]}" \
  --server.port=0 --sample.values=$values --sample.retries=0 "--sample.clients=$(IFS=,; echo "${clients[*]}")" \
  "--xio.portals[0].uri=tcp://127.0.0.1:$port" "--xio.portals[1].uri=shm://$shm" \
  "--xio.clients.blobs.uri=tcp://127.0.0.1:$port/blobs" "--xio.clients.blobs-shm.uri=shm://$shm/blobs" \
  "--xio.clients.quotes.uri=tcp://127.0.0.1:$port/quotes" "--xio.clients.payments.uri=tcp://127.0.0.1:$port/payments" \
  2>&1 | tee "$log" || status=$?
if [[ $status -ne 0 ]]; then
  echo "xio CI: the AOT-processed sample exited with status $status (124: timed out after 300 s)" >&2
  exit 1
fi
grep -q "Starting AOT-processed BlobStoreApplication" "$log"
for client in "${clients[@]}"; do
  if ! grep -Eq "^round 1: $client -> [^ ]+: $values values of [0-9]+ B stored and read back, $values verified, 0 mismatched\$" "$log"; then
    echo "xio CI: client $client did not report all $values values verified with 0 mismatched ($log)" >&2
    exit 1
  fi
done
if ! grep -q "^credit held the slow one's producer" "$log"; then
  echo "xio CI: the quotes feed did not report its two subscribers ($log)" >&2
  exit 1
fi
if ! grep -Eq "^payments table: ([0-9,]+) rows, [0-9,]+ cents, from \1 runs of pay; xio.server.exactly.once: \1 executed, \1 replayed\$" "$log"; then
  echo "xio CI: the exactly-once payments did not report one run per order and every retry replayed ($log)" >&2
  exit 1
fi
echo "xio CI: AOT-processed sample verified $values values on each client, read the quotes feed and replayed every payment retry"
