#!/usr/bin/env bash
# Runs a command inside a QEMU guest that has real kernel verbs: Soft-RoCE (rdma_rxe) on a dummy netdev.
#
#   integration-tests/rdma/run-guest.sh [--kvm | --mttcg] [--timeout SECONDS] [--memory MiB] -- COMMAND [ARGS...]
#
# The guest boots this machine's Debian kernel with a BusyBox initramfs built here at run time, mounts the
# host's / read-only over virtio-9p with a tmpfs overlay on top (so it sees the same files and JDK), brings
# up rxe0 on 10.77.0.1 (netdev xio0), runs COMMAND in the current directory and powers off. The script exits
# with COMMAND's exit code; 124 when the guest did not finish in time; 125 when it never reported one.
# The guest's console goes to stdout. Needs root (apt-get, 9p passthrough). Installs what it needs.
# Without --kvm it emulates (TCG): everything runs many times slower than on the host, so prepare class
# paths on the host and run plain `java` in the guest, never a build. TCG runs all vCPUs on one host thread
# by default: with one thread per vCPU (--mttcg, faster) we saw the guest's JVM crash twice in freshly
# patched JIT code (SIGILL/SIGSEGV at C1 method entries), which cross-vCPU code patching under MTTCG can cause:
# with --mttcg, run JVMs C2-only (-XX:-TieredCompilation), as run-tests.sh and the benchmark do.
set -euo pipefail

accel="tcg,thread=single"
cpu="max"
# Under TCG the kernel distrusts the TSC and falls back to the emulated HPET: every clock read (System.nanoTime,
# which an event loop calls each turn) becomes a syscall plus emulated MMIO, ~1.2 us, where on hardware it costs
# ~20 ns. QEMU's TCG TSC is one monotonic host clock shared by all vCPUs, so trusting it is safe.
clock="clocksource=tsc tsc=reliable"
limit=900
memory=3072
while [ $# -gt 0 ]; do
    case "$1" in
        --kvm) accel="kvm"; cpu="host"; clock=""; shift ;;
        --mttcg) accel="tcg,thread=multi"; shift ;;
        --timeout) limit="$2"; shift 2 ;;
        --memory) memory="$2"; shift 2 ;;
        --) shift; break ;;
        *) echo "usage: $0 [--kvm | --mttcg] [--timeout SECONDS] [--memory MiB] -- COMMAND [ARGS...]" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "$0: no command given" >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
packages=(qemu-system-x86 linux-image-amd64 rdma-core ibverbs-utils rdmacm-utils ibverbs-providers libibverbs1
    librdmacm1 libibverbs-dev librdmacm-dev qperf perftest busybox-static iproute2 kmod cpio)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "[rdma-guest] installing ${missing[*]}"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

# The newest installed kernel that has the Soft-RoCE driver.
kver=""
for k in $(ls /lib/modules | sort -V); do
    [ -f "/boot/vmlinuz-$k" ] && modprobe -S "$k" --show-depends rdma_rxe >/dev/null 2>&1 && kver="$k"
done
[ -n "$kver" ] || { echo "[rdma-guest] no kernel with rdma_rxe under /boot and /lib/modules" >&2; exit 2; }

work="$(mktemp -d /tmp/xio-rdma-guest.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/initramfs"/{bin,dev,proc,sys,mnt/lower,mnt/rw,newroot,modules} "$work/results"
cp /bin/busybox "$work/initramfs/bin/busybox"
# Modules in dependency order, each once; parameters as modprobe would pass them (dummy: none wanted).
: > "$work/initramfs/modules/order"
for m in virtio_pci 9pnet_virtio 9p overlay dummy rdma_rxe rdma_ucm; do
    modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
    base="$(basename "$ko")"
    case "$ko" in
        *.ko.xz) xz -dc "$ko" > "$work/initramfs/modules/${base%.xz}"; base="${base%.xz}" ;;
        *.ko.zst) zstd -qdc "$ko" > "$work/initramfs/modules/${base%.zst}"; base="${base%.zst}" ;;
        *) cp "$ko" "$work/initramfs/modules/$base" ;;
    esac
    echo "$base" >> "$work/initramfs/modules/order"
done
cat > "$work/initramfs/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev
mount -t proc proc /proc
mount -t sysfs sys /sys
while read -r ko; do insmod "/modules/$ko" || echo "[rdma-guest] insmod $ko failed"; done < /modules/order
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 hostroot /mnt/lower
mount -t tmpfs -o size=75% rw /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work /newroot
mkdir -p /newroot/xio-results
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 results /newroot/xio-results
mount --move /dev /newroot/dev
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
exec switch_root /newroot /bin/bash /xio-results/guest.sh
INIT
chmod +x "$work/initramfs/init"
(cd "$work/initramfs" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initramfs.gz"

# What the guest runs after switch_root: network, rxe, the job, its exit code, power off.
{
    echo '#!/bin/bash'
    # /tmp stays the overlay's (the host's files visible, writes in guest memory): a checkout may live there.
    echo 'mkdir -p /dev/shm /dev/pts; mount -t tmpfs shm /dev/shm; mount -t devpts devpts /dev/pts'
    echo 'ip link set lo up; ip link add xio0 type dummy; ip addr add 10.77.0.1/24 dev xio0; ip link set xio0 up'
    echo 'rdma link add rxe0 type rxe netdev xio0 || echo "[rdma-guest] rdma link add failed"'
    echo 'echo "[rdma-guest] up: $(ls /sys/class/infiniband 2>/dev/null) on $(uname -r) after $(cut -d" " -f1 /proc/uptime) s"'
    printf 'export XIO_RDMA_ADDRESS=10.77.0.1 PATH=%q HOME=%q JAVA_HOME=%q\n' "$PATH" "${HOME:-/root}" "${JAVA_HOME:-}"
    printf 'cd %q\n' "$PWD"
    printf '%q ' "$@"; echo '< /dev/null'
    echo 'code=$?'
    echo 'echo $code > /xio-results/exit-code; sync'
    echo 'echo "[rdma-guest] job exit code $code after $(cut -d" " -f1 /proc/uptime) s"'
    echo 'echo 1 > /proc/sys/kernel/sysrq; echo o > /proc/sysrq-trigger; sleep 10'
} > "$work/results/guest.sh"

echo "[rdma-guest] booting $kver under QEMU ($accel), limit ${limit}s: $*"
set +e
timeout --kill-after=10 "$limit" qemu-system-x86_64 \
    -accel "$accel" -cpu "$cpu" -smp "$(nproc)" -m "$memory" \
    -bios /usr/share/qemu/qboot.rom -nographic -no-reboot -nodefaults -serial stdio \
    -kernel "/boot/vmlinuz-$kver" -initrd "$work/initramfs.gz" \
    -append "console=ttyS0 quiet panic=-1 rdinit=/init $clock" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs "local,path=$work/results,mount_tag=results,security_model=none"
status=$?
set -e
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "[rdma-guest] the guest did not finish within ${limit}s" >&2
    exit 124
fi
if [ ! -s "$work/results/exit-code" ]; then
    echo "[rdma-guest] the guest reported no exit code (qemu exit $status)" >&2
    exit 125
fi
exit "$(cat "$work/results/exit-code")"
