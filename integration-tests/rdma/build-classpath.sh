#!/usr/bin/env bash
# Builds xio-rdma with its native part (-Prdma-native, installing gcc and the rdma-core headers when missing)
# and writes the test class path the guest runs with to xio-rdma/target/rdma-tests/classpath.txt; prints the
# directory. Shared by run-tests.sh and run-benchmark.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

if ! command -v gcc >/dev/null || ! [ -f /usr/include/infiniband/verbs.h ] || ! [ -f /usr/include/rdma/rdma_cma.h ]; then
    echo "[rdma] installing gcc and the rdma-core headers the native library is built with" >&2
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcc libibverbs-dev librdmacm-dev >/dev/null
fi

out=xio-rdma/target/rdma-tests
mkdir -p "$out"
# In one reactor, so the engine resolves to this build (its jar and test jar), not to a local repository's copy;
# the engine's class path is written first, then overwritten by xio-rdma's.
./mvnw -B -q -pl xio-rdma -am -Prdma-native -DskipTests package dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$PWD/$out/deps.txt" >&2
jar=$(ls xio-rdma/target/xio-rdma-*-linux-*.jar)
unzip -l "$jar" | grep -q "META-INF/native/linux-$(uname -m)/libdisni.so" ||
    { echo "[rdma] $jar has no libdisni.so" >&2; exit 2; }
# The freshly built native jar first; then the module's classes and its test class path from the build.
echo "$PWD/xio-rdma/target/test-classes:$PWD/xio-rdma/target/classes:$PWD/$jar:$(cat "$out/deps.txt")" > "$out/classpath.txt"
echo "$out"
