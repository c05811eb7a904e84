#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/kernel/shared-vg.sh - runs INSIDE a kvm-dm-test guest (started by
# tests/cli/t0722-kernel-shared-vg.sh) with 2 virtio disks, lvx at /t/lvx, the host's
# sanlock at /usr/sbin/sanlock (and libsanlock_client for lvx) and the fuse module
# loaded.  Two "hosts" on the one guest: two sanlock daemons without watchdog, A with the
# default run directory (lvx, host_id 1, the dm backend) and B with
# SANLOCK_RUN_DIR=/run/sanlockB (host_id 2: it joins the lockspace with lvx and holds
# the LV's lease with `sanlock command`, a process of its own, as another host's
# lvmlockd would).  Prints TAP.
#
# Checks: vgcreate --shared + lockstart; lvcreate and lvchange -aey in the dm backend:
# the LV's lease held (exclusive) by the lvx daemon's worker pid and the dm device
# there; -an: device gone, lease released; -asy: a shared lease (sanlock shows it
# shared, host B's exclusive acquire fails); host B holding the lease: -aey and -asy
# refused with LVM2's lines, exit 5, no dm device made; vgchange -ay/-an; SIGKILL of
# the worker: sanlock no longer lists the lease, the dm device stays, and -aey of the
# still active LV takes the lease again in the new worker (host B's try is reported).
# shellcheck disable=SC2317,SC2086
# shellcheck source=tests/kernel/guest-tap.sh
. /t/guest-tap.sh

export LVX_ACTIVATION_BACKEND=dm LVX_SANLOCK_IO_TIMEOUT=5
DISKS="/dev/vda /dev/vdb"
SLEEP=$(type -P sleep) TRUE=$(type -P true)   # sanlock command execs a path
mkdir -p /run/sanlock /run/sanlockB /var/log /etc/lvmA /etc/lvmB /run/lvxB
for h in A:1 B:2; do
    printf 'global {\n    use_lvmlockd = 1\n}\n' >"/etc/lvm${h%:*}/lvm.conf"
    printf 'local {\n    host_id = %d\n}\n' "${h#*:}" >"/etc/lvm${h%:*}/lvmlocal.conf"
done
A() { LVM_SYSTEM_DIR=/etc/lvmA "$@"; }
B() { LVM_SYSTEM_DIR=/etc/lvmB SANLOCK_RUN_DIR=/run/sanlockB LVX_RUN_DIR=/run/lvxB "$@"; }

sanlock daemon -D -w 0 -l 0 -h 0 -U root -G root >/tmp/sanlockA.log 2>&1 &
SANLOCK_RUN_DIR=/run/sanlockB sanlock daemon -D -w 0 -l 0 -h 0 -U root -G root \
    >/tmp/sanlockB.log 2>&1 &
for _ in $(seq 100); do
    [ -S /run/sanlock/sanlock.sock ] && [ -S /run/sanlockB/sanlock.sock ] && break
    sleep 0.2
done
check "two sanlock daemons run (hosts A and B, no watchdog)" \
    sh -c '[ -S /run/sanlock/sanlock.sock ] && [ -S /run/sanlockB/sanlock.sock ]'
check "the fuse module is there for the lvx daemon" test -c /dev/fuse

check "A: lvx vgcreate --shared sv" A $LVX vgcreate -q --shared sv $DISKS
check "A: lvx vgchange --lockstart sv (host_id 1)" A $LVX vgchange --lockstart sv
check "B: lvx vgchange --lockstart sv (host_id 2)" B $LVX vgchange --lockstart sv
check "A: lvx lvcreate -L 16m -n lv1 sv (dm backend: activated)" A $LVX lvcreate -q -y -L 16m -n lv1 sv
emit "# set up at ${SECONDS}s"

UUID=$(A $LVX lvs --noheadings -o lv_uuid sv/lv1 | trim)
worker() {
    local w
    w=$(A $LVX daemon status 2>/dev/null | sed -n 's/.*worker \([0-9]*\).*/\1/p')
    echo "${w:-no worker}"
}
# the LV's resource line(s) in host A's sanlock: "r lvm_sv:UUID:/dev/vda:OFFSET:LVER p PID"
lease_line() { sanlock client status | grep "^r lvm_sv:$UUID:" ; }
lease_pid() {
    local p
    p=$(lease_line | awk '{ print $NF }')
    echo "${p:-no lease}"
}
table() { dmsetup table sv-lv1 2>/dev/null; }
# b_try RES: host B acquires RES exclusively in a process of its own that exits at once:
# "acquired" or "refused"
b_try() {
    if B sanlock command -r "$1" -c "$TRUE" 2>&1 | grep -q "acquire done 0"; then
        echo acquired
    else
        echo refused
    fi
}

check_eq "lvcreate: the lease of sv/lv1 held by the lvx daemon's worker" \
    "$(lease_pid)" "$(worker)"
check "A: lvx lvchange -an sv/lv1" A $LVX lvchange -an sv/lv1
check_eq "-an: no dm device for sv/lv1" "$(table)" ""
check_eq "-an: the lease is released" "$(lease_line)" ""

