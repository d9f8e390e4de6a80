#!/usr/bin/env bash
# Makes a Docker engine available and builds the images the multi-host tests run, without any image registry: the
# sample app's (an empty root with static BusyBox, this host's JDK and the C libraries it links against) and a
# Prometheus server's (BusyBox and the binary of Debian's prometheus package, unpacked, not installed; it scrapes
# the sample's /actuator/prometheus). Idempotent: an engine already running and an image already built are left as
# they are; the Prometheus image is rebuilt when apt offers another version of the package.
#   XIO_TEST_IMAGE         image name to build (default xio/jdk-local:17)
#   XIO_PROMETHEUS_IMAGE   the Prometheus image's name (default xio/prometheus-local:2)
set -euo pipefail

IMAGE="${XIO_TEST_IMAGE:-xio/jdk-local:17}"
PROMETHEUS_IMAGE="${XIO_PROMETHEUS_IMAGE:-xio/prometheus-local:2}"
log() { echo "[setup-docker] $*"; }

if ! docker info >/dev/null 2>&1; then
    if ! command -v dockerd >/dev/null 2>&1 || ! command -v busybox >/dev/null 2>&1; then
        log "installing docker.io and busybox-static"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq docker.io busybox-static >/dev/null
    fi
    echo 1 >/proc/sys/net/ipv4/ip_forward
    log "starting dockerd"
    # Pulls go to a closed port and fail at once: nothing here may come from a registry.
    HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 NO_PROXY=localhost,127.0.0.1 \
        nohup dockerd >/var/log/xio-dockerd.log 2>&1 &
    for _ in $(seq 1 60); do
        docker info >/dev/null 2>&1 && break
        sleep 0.5
    done
    docker info >/dev/null 2>&1 || { log "dockerd did not start; see /var/log/xio-dockerd.log"; tail -20 /var/log/xio-dockerd.log; exit 1; }
fi

# The Prometheus server: the binary of Debian's prometheus package, unpacked with dpkg-deb (not installed: its
# postinst would start a prometheus daemon on this host, and its dependencies are not needed), plus the C library
# it links (cgo) and the resolver libraries. The image is tagged with the package's version too and rebuilt when
# the version apt offers changes.
prometheus_version() { apt-cache show prometheus 2>/dev/null | sed -n 's/^Version: //p' | head -1; }
PROM_VERSION="$(prometheus_version)"
if [ -z "$PROM_VERSION" ]; then
    apt-get update -qq
    PROM_VERSION="$(prometheus_version)"
fi
[ -n "$PROM_VERSION" ] || { log "apt knows no prometheus package"; exit 1; }
PROM_TAG="${PROMETHEUS_IMAGE%:*}:$(echo "$PROM_VERSION" | tr -c 'A-Za-z0-9_.\n-' '_')"
BUILT_VERSION="$(docker image inspect -f '{{index .Config.Labels "xio.prometheus.version"}}' "$PROMETHEUS_IMAGE" \
    2>/dev/null || true)"
if [ "$BUILT_VERSION" != "$PROM_VERSION" ]; then
    if ! command -v busybox >/dev/null 2>&1; then
        log "installing busybox-static"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq busybox-static >/dev/null
    fi
    if ldd "$(command -v busybox)" >/dev/null 2>&1; then log "busybox is not static: apt-get install busybox-static"; exit 1; fi
    log "building $PROMETHEUS_IMAGE ($PROM_TAG) from Debian's prometheus $PROM_VERSION${BUILT_VERSION:+ (was $BUILT_VERSION)}"
    PROM_ROOT="$(mktemp -d)"
    PROM_DEB="$(mktemp -d)"
    # apt-get download writes into the current directory; _apt must be able to write there.
    chmod 755 "$PROM_DEB"
    (cd "$PROM_DEB" && apt-get download -qq "prometheus=$PROM_VERSION" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true)
    ls "$PROM_DEB"/prometheus_*.deb >/dev/null 2>&1 || { log "apt-get download prometheus=$PROM_VERSION failed"; exit 1; }
    dpkg-deb -x "$PROM_DEB"/prometheus_*.deb "$PROM_DEB/pkg"
    PROM_BIN="$PROM_DEB/pkg/usr/bin/prometheus"
    mkdir -p "$PROM_ROOT"/{bin,tmp,etc/prometheus}
    chmod 1777 "$PROM_ROOT/tmp"
    cp "$(command -v busybox)" "$PROM_ROOT/bin/busybox"
    for applet in sh ls cat ps kill sleep env wget; do ln -s busybox "$PROM_ROOT/bin/$applet"; done
    cp "$PROM_BIN" "$PROM_ROOT/bin/prometheus"
    { ldd "$PROM_BIN" || true; } | grep -o '/[^ ]*\.so[^ ]*' | sort -u | while read -r lib; do
        mkdir -p "$PROM_ROOT$(dirname "$lib")" && cp -L "$lib" "$PROM_ROOT$lib"
    done
    for lib in /lib/x86_64-linux-gnu/libnss_dns.so.2 /lib/x86_64-linux-gnu/libnss_files.so.2 \
               /lib/x86_64-linux-gnu/libresolv.so.2; do
        [ -e "$lib" ] && mkdir -p "$PROM_ROOT$(dirname "$lib")" && cp -L "$lib" "$PROM_ROOT$lib"
    done
    echo "hosts: files dns" >"$PROM_ROOT/etc/nsswitch.conf"
    echo "root:x:0:0:root:/tmp:/bin/sh" >"$PROM_ROOT/etc/passwd"
    tar -C "$PROM_ROOT" -c . | docker import --change 'ENV PATH=/bin' --change 'WORKDIR /tmp' \
        --change "LABEL xio.prometheus.version=$PROM_VERSION" - "$PROM_TAG" >/dev/null
    docker tag "$PROM_TAG" "$PROMETHEUS_IMAGE"
    rm -rf "$PROM_ROOT" "$PROM_DEB"
    log "built $PROMETHEUS_IMAGE ($PROM_TAG)"
    docker run --rm "$PROMETHEUS_IMAGE" prometheus --version 2>&1 | sed -n 1p
