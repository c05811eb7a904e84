#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0671-thin: thin pools and thin LVs on the host (no device-mapper; LVM2's sandbox
# with activation off).  LVM2 cannot make a thin pool here ("Can't create thin-pool
# without using device-mapper kernel driver."), so the golden data are LVM2's own
# backups and outputs from a VM run (tests/fixtures/lvm2-thin/, made by its capture.sh
# under tests/tools/kvm-dm-test):
#   * lvx makes pools (lvcreate -T -L, --type thin-pool with -c/--poolmetadatasize/-Zn/
#     --discards): its output and its metadata text (sub-LVs, lvol0_pmspare and its
#     growth, placement, chunk, discards, zero) equal LVM2's in the VM; the metadata
#     LV zeroed (allocation/zero_metadata, as LVM2); LVM2's vgck, lvs and lvdisplay agree with lvx's;
#   * lvextend of the pool's data and metadata as LVM2 words and places it;
#   * refusals: a thin LV needs the pool's kernel metadata (exit 5 with activation
#     off, nothing written), bad chunk sizes (exit 3, LVM2's messages, checked against
#     LVM2 itself); the user-space backend serves thin pools (t0678);
#   * LVM2's thin VGs (restored from the fixtures with vgcfgrestore --force onto sparse
#     loop devices of the VM disks' size): lvx's reports (attr t/V letters, pool,
#     origin, #Thins, TransId, ThId, discards, zero, chunk, roles, skip flag),
#     lvdisplay and written-back metadata equal LVM2's; lvremove of a pool takes its
#     thin LVs, sub-LVs and the last pmspare, as LVM2.
# The kernel side (tables, messages, data, thin_check, both directions) is t0702.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

FIX=$LVX_ROOT/tests/fixtures/lvm2-thin
D1=$(make_loop 256M) && D2=$(make_loop 256M) || { _tap_result 1 "loop devices"; done_testing; }
DEVS="$D1,$D2"
X() { lvx "$@" --devices "$DEVS"; }
sums() { sha_devs "$D1" "$D2"; }
# logical_volumes of a backup file without ids, times and hosts
lvtext() { sed -n '/logical_volumes {/,$p' "$1" | grep -vE '^\s*(id|creation_time|creation_host) = '; }
# one LV section (NAME { ... } at two tabs) of a backup file, normalized
lvsec() { lvtext "$1" | awk -v n="$2" '$0 == "\t\t" n " {" {f = 1} f {print} f && $0 == "\t\t}" {exit}'; }
# the stdout lines a command printed in the VM capture (### N: ... up to rc=)
captured() { awk -v n="### $1: " 'index($0, n) == 1 {f = 1; next} f && /^rc=/ {exit} f' "$FIX/capture-log.txt"; }

test_ok "lvx makes vgt on two PVs" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $DEVS && '$LVX' vgcreate -q vgt $D1 $D2 --devices $DEVS"
pe_start=$(lvm2 pvs --noheadings --units s --nosuffix -o pe_start "$D2" 2>/dev/null | tr -d ' ')
test_ok "old data where the pool metadata will go (PV 2, extent 0)" sh -c \
    "dd if=/dev/urandom of=$D2 bs=512 seek=$pe_start count=64 conv=notrunc,fsync 2>/dev/null"

# ---------------------------------------------------------------- pools made by lvx
out=$(X lvcreate -T -L 16m vgt/pool 2>/dev/null)
test_eq "lvcreate -T -L 16m vgt/pool: LVM2's output (VM capture)" "$out" "$(captured 1)"
X vgcfgbackup -f "$SCRATCH/a.vg" vgt >/dev/null 2>&1
test_eq "metadata equals LVM2's for the same command (pool, _tdata, _tmeta, pmspare, placement)" \
    "$(lvtext "$SCRATCH/a.vg")" "$(lvtext "$FIX/01-pool.vg")"
test_eq "the metadata LV's old data zeroed, not only its first 4 KiB (allocation/zero_metadata)" \
    "$(dd if="$D2" bs=512 skip="$pe_start" count=64 2>/dev/null | tr -d '\0' | wc -c)" 0
out=$(X lvcreate --type thin-pool -L 100m -c 256k --poolmetadatasize 8m -Zn --discards nopassdown \
    -n pool2 vgt 2>/dev/null)