check "A: lvx lvchange -aey sv/lv1" A $LVX lvchange -aey sv/lv1
line=$(lease_line)
note "$line"
check_eq "-aey: exclusive (not :SH)" "$(grep -c ':SH p ' <<<"$line")" 0
check_eq "-aey: the lease is held by the lvx daemon's worker pid" "$(lease_pid)" "$(worker)"
check_match "-aey: dmsetup table shows sv-lv1 (linear on a disk)" "$(table)" " linear "
# the resource as sanlock takes it: lockspace:name:path:offset (the lease version cut)
RES=$(awk '{ print $2 }' <<<"$line" | cut -d: -f1-4)
check_match "-aey: the resource is the LV's (lockspace lvm_sv, named by its UUID)" "$RES" "lvm_sv:$UUID:/dev/vd"
check_eq "-aey: host B cannot take the lease exclusively" "$(b_try "$RES")" refused
check "A: lvx lvchange -an sv/lv1" A $LVX lvchange -an sv/lv1
check_eq "-an: device gone" "$(table)" ""
check_eq "-an: lease released" "$(lease_line)" ""

check "A: lvx lvchange -asy sv/lv1" A $LVX lvchange -asy sv/lv1
note "$(lease_line)"
check_eq "-asy: the lease is held by the worker" "$(lease_pid)" "$(worker)"
check_match "-asy: sv-lv1 is there" "$(table)" " linear "
check_match "-asy: sanlock shows the lease shared" "$(lease_line)" ":SH p "
check_eq "-asy: host B cannot take it exclusively" "$(b_try "$RES")" refused
check "A: lvx vgchange -an sv" A $LVX vgchange -an sv
check_eq "vgchange -an: device gone" "$(table)" ""
check_eq "vgchange -an: lease released" "$(lease_line)" ""

# host B holds the lease exclusively (its own process, as B's lvmlockd would; sanlock
# itself in the background, so that $! is the pid that holds it)
SANLOCK_RUN_DIR=/run/sanlockB sanlock command -r "$RES" -c "$SLEEP" 600 >/tmp/holdB.log 2>&1 &
HOLD=$!
for _ in $(seq 50); do
    B sanlock client status | grep -q "^r lvm_sv:$UUID:" && break
    sleep 0.2
done
check "host B holds the lease (its sanlock shows it)" sh -c \
    "SANLOCK_RUN_DIR=/run/sanlockB sanlock client status | grep -q '^r lvm_sv:$UUID:'"
out=$(A $LVX lvchange -aey sv/lv1 2>&1 | grep -v "Reading VG sv without a lock"; exit "${PIPESTATUS[0]}"); rc=$?
check_eq "held by host B: lvchange -aey exit 5 with LVM2's lines" "$rc $out" \
    "5   LV locked by other host: sv/lv1
  Failed to lock logical volume sv/lv1."
check_eq "held by host B: no dm device made" "$(table)" ""
check_eq "held by host B: host A holds nothing" "$(lease_line)" ""
out=$(A $LVX vgchange -asy sv 2>&1); rc=$?
check_eq "held by host B: vgchange -asy exit 5" "$rc" 5
note "$out"
check_eq "held by host B: still no dm device" "$(table)" ""
kill "$HOLD"
wait "$HOLD" 2>/dev/null
for _ in $(seq 50); do
    B sanlock client status | grep -q "^r lvm_sv:$UUID:" || break
    sleep 0.2
done
check "host B gone: A: lvx vgchange -aey sv" A $LVX vgchange -aey sv
check_eq "vgchange -aey: the lease is held by the worker" "$(lease_pid)" "$(worker)"

W=$(worker)
kill -9 "$W"
for _ in $(seq 50); do
    [ -z "$(lease_line)" ] && break
    sleep 0.2
done
check_eq "SIGKILL of the worker ($W): sanlock released its lease" "$(lease_line)" ""
check_match "the dm device stays (as with an lvmlockd that dies)" "$(table)" " linear "
# Whether host B may take the lease now is not asserted: the LV is still active on A
# (its dm device stays), and in two runs B's tries were refused for 10 s after the kill
# (sanlock no longer lists the lease for A, yet A's own -aey below takes it at once).
# Which way sanlock settles a dead pid's lease on the disk is left open (issue 19's
# note); the try is reported.
got=refused
for _ in $(seq 10); do
    got=$(b_try "$RES")
    [ "$got" = acquired ] && break
    sleep 0.2
done
note "host B's try for the lease 2 s after the worker's SIGKILL: $got"
check "A: lvx lvchange -aey sv/lv1 of the still active LV" A $LVX lvchange -aey sv/lv1
check_eq "-aey again: the new worker holds the lease" "$(lease_pid)" "$(worker)"
check "A: lvx lvchange -an sv/lv1" A $LVX lvchange -an sv/lv1
check_eq "-an: lease released" "$(lease_line)" ""
check_eq "device gone" "$(table)" ""

A $LVX daemon stop >/dev/null 2>&1
A $LVX vgchange --lockstop sv >/dev/null 2>&1
B $LVX vgchange --lockstop sv >/dev/null 2>&1
guest_done
