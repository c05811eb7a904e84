#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1030-vgcreate-implicit-batch: vgcreate naming devices without a PV label makes them
# PVs first (LVM2 2.03's implicit pvcreate) as pvcreate does, in meta/pv_new.c's
# batches over all of them (every area header, then every label), not one device at
# a time with two flushes each; then the VG's own commit:
#   * output: a "successfully created" line per new PV and the VG's; LVM2's pvs/vgs
#     read the same fields as lvx's;
#   * the writes before the VG's: N area headers, then N labels, no device flush
#     (fails on the one-device-at-a-time code: header, label, header, label...);
#   * a PV already among them is not written again by that part;
#   * a crash right after each write: both tools read the same thing, and that is no
#     VG with 0..N complete orphan PVs (never a label before every header) or the
#     whole new VG;
#   * a signature on one device without -y: refused, nothing written to any device;
#   * a later device refused (too small): the earlier ones not wiped, as LVM2.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

# shellcheck source=tests/tools/crash_walk.sh
. "$LVX_ROOT/tests/tools/crash_walk.sh"

COUNT=6
crash_begin "$COUNT" mkfs.ext4
N=5                                   # D[0..4] named to vgcreate; D[5] for the signature
P=("${D[@]:0:N}")
LOG=$SCRATCH/io.log

PV_FIELDS=pv_name,vg_name,pv_size,pe_start,pv_mda_count,pv_mda_size,pv_ext_vsn,pv_attr,pv_pe_count
report() { pv_report "$1"; }

heads zero "${D[@]}"
heads save "${D[@]}"

# ---- vgcreate on unlabelled devices ----------------------------------------------------
rc=0
LVX_TEST_IO_LOG=$LOG X vgcreate vgi "${P[@]}" >"$SCRATCH/out" 2>"$SCRATCH/err" || rc=$?
test_eq "vgcreate of $N unlabelled devices: exit 0, a line per new PV and the VG's" \
    "$rc:$(grep -c 'Physical volume ".*" successfully created.' "$SCRATCH/out"):$(grep -c 'Volume group "vgi" successfully created' "$SCRATCH/out")" \
    "0:$N:1"
test_eq "LVM2's pvs reads the fields lvx's pvs reads" "$(report lvm2)" "$(report lvx)"
test_eq "both tools: $N PVs in vgi, seqno 1" "$(pv_state lvx)|$(pv_state lvm2)" \
    "$N vgi $N 1|$N vgi $N 1"
lvm2 vgck vgi >"$SCRATCH/vgck" 2>&1
test_eq "LVM2 vgck is clean" "$?" 0
mapfile -t W < <(awk '$1 == "write" { print $3 ":" $4 }' "$LOG")
# H: an area header (4096 at 4096), L: sectors 0-3 with the label (2048 at 0)
pre=$(printf '%s\n' "${W[@]:0:2*N}" | awk '{ printf "%s", $1 == "4096:4096" ? "H" : $1 == "0:2048" ? "L" : "?" }')
test_eq "the first writes: $N area headers, then $N labels" "$pre" \
    "$(printf 'H%.0s' "${P[@]}")$(printf 'L%.0s' "${P[@]}")"
first_vg=$(awk '$1 == "write" { n++ } $1 == "flush" { print n; exit }' "$LOG")
test_eq "no device flush before the $((2 * N)) writes of the new PVs are done" \
    "$([[ -z $first_vg || $first_vg -ge $((2 * N)) ]] && echo none || echo "after write $first_vg")" none
NW=${#W[@]}

# ---- a PV among them: only the others are written by the implicit part ------------------
test_ok "vgremove" X vgremove -q -y vgi
heads restore "${D[@]}"
test_ok "pvcreate ${P[0]} alone" X pvcreate -q "${P[0]}"
rm -f "$LOG"
rc=0
LVX_TEST_IO_LOG=$LOG X vgcreate vgi "${P[@]}" >"$SCRATCH/out" 2>&1 || rc=$?
test_eq "vgcreate of a PV and $((N - 1)) unlabelled devices: $((N - 1)) new PVs, the VG" \
    "$rc:$(grep -c 'Physical volume ".*" successfully created.' "$SCRATCH/out"):$(grep -c "Physical volume \"${P[0]}\"" "$SCRATCH/out"):$(pv_state lvm2)" \
    "0:$((N - 1)):0:$N vgi $N 1"