test_eq "lvcreate --type thin-pool -c 256k --poolmetadatasize 8m -Zn --discards nopassdown: LVM2's output" \
    "$out" "$(captured 6)"
X vgcfgbackup -f "$SCRATCH/b.vg" vgt >/dev/null 2>&1
for lv in pool2 pool2_tmeta pool2_tdata lvol0_pmspare; do
    test_eq "$lv: section equals LVM2's (VM capture)" "$(lvsec "$SCRATCH/b.vg" $lv)" \
        "$(lvsec "$FIX/05-pool2.vg" $lv)"
done
test_ok "LVM2's vgck accepts lvx's pools" lvm2 vgck vgt
REP=lv_name,lv_attr,lv_size,pool_lv,data_percent,metadata_percent,thin_count,transaction_id,discards,zero,chunk_size,lv_metadata_size,lv_role,lv_layout,devices
test_eq "lvs -a: lvx's report equals LVM2's" "$(X lvs -a --noheadings -o $REP vgt 2>&1)" \
    "$(lvm2 lvs -a --noheadings -o $REP vgt 2>/dev/null)"
for lv in pool pool2; do
    test_eq "lvdisplay vgt/$lv: lvx's equals LVM2's" "$(X lvdisplay vgt/$lv 2>&1)" \
        "$(lvm2 lvdisplay vgt/$lv 2>/dev/null)"
done

out=$(X lvextend -L +8m vgt/pool 2>/dev/null)
test_eq "lvextend -L +8m of a pool: its _tdata grows, LVM2's words" "$out" \
    "  Size of logical volume vgt/pool_tdata changed from 16.00 MiB (4 extents) to 24.00 MiB (6 extents).
  Logical volume vgt/pool successfully resized."
out=$(X lvextend --poolmetadatasize +4m vgt/pool 2>/dev/null)
test_eq "lvextend --poolmetadatasize +4m: its _tmeta grows, LVM2's words" "$out" \
    "  Size of logical volume vgt/pool_tmeta changed from 4.00 MiB (1 extents) to 8.00 MiB (2 extents).
  Logical volume vgt/pool_tmeta successfully resized."
test_eq "LVM2 reads the grown pool: sizes, metadata size, segments" \
    "$(lvm2 lvs -a --noheadings -o lv_name,lv_size,lv_metadata_size,seg_count vgt/pool vgt/pool_tdata vgt/pool_tmeta 2>/dev/null | tr -s ' ')" \
    " pool 24.00m 8.00m 1
 [pool_tdata] 24.00m 2
 [pool_tmeta] 8.00m 2"
test_ok "LVM2's vgck after the resizes" lvm2 vgck vgt

# ---------------------------------------------------------------- refused requests
bad() {  # bad DESC CODE MESSAGE ARGS...
    local desc=$1 code=$2 msg=$3 before rc=0
    shift 3
    before=$(sums)
    out=$(X "$@" 2>&1) || rc=$?
    test_eq "$desc: exit $code" "$rc" "$code"
    test_ok "$desc: the message" grep -qF -- "$msg" <<<"$out"
    test_eq "$desc: nothing written" "$(sums)" "$before"
}
bad "thin LV without device-mapper" 5 \
    "Cannot create thin LV in vgt without device-mapper: the thin pool's kernel metadata must record it (activation is disabled)." \
    lvcreate -V 32m -T vgt/pool -n thin1
bad "thin LV in a missing pool" 5 "Pool none not found in Volume group vgt." lvcreate -an -V 8m -T vgt/none -n t
for c in 32k 96k 2g; do
    rc=0 lrc=0
    out=$(X lvcreate -an --type thin-pool -L 8m -c $c -n px vgt 2>&1) || rc=$?
    lout=$(lvm2 lvcreate -an --type thin-pool -L 8m -c $c -n px vgt 2>&1 | grep -vE 'for more information|leaked on lvm|Activation disabled'; exit "${PIPESTATUS[0]}") || lrc=$?
    test_eq "chunk size $c: exit status and messages equal LVM2's" "$rc $out" "$lrc $lout"
done