else
    log "image $PROMETHEUS_IMAGE already present (Debian's prometheus $PROM_VERSION)"
fi

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
    log "image $IMAGE already present"
    exit 0
fi

if ! command -v busybox >/dev/null 2>&1; then
    log "installing busybox-static"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq busybox-static >/dev/null
fi
JAVA_HOME_DIR="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
BUSYBOX="$(command -v busybox)"
# ldd fails on a static executable; a dynamic BusyBox would not run in the image.
if ldd "$BUSYBOX" >/dev/null 2>&1; then log "$BUSYBOX is not static: apt-get install busybox-static"; exit 1; fi
log "building $IMAGE from $JAVA_HOME_DIR"
ROOT="$(mktemp -d)"
trap 'rm -rf "$ROOT"' EXIT
mkdir -p "$ROOT"/{bin,tmp,etc,opt,app}
chmod 1777 "$ROOT/tmp"
cp "$BUSYBOX" "$ROOT/bin/busybox"
for applet in sh ls cat ps kill sleep env mkdir rm; do ln -s busybox "$ROOT/bin/$applet"; done
cp -a "$JAVA_HOME_DIR" "$ROOT/opt/jdk"
# Debian's JDK links some files (cacerts, security policy) into /etc: bring their targets along.
find "$ROOT/opt/jdk" -type l | while read -r link; do
    target="$(readlink -f "$link" || true)"
    if [ -n "$target" ] && [ -e "$target" ] && [ "${target#$JAVA_HOME_DIR}" = "$target" ]; then
        rm "$link" && cp -L "$target" "$link"
    fi
done
# Every shared library the JDK's executables and libraries need, at the same paths, plus the loader.
{ find "$ROOT/opt/jdk" -type f \( -name '*.so' -o -perm -u+x \) -print0 | xargs -0 ldd 2>/dev/null || true; } |
    grep -o '/[^ ]*\.so[^ ]*' | sort -u | while read -r lib; do
        [ -e "$lib" ] || continue
        mkdir -p "$ROOT$(dirname "$lib")"
        cp -L "$lib" "$ROOT$lib"
    done
for lib in /lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/libnss_dns.so.2 /lib/x86_64-linux-gnu/libnss_files.so.2 \
           /lib/x86_64-linux-gnu/libresolv.so.2; do
    [ -e "$lib" ] && mkdir -p "$ROOT$(dirname "$lib")" && cp -L "$lib" "$ROOT$lib"
done
echo "hosts: files dns" >"$ROOT/etc/nsswitch.conf"
echo "root:x:0:0:root:/tmp:/bin/sh" >"$ROOT/etc/passwd"
tar -C "$ROOT" -c . | docker import \
    --change 'ENV PATH=/opt/jdk/bin:/bin' --change 'ENV JAVA_HOME=/opt/jdk' --change 'WORKDIR /app' \
    - "$IMAGE" >/dev/null
log "built $IMAGE ($(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}'))"
docker run --rm "$IMAGE" java -version 2>&1 | sed -n 1p  # sed reads it all: head would close the pipe early and pipefail turn SIGPIPE into a failure