test_eq "new labels (2048 bytes at 0) on the $((N - 1)) others, none on ${P[0]}" \
    "$(for d in "${P[@]}"; do awk -v d="$d" '$1 == "write" && $5 == d && $3 == 0 && $4 == 2048 { n++ } END { printf "%d", n }' "$LOG"; done)" \
    "0$(printf '1%.0s' "${P[@]:1}")"
test_ok "vgremove" X vgremove -q -y vgi

# ---- a crash after each write ----------------------------------------------------------
CRASH_BAD=0
SEQ=""
for ((k = 1; k <= NW; k++)); do
    heads restore "${D[@]}"
    rc=0
    LVX_TEST_CRASH_AFTER_WRITE=$k X vgcreate vgi "${P[@]}" >"$SCRATCH/out" 2>&1 || rc=$?
    x=$(pv_state lvx)
    l=$(pv_state lvm2)
    if [[ $x != "$l" ]]; then
        st="lvx '$x' LVM2 '$l'"
    elif [[ -z $x ]]; then
        st=z                                      # no PV yet
    elif [[ $x =~ ^[1-$N]\ 0\ 0$ ]]; then
        st=o                                      # orphans, no VG
    elif [[ $x == "$N vgi $N 1" ]]; then
        st=n
    else
        st="both '$x'"
    fi
    if [[ $rc != 99 || ${#st} != 1 ]]; then
        diag "crash after write $k/$NW: exit $rc, state $st"
        CRASH_BAD=$((CRASH_BAD + 1))
    fi
    SEQ+=${st:0:1}
done
test_eq "a crash after each of the $NW writes: no PV, orphans, or the new VG, for both tools" \
    "$CRASH_BAD" 0
test_eq "no PV until every header is written, then orphans, then the VG" \
    "$([[ $SEQ =~ ^z{$N}z*o+n+$ ]] && echo ordered || echo "$SEQ")" ordered

# ---- a signature on one of them: nothing written anywhere --------------------------------
heads restore "${D[@]}"
mkfs.ext4 -q -F "${D[5]}" >/dev/null 2>&1
heads save "${D[@]}"
before=$(sha256sum "${D[@]}" | awk '{ print $1 }' | paste -sd,)
rc=0
X vgcreate vgi "${P[@]}" "${D[5]}" >"$SCRATCH/out" 2>&1 || rc=$?
test_eq "ext4 on ${D[5]} without -y: refused with exit 5" \
    "$rc:$(grep -c 'signature detected on' "$SCRATCH/out")" "5:1"
test_eq "nothing written to any of the $COUNT devices" \
    "$(sha256sum "${D[@]}" | awk '{ print $1 }' | paste -sd,)" "$before"
rc=0
X vgcreate -y vgi "${P[@]}" "${D[5]}" >"$SCRATCH/out" 2>&1 || rc=$?
test_eq "with -y: the signature wiped, $COUNT PVs in vgi" \
    "$rc:$(grep -c 'Wiping ext4 signature' "$SCRATCH/out"):$(pv_state lvm2)" "0:1:$COUNT vgi $COUNT 1"
X vgremove -q -y vgi >/dev/null 2>&1
X pvremove -q -y "${D[@]}" >/dev/null 2>&1

# ---- a later device refused: the earlier one not wiped (review s7 R5) ---------------------
T=$(make_loop 1M)                     # too small for a PV's first extent
lvm_sandbox "${D[@]}" "$T"
DEVS="$DEVS,$T"
mkfs.ext4 -q -F "${D[5]}" >/dev/null 2>&1
before=$(sha256sum "${D[5]}" "$T" | awk '{ print $1 }' | paste -sd,)
rc=0
X vgcreate -y vgi "${D[5]}" "$T" >"$SCRATCH/out" 2>&1 || rc=$?
test_eq "vgcreate -y of ext4 ${D[5]} and a 1 MiB device: refused for the second, exit 5" \
    "$rc:$(grep -c "Cannot use $T" "$SCRATCH/out"):$(grep -c 'Wiping' "$SCRATCH/out")" "5:1:0"
test_eq "... the ext4 signature kept, neither device written" \
    "$(blkid -p -o value -s TYPE "${D[5]}"):$(sha256sum "${D[5]}" "$T" | awk '{ print $1 }' | paste -sd,)" \
    "ext4:$before"

done_testing
