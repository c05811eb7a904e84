#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/install-deps.sh - install the Debian 12 packages lvx needs to build and test.
# Idempotent: asks dpkg which packages are missing and installs only those (one
# `apt-get update` first).  Silent when everything is already there.
# Called by `make check` and `make demo`; needs root (or sudo) only when something is missing.
set -euo pipefail

PACKAGES=(
    build-essential     # gcc, make, libc headers
    clang               # fuzz harnesses (libFuzzer)
    libclang-rt-14-dev  # clang 14 runtimes: libFuzzer, ASan, UBSan
    pkg-config
    liburing-dev        # batched parallel device reads
    libblkid-dev        # signature detection (pvcreate, planned)
    libreadline-dev     # line editing in `lvx shell`
    zlib1g-dev          # the unit tests only: fixture decompression, crc32 cross-check
    lvm2                # the real LVM2: oracle in tests/cli
    lvm2-dbusd          # its cmdhandler/lvm_shell_proxy drive lvx in t0840/t0841
    xfsprogs            # filesystems on activated LVs (user-space activation tests, demo)
    e2fsprogs
    fio                 # data verification of activated LVs (t0900), benchmarks
    valgrind            # memory checks of the plain build
    jq                  # JSON in shell tests
    python3             # test tooling (fixture rebuild, report comparison, damage recipes)
    perl                # prove (TAP harness)
    util-linux          # losetup; runuser/setpriv (t0920 runs as an unprivileged user)
    passwd              # useradd/userdel: t0920 creates and removes that user
    gzip
    groff-base          # man pages: `groff -man -ww` checks the generated pages (t0960)
    man-db              # man -l / man -w on the generated and installed pages (t0960, t0962)
    mandoc              # mandoc -T lint on the generated pages (t0960)
    libblockdev-lvm2    # tests/clients (t1500): libblockdev's LVM plugin, udisks2's way to LVM
    gir1.2-blockdev-2.0 #   ... and its GObject binding, with python3-gi
    python3-gi
    lvm2-dbusd          # tests/clients (t1510): lvm2-dbusd's command layer (lvmdbusd)
    ansible             # tests/clients (t1520): community.general.lvg/lvol modules
    sanlock             # shared VGs (t0850): the lock manager daemon of the test hosts
    libsanlock-dev      # vgcreate --shared: sanlock headers (the client library is dlopened)
    lvm2-lockd          # shared VGs (t0850): LVM2's lvmlockd makes the shared VGs lvx reads
    # the VM of tests/tools/kvm-dm-test (device-mapper, md: the kernel as the oracle of
    # RAID, snapshot, thin and pvmove tables); the tool installs them itself too, but a
    # test that checks for qemu first must not depend on another VM test having run
    qemu-system-x86
    busybox-static cpio kmod xz-utils zstd
    dmsetup
    thin-provisioning-tools # thin_check/thin_dump: the kernel's thin metadata checked
    strace              # t0688: a restripe's lvconvert stopped at its reload's connect()
)

# `install-deps.sh --bench`: also what the benchmarks need (not needed by make check)
BENCH_PACKAGES=(
    python3-matplotlib  # bench/stripe, bench/raid, bench/scale: the PNG charts
)
if [[ ${1:-} == --bench ]]; then
    PACKAGES+=("${BENCH_PACKAGES[@]}")
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$pkg")
    fi
done

if ((${#missing[@]} == 0)); then
    exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "install-deps: missing packages (${missing[*]}) and not root; run as root" >&2
        exit 1
    fi
fi

log=$(mktemp /tmp/lvx-install-deps.XXXXXX)
trap 'rm -f "$log"' EXIT
if ! "${SUDO[@]}" apt-get update >"$log" 2>&1; then
    cat "$log" >&2
    echo "install-deps: apt-get update failed" >&2
    exit 1
fi
if ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
    cat "$log" >&2
    echo "install-deps: apt-get install failed" >&2
    exit 1
fi
echo "install-deps: done" >&2
