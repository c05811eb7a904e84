#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0698-thin-merge: lvconvert --merge of thin snapshots and lvremove of thin origins,
# served by the lvx daemon (user-space activation) on loop devices, with LVM2 as the
# oracle of the metadata: the VG as lvx had it before each change is restored onto twin
# loop devices (vgcfgrestore --force) where LVM2 (activation off) makes the same change;
# the logical volume sections must come out the same (LVM2 with activation off also
# queues the pool's delete message in the metadata, "messageN { delete = ID }", and
# exits 5 because it cannot activate the pool to send it: that block is left out).
#   * merge with origin and snapshot inactive: "Volume ... replaced origin ...", the
#     origin's name now reads the snapshot's data, the other snapshot of the origin is a
#     plain thin LV, the pool's transaction id moved on, thin_check passes;
#   * merge while the origin is open: delayed ("Delaying merge since origin volume is
#     open.", the snapshot hidden, lv_attr O and S as LVM2 reads them), lvremove of the
#     merging snapshot refused with LVM2's words, and the merge ends at the origin's
#     next activation;
#   * lvremove of a thin origin that has a snapshot: the snapshot stays, as LVM2;
#   * a thin LV without origin is not mergeable (LVM2's message, exit 5).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm thin_check
need_lvx
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
plan_later

D1=$(make_loop 128M) && D2=$(make_loop 128M) && T1=$(make_loop 128M) && T2=$(make_loop 128M) ||
    { _tap_result 1 "loop devices"; done_testing; }
