#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1015-pvcreate-batch: pvcreate of many devices writes them as a few batches through
# the I/O seam's queue (meta/pv_new.c), in LVM2's order, step by step over all devices:
# the labels found now zeroed, then every metadata area header (durable), then every
# label (sectors 0-3):
#   * the PVs are byte for byte what LVM2's pvcreate writes (sectors 0-3 but the
#     label's UUID and CRC, the 4 KiB at the area header), LVM2's pvs reads the same
#     fields from them as lvx's pvs;
#   * the writes: one per old label sector, then one header per device, then one
#     label per device, in that order, and no separate flush;
#   * a crash right after each write (LVX_TEST_CRASH_AFTER_WRITE=k; one device was a
#     PV already): every device is either no PV at all for both tools or a complete
#     PV for both (LVM2's pvck clean), and no label lands before every header of the
#     batch: the PV count is exactly the labels written;
#   * a failing header write: that device gets no label, the others are PVs, exit 5;
#   * a device with a filesystem signature is refused (exit 5) and nothing at all is
#     written, to it or to the others named with it; with -y it is wiped and a PV;
#   * -Z n keeps sectors 0-3 but for the label (as LVM2);
#   * pvremove of them all: one write per label, read as no PV by both tools.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

# shellcheck source=tests/tools/crash_walk.sh
. "$LVX_ROOT/tests/tools/crash_walk.sh"

