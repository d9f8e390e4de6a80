#!/usr/bin/env bash
# Runs xio's rdma-tagged tests (the transport conformance suite and the RDMA-specific suite on rdma://) on
# real kernel verbs: Soft-RoCE inside a QEMU guest (run-guest.sh). The build happens here on the host;
# the guest only runs `java` with the JUnit console launcher on the prepared class path.
#
#   integration-tests/rdma/run-tests.sh [--kvm | --mttcg] [--timeout SECONDS] [JUnit console launcher selectors...]
#
# Default selection: every test tagged rdma in io.xio.engine. With an RDMA NIC, run the same tests on the
# host instead, without the guest:  XIO_RDMA_ADDRESS=<ip of the RDMA interface> integration-tests/rdma/run-tests.sh --host
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

guest=(integration-tests/rdma/run-guest.sh)
on_host=false
# Under multi-threaded TCG, C1 code crashed (SIGILL/SIGSEGV near method entries) when patched while another
# vCPU ran it: there, every JVM (the tests start some) compiles with C2 only.
jit=()
while [ $# -gt 0 ]; do
    case "$1" in
        --kvm) guest+=(--kvm); shift ;;
        --mttcg) guest+=(--mttcg); jit=(env JAVA_TOOL_OPTIONS=-XX:-TieredCompilation); shift ;;
        --timeout) guest+=(--timeout "$2"); shift 2 ;;
        --host) on_host=true; shift ;;
        *) break ;;
    esac
done
selection=("$@")
[ ${#selection[@]} -gt 0 ] || selection=(--select-package io.xio.engine --include-tag rdma)

if ! [ -f /usr/include/infiniband/verbs.h ] || ! [ -f /usr/include/rdma/rdma_cma.h ]; then
    echo "[rdma-tests] installing the rdma-core headers the native library is built with"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcc libibverbs-dev librdmacm-dev >/dev/null
fi

out=xio-engine/target/rdma-tests
mkdir -p "$out"
junit=org.junit.platform:junit-platform-console-standalone:6.0.3
./mvnw -B -q -pl xio-engine test-compile dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$PWD/$out/classpath.txt"
./mvnw -B -q -pl xio-engine dependency:copy -Dartifact="$junit" -DoutputDirectory="$PWD/$out" -Dmdep.stripVersion=true
[ -f xio-engine/target/classes/META-INF/native/linux-$(uname -m)/libdisni.so ] ||
    { echo "[rdma-tests] libdisni.so was not built; see the [xio] lines of the build above" >&2; exit 2; }
# The console launcher brings its own JUnit; the rest of the test class path comes from the build.
deps="$(tr ':' '\n' < "$out/classpath.txt" | grep -v '/org/junit/' | paste -sd: -)"
cp="$PWD/xio-engine/target/test-classes:$PWD/xio-engine/target/classes:$deps"
# One class path for launcher and tests, so that java.class.path is complete for the JVMs the tests spawn.
run=("${jit[@]}" java -Xmx1g --add-exports java.base/sun.nio.ch=ALL-UNNAMED -XX:ErrorFile=/tmp/xio-hs_err_%p.log
    -cp "$PWD/$out/junit-platform-console-standalone.jar:$cp" org.junit.platform.console.ConsoleLauncher
    execute --disable-banner --disable-ansi-colors --details=tree "${selection[@]}")
if $on_host; then
    "${run[@]}"
else
    # A JVM crash report would stay inside the guest: print its head on the console.
    "${guest[@]}" -- bash -c '"$@"; code=$?; for f in /tmp/xio-hs_err_*.log; do [ -f "$f" ] && head -60 "$f"; done; exit $code' \
        rdma-tests "${run[@]}"
fi
