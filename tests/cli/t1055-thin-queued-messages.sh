#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1055-thin-queued-messages: thin pool messages queued in the VG metadata (LVM2's
# "messageN { delete = ID }" / "{ create = LV }" subsections of a thin-pool segment,
# left by an LVM2 that could not send them; its lvextend-thin-adddel.sh), in the
# user-space backend with host LVM2 as the metadata oracle:
#   - LVM2 (no device-mapper here) removes thin lv1: its delete stays queued, the pool's
#     transaction_id 3; lvx reads that VG (lvs), its vgcfgbackup holds LVM2's
#     message1 section as LVM2's vgcfgbackup does; a message with neither key is
#     refused as LVM2 ("Unknown message in ..."); an unrelated lvx change (a tag on the
#     pool) keeps the message for LVM2;
#   - lvx lvextend of the pool sends it (LVM2's update_pool_lv): exit 0, no message in
#     either tool's metadata, transaction_id still 3; the pool's kernel metadata (read by
#     thin_dump from _tmeta's extents) has no device 1, keeps device 2, transaction 3;
#   - LVM2 removes lv2 (delete 2 queued, transaction_id 4); lvx lvcreate of a thin LV
#     sends it first, then its own create_thin: thin_dump shows device 3 only,
#     transaction 5, no message left.
# (lvx kept the section raw, never sent it, and the pool's next message was refused:
# "transaction_id is 2, while expected 3".)
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
need_cmd thin_dump
lvm2_pair_begin 64M
VG=vgtqm$$
quiet() { sandbox_noise | grep -v -e 'not zeroed' -e 'without activation support' \
    -e 'without initialization'; }
backup() {  # backup TOOL FILE: vgcfgbackup of $VG by lvx or LVM2 into FILE
    if [[ $1 == lvx ]]; then lvx vgcfgbackup -f "$2" "$VG"; else lvm2 vgcfgbackup -f "$2" "$VG"; fi >/dev/null 2>&1
}
pool_seg() {  # pool_seg FILE: the lines of the pool's segment (no comments, blanks)
    sed -n '/^\t\tpool {/,/^\t\t}/p' "$1" | grep -v -e '^\s*#' -e 'creation_time' | sed '/^\s*$/d'
}
tmeta_dump() {  # thin_dump of the pool's _tmeta, read from its PV extents
    local dev pe start es
    read -r dev pe < <(lvm2 lvs --noheadings -a -o devices "$VG/pool_tmeta" 2>/dev/null |
        sed 's/^ *\(.*\)(\([0-9]*\)).*/\1 \2/')
    start=$(lvm2 pvs --noheadings --units s --nosuffix -o pe_start "$dev" 2>/dev/null | tr -d ' ')
    es=$(lvm2 vgs --noheadings --units s --nosuffix -o vg_extent_size "$VG" 2>/dev/null | tr -d ' ')
    dd if="$dev" of="$SCRATCH/tmeta" bs=512 skip=$((start + pe * es)) count=$((es)) \
        status=none 2>/dev/null
    thin_dump "$SCRATCH/tmeta" 2>&1 |
        grep -o -e '<superblock .*transaction="[0-9]*"' -e '<device dev_id="[0-9]*"' |
        grep -o -e ' transaction="[0-9]*"' -e 'dev_id="[0-9]*"' | xargs
}
run() { rc=0; out=$(lvx "$@" 2>&1) || rc=$?; }
mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user lvx "$@" --config 'global { activation = 1 }'; }

test_ok "lvx: $VG" lvx vgcreate -q "$VG" "$D1" "$D2"
test_ok "lvx (user backend): pool (8 MiB) with thin lv1 and lv2, inactive" \
    U lvcreate -q -an -T -L 8m -V 8m -n lv1 "$VG/pool"
test_ok "... lv2" U lvcreate -q -an -V 8m -n lv2 "$VG/pool"
lvm2 lvremove -y "$VG/lv1" >"$SCRATCH/l.out" 2>&1
test_eq "LVM2 lvremove lv1 (no device-mapper): fails, lv1 gone, delete 1 queued, transaction_id 3" \
    "$(lvm2 lvs --noheadings -o lv_name "$VG/lv1" 2>/dev/null | wc -l) $(backup lvm2 "$SCRATCH/l0"; grep -c -e 'message1 {' -e 'delete = 1' "$SCRATCH/l0") $(grep -c 'transaction_id = 3' "$SCRATCH/l0")" \
    "0 2 1" || diag "$(cat "$SCRATCH/l.out")"