COUNT=6
crash_begin "$COUNT" mkfs.ext4
P=("${D[@]:0:5}")          # the devices made PVs; D[5] carries a filesystem
NP=${#P[@]}
LOG=$SCRATCH/io.log

# head DEV...: sha256 of the first 1 MiB of each device, one line
head_sums() {
    "$PYTHON" - "$@" <<'PY'
import hashlib, os, sys
out = []
for dev in sys.argv[1:]:
    fd = os.open(dev, os.O_RDONLY)
    out.append(hashlib.sha256(os.pread(fd, 1 << 20, 0)).hexdigest()[:16])
    os.close(fd)
print(" ".join(out))
PY
}

# snap save|restore|zero: the first 256 KiB of every PV device
snap() { heads "$1" "${P[@]}"; }

# layout DEV...: sectors 0-3 with the label's UUID (32..63 of its sector) and CRC
# (16..19) blanked, and the 4 KiB at 4096, hashed: what is equal between two tools
layout() {
    "$PYTHON" - "$@" <<'PY'
import hashlib, os, sys
out = []
for dev in sys.argv[1:]:
    fd = os.open(dev, os.O_RDONLY)
    head = bytearray(os.pread(fd, 2048, 0))
    area = os.pread(fd, 4096, 4096)
    os.close(fd)
    for s in range(4):
        if head[s * 512:s * 512 + 8] == b"LABELONE":
            head[s * 512 + 16:s * 512 + 20] = bytes(4)
            head[s * 512 + 32:s * 512 + 64] = bytes(32)
    out.append(hashlib.sha256(bytes(head) + area).hexdigest()[:16])
print(" ".join(out))
PY
}

PV_FIELDS=pv_name,pv_uuid,pv_size,dev_size,pe_start,pv_mda_count,pv_mda_size,pv_mda_free,pv_ext_vsn,pv_attr,pv_ba_start,pv_ba_size
report() { pv_report "$1"; }
# the PVs each tool lists: "lvx N / LVM2 M"
pv_count() {
    echo "$(report lvx | grep -c .) $(report lvm2 | grep -c .)"
}

# ---- LVM2's PVs, then lvx's on the same devices ---------------------------------------
mkfs.ext4 -q -F "${D[5]}" >/dev/null 2>&1
lvm2 pvcreate -q "${P[@]}" >"$SCRATCH/out" 2>&1
test_eq "LVM2 pvcreate of $NP devices" "$?" 0
want=$(layout "${P[@]}")
want_rep=$(report lvm2 | awk '{ $2 = "-"; print }')
lvm2 pvremove -q "${P[@]}" >/dev/null 2>&1
snap zero
snap save                                   # fresh devices, no signature

rc=0
LVX_TEST_IO_LOG=$LOG X pvcreate "${P[@]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
test_eq "lvx pvcreate of $NP devices" "$rc:$(grep -c 'successfully created' "$SCRATCH/out")" "0:$NP"
test_eq "the bytes LVM2 writes (sectors 0-3 but UUID and CRC, the area header)" \
    "$(layout "${P[@]}")" "$want"
test_eq "LVM2's pvs reads the fields of LVM2's own PVs (UUIDs aside)" \
    "$(report lvm2 | awk '{ $2 = "-"; print }')" "$want_rep"
test_eq "LVM2's pvs and lvx's pvs read the same fields" "$(report lvm2)" "$(report lvx)"
for dev in "${P[@]}"; do
    lvm2 pvck "$dev" >>"$SCRATCH/pvck" 2>&1 || echo "pvck $dev failed" >>"$SCRATCH/pvck.bad"
done
test_eq "LVM2's pvck finds every PV clean" "$(cat "$SCRATCH/pvck.bad" 2>/dev/null)" ""
order=$(awk '$1 == "write" { print $3 ":" $4 }' "$LOG" |
        awk '{ k = $1 == "4096:4096" ? "H" : $1 == "0:2048" ? "L" : "?"; printf "%s", k }')
test_eq "writes: $NP area headers, then $NP labels" "$order" \
    "$(printf 'H%.0s' "${P[@]}")$(printf 'L%.0s' "${P[@]}")"
test_eq "no separate device flush" "$(grep -c '^flush ' "$LOG")" 0

# ---- a crash after each write, the first device a PV already ------------------------------
snap restore
X pvcreate -q "${P[0]}" >/dev/null 2>&1
snap save
rm -f "$LOG"
LVX_TEST_IO_LOG=$LOG X pvcreate "${P[@]}" >/dev/null 2>&1
mapfile -t W < <(awk '$1 == "write" { print $3 ":" $4 }' "$LOG")
NW=${#W[@]}
test_eq "over a PV: its old label zeroed first, then the headers and labels" \
    "$(printf '%s\n' "${W[@]}" | awk '{ k = $1 == "512:512" ? "U" : $1 == "4096:4096" ? "H" : $1 == "0:2048" ? "L" : "?"; printf "%s", k }')" \
    "U$(printf 'H%.0s' "${P[@]}")$(printf 'L%.0s' "${P[@]}")"
bad=0
for ((k = 1; k <= NW; k++)); do
    snap restore
    rc=0
    LVX_TEST_CRASH_AFTER_WRITE=$k X pvcreate "${P[@]}" >/dev/null 2>&1 || rc=$?
    labels=$((k - 1 - NP))
    ((labels < 0)) && labels=0
    got=$(pv_count)
    clean=0
    while read -r name _; do
        lvm2 pvck "$name" >/dev/null 2>&1 || clean=1
    done < <(report lvm2)
    if [[ $rc != 99 || $got != "$labels $labels" || $clean != 0 ]]; then
        diag "crash after write $k/$NW: exit $rc, PVs (lvx LVM2) $got, want $labels, pvck $clean"
        bad=$((bad + 1))
    fi
done
test_eq "a crash after each of the $NW writes: no PV but those whose label landed, each complete" \
    "$bad" 0

# ---- a failing area header ---------------------------------------------------------------
snap restore
rc=0
LVX_TEST_FAIL_WRITE=3 X pvcreate "${P[@]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
msg=$(grep -c "Failed to write physical volume \"${P[1]}\"" "$SCRATCH/err")
test_eq "write 3 (the second device's header) fails: exit 5, its message, the others PVs" \
    "$rc:$msg:$(pv_count):$(report lvm2 | grep -c "^${P[1]} ")" "5:1:$((NP - 1)) $((NP - 1)):0"

# ---- a filesystem signature ---------------------------------------------------------------
snap restore
before=$(head_sums "${D[@]}")
rm -f "$LOG"
rc=0
LVX_TEST_IO_LOG=$LOG X pvcreate "${P[@]}" "${D[5]}" </dev/null >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
test_eq "an ext4 device among them: refused, exit 5, naming it" \
    "$rc:$(grep -c "${D[5]}.*ext4\|ext4.*${D[5]}" "$SCRATCH/err")" "5:1"
test_eq "nothing written to any device" "$(grep -c '^write ' "$LOG")|$(head_sums "${D[@]}")" \
    "0|$before"
rc=0
X pvcreate -y "${D[5]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
test_eq "with -y: wiped, a PV LVM2 reads, no ext4 left" \
    "$rc:$(lvm2 pvs --noheadings -o pv_name "${D[5]}" 2>/dev/null | awk '{ print $1 }'):$(blkid -p -o value -s TYPE "${D[5]}" 2>/dev/null)" \
    "0:${D[5]}:LVM2_member"
X pvremove -q -y "${D[5]}" >/dev/null 2>&1

# ---- -Z n --------------------------------------------------------------------------------
snap restore
"$PYTHON" -c 'import os,sys; fd = os.open(sys.argv[1], os.O_RDWR); os.pwrite(fd, b"lvx-t1015-keep" * 8, 100); os.pwrite(fd, b"third" * 10, 1024 + 100); os.fsync(fd)' "${P[0]}"
X pvcreate -q -Z n "${P[0]}" >/dev/null 2>&1
lvx_head=$(layout "${P[0]}")
lvm2 pvremove -q "${P[0]}" >/dev/null 2>&1
"$PYTHON" -c 'import os,sys; fd = os.open(sys.argv[1], os.O_RDWR); os.pwrite(fd, b"lvx-t1015-keep" * 8, 100); os.pwrite(fd, b"third" * 10, 1024 + 100); os.fsync(fd)' "${P[0]}"
lvm2 pvcreate -q -Z n "${P[0]}" >/dev/null 2>&1
test_eq "-Z n keeps sectors 0-3 but the label, as LVM2" "$lvx_head" "$(layout "${P[0]}")"
lvm2 pvremove -q "${P[0]}" >/dev/null 2>&1

# ---- pvremove -------------------------------------------------------------------------------
snap restore
X pvcreate -q "${P[@]}" >/dev/null 2>&1
rm -f "$LOG"
rc=0
LVX_TEST_IO_LOG=$LOG X pvremove "${P[@]}" >"$SCRATCH/out" 2>&1 || rc=$?
test_eq "pvremove: one write per label, no PV left for either tool" \
    "$rc:$(awk '$1 == "write" { print $3 ":" $4 }' "$LOG" | sort | uniq -c | awk '{ $1 = $1; print }'):$(pv_count)" \
    "0:$NP 512:512:0 0"

# ---- the probe's reads ------------------------------------------------------------------------
# libblkid's probers read some 34 small pieces of a device, one after the other; the
# places they read are asked for at once first (dev/signature.c), so the loop device
# sees a few larger reads (8 in all for pvcreate of one device; 35 before)
reads() { awk '{ print $1 }' "/sys/block/$(basename "$1")/stat"; }
before=$(reads "${P[0]}")
X pvcreate -q "${P[0]}" >/dev/null 2>&1
after=$(reads "${P[0]}")
X pvremove -q -y "${P[0]}" >/dev/null 2>&1
test_ok "pvcreate of one device: at most 12 read requests reach it ($((after - before)))" \
    test "$((after - before))" -le 12

done_testing