DEVS="$D1,$D2"
lvm_sandbox "$T1" "$T2"
mkdir -p "$SCRATCH/twin" && cp "$SCRATCH/lvm/lvm.conf" "$SCRATCH/twin/lvm.conf"
lvm_sandbox "$D1" "$D2"
L2() { LVM_SYSTEM_DIR=$SCRATCH/twin LVM_SUPPRESS_FD_WARNINGS=1 lvm "$@"; }
X() { lvx "$@" --devices "$DEVS"; }
mkdir -p "$SCRATCH/dev" "$SCRATCH/mnt"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user X "$@" --config 'global { activation = 1 }'; }
dev() { echo "$SCRATCH/dev/vg1/$1"; }
sum() { sha256sum <"$(dev "$1")" | cut -d' ' -f1; }
put() { dd if=/dev/urandom of="$(dev "$1")" bs=64k seek="$2" count="$3" oflag=direct conv=notrunc status=none; }
tid() { X lvs --noheadings -o transaction_id vg1/pool 2>/dev/null | tr -d ' '; }
meta_ok() { LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX_ROOT/tests/tools/thin_meta_check.sh" vg1 pool "$SCRATCH"; }
# the logical_volumes of a backup without blank lines and pool messages
lvtext() {
    sed -n '/logical_volumes {/,$p' "$1" | grep -vE '^\s*$' |
        awk '/^\t+message[0-9]+ \{/ {skip = 1; next} skip && /^\t+\}/ {skip = 0; next} !skip'
}
# twin FILE: LVM2's twin of the VG in FILE on T1, T2
twin() {
    local i=0 dev uuid
    L2 vgremove -ff vg1 >/dev/null 2>&1
    for dev in "$T1" "$T2"; do
        uuid=$(awk -v p="pv$i {" 'index($0, p) {f = 1} f && $1 == "id" {gsub(/"/, "", $3); print $3; exit}' "$1")
        L2 pvcreate -q -ff -y --uuid "$uuid" --restorefile "$1" "$dev" >/dev/null 2>&1 || return 1
        i=$((i + 1))
    done
    L2 vgcfgrestore --force -f "$1" vg1 >/dev/null 2>&1
}
# same DESC CMD...: lvx (user backend) and LVM2 on the twin make the change; the LV
# sections of the two VGs must be equal.  lvx's output in $out, its exit code in $rc.
same() {
    local desc=$1
    shift
    X vgcfgbackup -f "$SCRATCH/before.vg" vg1 >/dev/null 2>&1
    twin "$SCRATCH/before.vg" || { _tap_result 1 "$desc: LVM2's twin restored"; return; }
    rc=0
    out=$(U "$@" 2>&1 | sandbox_noise | sed 's/^ *//'; exit "${PIPESTATUS[0]}") || rc=$?
    L2 "$@" >/dev/null 2>&1
    cp "$SCRATCH/x.vg" "$SCRATCH/x.vg.$((++same_n))" 2>/dev/null
    X vgcfgbackup -f "$SCRATCH/x.vg" vg1 >/dev/null 2>&1
    L2 vgcfgbackup -f "$SCRATCH/l.vg" vg1 >/dev/null 2>&1
    test_eq "$desc: the metadata equals LVM2's for the same change" \
        "$(lvtext "$SCRATCH/x.vg")" "$(lvtext "$SCRATCH/l.vg")"
    diff <(lvtext "$SCRATCH/x.vg") <(lvtext "$SCRATCH/l.vg") | head -20 | while read -r l; do diag "$l"; done
}

test_ok "vg1 on two PVs, pool, thin1 with 8 MiB of data" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $DEVS && '$LVX' vgcreate -q vg1 $D1 $D2 --devices $DEVS &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvcreate -q -T -L 64m vg1/pool --devices $DEVS --config 'global { activation = 1 }' &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvcreate -q -V 32m -T vg1/pool -n thin1 --devices $DEVS --config 'global { activation = 1 }'"
put thin1 0 128
test_ok "snapshots s1 and s2 of thin1, active (-K)" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvcreate -q -s -n s1 vg1/thin1 --devices $DEVS --config 'global { activation = 1 }' &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvcreate -q -s -n s2 vg1/thin1 --devices $DEVS --config 'global { activation = 1 }' &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -q -ay -K vg1/s1 vg1/s2 --devices $DEVS --config 'global { activation = 1 }'"
put s1 16 32
put thin1 64 16
s1sum=$(sum s1)
t1sum=$(sum thin1)
test_ok "s1 and thin1 differ now" test "$s1sum" != "$t1sum"
tid0=$(tid)

# ---------------------------------------------------------------- a thin LV without origin
rc=0
out=$(U lvconvert --merge vg1/thin1 2>&1 | sed 's/^ *//'; exit "${PIPESTATUS[0]}") || rc=$?
test_eq "lvconvert --merge of a thin LV without origin: exit 5, LVM2's message" "$rc $out" \
    "5 vg1/thin1 is not a mergeable logical volume."

# ---------------------------------------------------------------- merge at once
test_ok "everything deactivated" U vgchange -an vg1
same "lvconvert --merge vg1/s1 (origin and snapshot inactive)" lvconvert --merge vg1/s1
test_eq "... exit 0, LVM2's line" "$rc $out" "0 Volume vg1/s1 replaced origin vg1/thin1."
test_eq "... s1 is gone, s2 is a plain thin LV" \
    "$(X lvs --noheadings -o lv_name,origin vg1 2>/dev/null | awk '{$1 = $1; print}')" \
    "$(printf 'pool\ns2\nthin1')"
test_eq "... the pool's transaction id moved on by one (delete)" "$(tid)" "$((tid0 + 1))"
test_ok "... thin_check passes" meta_ok
test_ok "... LVM2's vgck passes" lvm2 vgck vg1
test_ok "thin1 activated" U lvchange -ay vg1/thin1
test_eq "thin1 reads what s1 held" "$(sum thin1)" "$s1sum"

# ---------------------------------------------------------------- merge delayed
test_ok "snapshot s3 of thin1" U lvcreate -q -s -n s3 vg1/thin1
put thin1 200 8
t1sum=$(sum thin1)
test_ok "s3 activated (-K), 1 MiB written into it" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -q -ay -K vg1/s3 --devices $DEVS --config 'global { activation = 1 }' &&
     dd if=/dev/urandom of='$(dev s3)' bs=64k seek=300 count=16 oflag=direct conv=notrunc status=none"
s3sum=$(sum s3)
test_ok "s3 deactivated" U lvchange -an vg1/s3
# thin1 held open (O_EXCL: how the user backend sees a device in use)
python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
print("held", flush=True)
time.sleep(300)' "$(dev thin1)" >"$SCRATCH/held" &
holder=$!
for _ in $(seq 50); do [[ -s $SCRATCH/held ]] && break; sleep 0.1; done
rc=0
out=$(U lvconvert --merge vg1/s3 2>&1 | sandbox_noise | sed 's/^ *//'; exit "${PIPESTATUS[0]}") || rc=$?
test_eq "lvconvert --merge vg1/s3 with thin1 open: delayed, LVM2's lines" "$rc $out" \
    "0 Logical volume vg1/thin1 in use.
Delaying merge since origin volume is open.
Merging of thin snapshot vg1/s3 will occur on next activation of vg1/thin1."
kill "$holder"
wait "$holder" 2>/dev/null
X vgcfgbackup -f "$SCRATCH/m.vg" vg1 >/dev/null 2>&1
test_ok "... the metadata names the merge (merge = \"thin1\" in s3's segment)" \
    grep -q 'merge = "thin1"' "$SCRATCH/m.vg"
twin "$SCRATCH/m.vg"
F=lv_name,lv_attr,origin,lv_merging
test_eq "... lvs -a of the merging pair: lvx's equals LVM2's (s3 hidden, attr O/S)" \
    "$(X lvs -a --noheadings -o $F vg1 2>/dev/null)" "$(L2 lvs -a --noheadings -o $F vg1 2>/dev/null)"
rc=0
out=$(X lvremove -y vg1/s3 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}") || rc=$?
lrc=0
lout=$(L2 lvremove -y vg1/s3 2>&1 | sandbox_noise; exit "${PIPESTATUS[0]}") || lrc=$?
test_eq "lvremove of the merging snapshot: refused as LVM2 (message, exit code)" "$rc $out" "$lrc $lout"
test_eq "... the thin origin still reads its own data" "$(sum thin1)" "$t1sum"
test_ok "thin1 deactivated, then activated: the merge ends" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -an vg1/thin1 --devices $DEVS --config 'global { activation = 1 }' &&
     DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -ay vg1/thin1 --devices $DEVS --config 'global { activation = 1 }'"
test_eq "... thin1 reads what s3 held" "$(sum thin1)" "$s3sum"
test_eq "... s3 is gone" "$(X lvs --noheadings -o lv_name vg1/s3 2>/dev/null)" ""
test_ok "... thin_check passes" sh -c "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' vgchange -q -an vg1 --devices $DEVS --config 'global { activation = 1 }' && $(declare -f meta_ok); meta_ok"

# ---------------------------------------------------------------- removing a thin origin
test_ok "snapshot s4 of thin1" U lvcreate -q -s -n s4 vg1/thin1
same "lvremove -y vg1/thin1 (an origin with a snapshot)" lvremove -y vg1/thin1
test_eq "... exit 0, LVM2's line" "$rc $out" '0 Logical volume "thin1" successfully removed.'
test_eq "... s4 stays, without origin" "$(X lvs --noheadings -o lv_name,origin vg1/s4 2>/dev/null | tr -d ' ')" "s4"
test_ok "... s4 reads what thin1 held" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -q -ay -K vg1/s4 --devices $DEVS --config 'global { activation = 1 }' &&
     [ \"\$(sha256sum <'$(dev s4)' | cut -d' ' -f1)\" = '$s3sum' ]"
test_ok "deactivated" U vgchange -an vg1
test_ok "thin_check passes" meta_ok

L2 vgremove -ff vg1 >/dev/null 2>&1
test_ok "VG removed" X vgremove -f vg1
done_testing