run lvs --noheadings -o lv_name,thin_id "$VG"
test_eq "lvx lvs reads the VG: pool and lv2 (thin_id 2)" "$rc $(xargs <<<"$out")" "0 lv2 2 pool" || diag "$out"
backup lvx "$SCRATCH/x0"
test_eq "lvx vgcfgbackup: the pool's segment as LVM2's, message1 { delete = 1 } included" \
    "$(pool_seg "$SCRATCH/x0")" "$(pool_seg "$SCRATCH/l0")"
test_eq "... its blank line and section as LVM2 writes them" \
    "$(grep -B1 -A2 'message1 {' "$SCRATCH/x0")" "$(grep -B1 -A2 'message1 {' "$SCRATCH/l0")"
sed 's/delete = 1/bogus = 1/' "$SCRATCH/l0" >"$SCRATCH/bad"
both vgcfgrestore -f "$SCRATCH/bad" "$VG"
test_eq "vgcfgrestore of a message with neither create nor delete: refused by both (exit 5), LVM2's 'Unknown message'" \
    "$(cat "$SCRATCH/x.rc") $(cat "$SCRATCH/l.rc") $(grep -c 'Unknown message in' "$SCRATCH/x.err") $(grep -c 'Unknown message in' "$SCRATCH/l.err")" \
    "5 5 1 1" || diag "$(cat "$SCRATCH/x.err" "$SCRATCH/l.err")"
run lvchange -q --addtag t1 "$VG/pool"
backup lvm2 "$SCRATCH/l1"
test_eq "lvx lvchange --addtag on the pool: exit 0, LVM2 still reads delete 1 queued" \
    "$rc $(grep -c -e 'message1 {' -e 'delete = 1' "$SCRATCH/l1") $(grep -c 'transaction_id = 3' "$SCRATCH/l1")" \
    "0 2 1" || diag "$out"
test_eq "thin_dump before: devices 1 and 2, transaction 2" \
    "$(tmeta_dump)" \
    'transaction=2 dev_id=1 dev_id=2'

rc=0; out=$(U lvextend -L+4m "$VG/pool" 2>&1) || rc=$?
test_eq "lvx lvextend -L+4m of the pool: exit 0, 'successfully resized'" \
    "$rc $(grep -c "Logical volume $VG/pool successfully resized." <<<"$out")" "0 1" || diag "$out"
backup lvm2 "$SCRATCH/l2"
backup lvx "$SCRATCH/x2"
test_eq "... the message sent: none in LVM2's or lvx's backup, transaction_id 3" \
    "$(grep -c message "$SCRATCH/l2" "$SCRATCH/x2" | cut -d: -f2 | xargs) $(grep -c 'transaction_id = 3' "$SCRATCH/l2")" \
    "0 0 1"
test_eq "thin_dump: device 2 only, transaction 3" \
    "$(tmeta_dump)" \
    'transaction=3 dev_id=2'

lvm2 lvremove -y "$VG/lv2" >/dev/null 2>&1
backup lvm2 "$SCRATCH/l3"
test_eq "LVM2 lvremove lv2: delete 2 queued, transaction_id 4" \
    "$(grep -c -e 'message1 {' -e 'delete = 2' "$SCRATCH/l3") $(grep -c 'transaction_id = 4' "$SCRATCH/l3")" "2 1"
rc=0; out=$(U lvcreate -q -an -V 8m -n lv3 "$VG/pool" 2>&1) || rc=$?
backup lvm2 "$SCRATCH/l4"
test_eq "lvx lvcreate -V thin lv3: exit 0, no message left, pool transaction_id 5" \
    "$rc $(grep -c message "$SCRATCH/l4") $(pool_seg "$SCRATCH/l4" | grep -c 'transaction_id = 5')" "0 0 1" || diag "$out"
test_eq "thin_dump: lv3's device only (id 1 again, as LVM2 picks it; delete 2 sent first), transaction 5" \
    "$(tmeta_dump)" \
    'transaction=5 dev_id=1'
test_ok "LVM2 vgremove -ff" lvm2 vgremove -ff "$VG"
done_testing