# ---------------------------------------------------------------- LVM2's thin VGs
restore() {  # restore FILE DEVS...: PVs with the file's UUIDs, then vgcfgrestore --force
    local file=$1 i=0 dev uuid
    shift
    for dev in "$@"; do
        uuid=$(awk -v p="pv$i {" 'index($0, p) {f = 1} f && $1 == "id" {gsub(/"/, "", $3); print $3; exit}' "$file")
        lvm2 pvcreate -q -ff -y --uuid "$uuid" --restorefile "$file" "$dev" >/dev/null 2>&1 || return 1
        i=$((i + 1))
    done
    lvm2 vgcfgrestore --force -f "$file" vgt >/dev/null 2>&1
}
test_ok "lvx's vgt removed" X vgremove -f vgt
# the VM's disks were 800 GiB (sparse here)
B1=$(make_loop 800G) && B2=$(make_loop 800G) || { _tap_result 1 "sparse loop devices"; done_testing; }
BDEVS="$B1,$B2"
XB() { lvx "$@" --devices "$BDEVS"; }
# what a metadata change would touch: the label and metadata area of each PV
heads() { for d in "$B1" "$B2"; do head -c 2M "$d" | sha256sum; done; }
REP=lv_name,lv_attr,lv_size,pool_lv,origin,data_percent,metadata_percent,thin_count,transaction_id,thin_id,discards,zero,chunk_size,lv_metadata_size,segtype,lv_role,lv_layout,lv_skip_activation,lv_when_full,devices
for f in 04-thin-snapshots 07-four-pools; do
    test_ok "$f: LVM2 restores its thin VG (vgcfgrestore --force)" restore "$FIX/$f.vg" "$B1" "$B2"
    test_eq "$f: lvs -a, every thin field: lvx's equals LVM2's" \
        "$(XB lvs -a --noheadings -o $REP vgt 2>&1)" "$(lvm2 lvs -a --noheadings -o $REP vgt 2>/dev/null)"
    test_eq "$f: lvs --segments: lvx's equals LVM2's" \
        "$(XB lvs -a --segments --noheadings -o lv_name,segtype,seg_start,seg_size,chunk_size,thin_id,transaction_id vgt 2>&1)" \
        "$(lvm2 lvs -a --segments --noheadings -o lv_name,segtype,seg_start,seg_size,chunk_size,thin_id,transaction_id vgt 2>/dev/null)"
    for lv in pool thin1; do
        test_eq "$f: lvdisplay vgt/$lv: lvx's equals LVM2's" "$(XB lvdisplay vgt/$lv 2>&1)" \
            "$(lvm2 lvdisplay vgt/$lv 2>/dev/null)"
    done
    XB vgcfgbackup -f "$SCRATCH/x.vg" vgt >/dev/null 2>&1
    test_eq "$f: lvx writes LVM2's thin metadata back unchanged" "$(lvtext "$SCRATCH/x.vg")" \
        "$(lvtext "$FIX/$f.vg")"
    if [[ $f == 04-thin-snapshots ]]; then
        before=$(heads)
        rc=0
        out=$(XB lvremove -y vgt/tsnapK 2>&1) || rc=$?
        test_eq "lvremove of a thin LV without device-mapper: exit 5" "$rc" 5
        test_ok "lvremove of a thin LV without device-mapper: says why" \
            grep -qF "Cannot remove thin LV vgt/tsnapK without device-mapper" <<<"$out"
        test_eq "lvremove of a thin LV without device-mapper: nothing written" \
            "$(heads)" "$before"
        out=$(XB lvremove -y vgt/pool 2>/dev/null)
        test_eq "lvremove of a pool takes its thin LVs first (LVM2's words)" "$out" \
            '  Logical volume "thin1" successfully removed.
  Logical volume "tsnap" successfully removed.
  Logical volume "tsnapK" successfully removed.
  Logical volume "pool" successfully removed.'
        test_eq "LVM2: no LV left (sub-LVs and the last pmspare gone), all extents free" \
            "$(lvm2 vgs --noheadings -o lv_count,vg_free_count vgt 2>/dev/null | tr -s ' ')" \
            "$(lvm2 vgs --noheadings -o lv_count,vg_extent_count vgt 2>/dev/null | tr -s ' ' | sed 's/^ 0 / 0 /')"
        test_eq "LVM2 lists no hidden LV either" "$(lvm2 lvs -a --noheadings -o lv_name vgt 2>/dev/null)" ""
        test_ok "LVM2's vgck after the pool's removal" lvm2 vgck vgt
    fi
    lvm2 vgremove -ff vgt >/dev/null 2>&1
done
done_testing
