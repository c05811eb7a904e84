#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0696-thin-convert: lvconvert --thinpool / --type thin-pool of existing LVs (the LV
# becomes <LV>_tdata of a new pool LV, the metadata a new <LV>_tmeta or the LV given by
# --poolmetadata, lvol0_pmspare made or grown), the metadata swap of an existing pool,
# and thin_check before a pool is activated (user backend), on loop devices.
# LVM2 on the host cannot convert (its thin-pool target check needs device-mapper):
# it reads the VG (vgck, lvs) here; the twin VG made by LVM2 and the kernel's view are
# t0727 (guest).  Checks:
#   * refusals (unknown LV, answer n, same LV as metadata, a hidden LV, a thin LV,
#     --type thin, a bad chunk size) with LVM2's words and exit codes, nothing written;
#   * -y: LVM2's warnings and "Converted ..." line; sub-LV names, UUIDs (the data LV
#     keeps its own, the pool gets a new one), sizes and chunk size as lvcreate -T picks
#     them for the same data size; the metadata's start zeroed; LVM2's vgck passes;
#   * the pool activated by the user backend, a thin LV made in it, written and read
#     back; thin_check accepts the metadata after deactivation;
#   * --poolmetadata: the given LV (UUID kept) becomes _tmeta; the swap of an existing
#     pool's metadata exchanges names and visibility; an active LV is converted and the
#     pool left active, as LVM2 does;
#   * thin_check at activation: thin_check_executable and _options as configured (a
#     stand-in tool records its arguments), "" skips it, a failing check (the _tmeta
#     superblock corrupted) refuses the activation with LVM2's message and exit 5, and
#     the restored superblock activates again.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
need_cmd thin_check
[[ -e /dev/fuse ]] || skip_all "no /dev/fuse"
plan_later

D1=$(make_loop 96M) && D2=$(make_loop 96M) || { _tap_result 1 "loop devices"; done_testing; }
DEVS="$D1,$D2"
X() { lvx "$@" --devices "$DEVS"; }
mkdir -p "$SCRATCH/dev"
U() { DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user X "$@" --config "global { activation = 1 ${CFG:-} }"; }
dev() { echo "$SCRATCH/dev/vg1/$1"; }
f() { X lvs -a --noheadings -o "$2" "vg1/$1" 2>/dev/null | tr -d ' '; }
meta_ok() { LVM_SYSTEM_DIR=$SCRATCH/lvm "$LVX_ROOT/tests/tools/thin_meta_check.sh" vg1 "$1" "$SCRATCH"; }
# byte offset of LV's first extent on its PV, and that PV
pv_of() { f "$1" devices | sed 's/(.*//'; }
off_of() {
    local pe pes
    pe=$(f "$1" devices | sed 's/.*(\(.*\))/\1/')
    pes=$(X pvs --noheadings --units b --nosuffix -o pe_start "$(pv_of "$1")" 2>/dev/null | tr -d ' ')
    echo $((pes + pe * 4 * 1048576))
}

test_ok "vg1 on two PVs, LV data (40 MiB) and a reference pool ref (lvcreate -T, 40 MiB)" sh -c \
    "'$LVX' pvcreate -q $D1 $D2 --devices $DEVS && '$LVX' vgcreate -q vg1 $D1 $D2 --devices $DEVS &&
     '$LVX' lvcreate -q -an -L 40m -n data vg1 --devices $DEVS &&
     '$LVX' lvcreate -q -an -T -L 40m vg1/ref --devices $DEVS"

# ---------------------------------------------------------------- refusals
before=$(sha_devs "$D1" "$D2")
out=$(X lvconvert -y --thinpool vg1/nosuch 2>&1)
test_eq "unknown LV: exit 5" "$?" 5
test_eq "... LVM2's message" "$out" '  Failed to find logical volume "vg1/nosuch"'
out=$(echo n | X lvconvert --thinpool vg1/data 2>&1)
test_eq "answer n: exit 5" "$?" 5
test_ok "... LVM2's warnings, prompt and 'Conversion aborted.'" bash -c \
    "grep -qx '  WARNING: Converting vg1/data to thin pool.s data volume with metadata wiping.' <<<\"\$1\" &&
     grep -qx '  THIS WILL DESTROY CONTENT OF LOGICAL VOLUME (filesystem etc.)' <<<\"\$1\" &&
     grep -q 'Do you really want to convert vg1/data? \[y/n\]: ' <<<\"\$1\" &&
     grep -q 'Conversion aborted.' <<<\"\$1\"" _ "$out"
out=$(X lvconvert -y --thinpool vg1/data --poolmetadata data 2>&1)
test_eq "--poolmetadata the same LV: exit 5, LVM2's message" "$? $out" \
    "5   Can't use same LV for pool data and metadata LV vg1/data."
out=$(X lvconvert -y --thinpool vg1/ref_tdata 2>&1)
test_eq "a hidden LV: exit 5, LVM2's message" "$? $out" "5   Can't convert internal LV vg1/ref_tdata."
out=$(X lvconvert -y --thinpool vg1/data --poolmetadata vg1/nometa 2>&1)
test_eq "unknown --poolmetadata: exit 5, LVM2's message" "$? $out" "5   Unknown pool metadata LV nometa."
out=$(X lvconvert -y --type thin-pool -c 100k vg1/data 2>&1)
test_eq "chunk size 100k: exit 3" "$?" 3
diag "$out"
out=$(X lvconvert -y --type thin --thinpool vg1/ref vg1/data 2>&1)
test_eq "--type thin (external origin): refused, exit 5" "$?" 5
diag "$out"
test_eq "... nothing written by any refusal" "$(sha_devs "$D1" "$D2")" "$before"

# ---------------------------------------------------------------- --thinpool -y
uuid_data=$(f data lv_uuid)
out=$(X lvconvert -y --thinpool vg1/data 2>&1)
test_eq "lvconvert -y --thinpool vg1/data: exit 0" "$?" 0
diag "$out"
test_eq "... LVM2's lines" "$(grep -v 'NOT backed up' <<<"$out")" \
"  Thin pool volume with chunk size 64.00 KiB can address at most <15.88 TiB of data.
  WARNING: Converting vg1/data to thin pool's data volume with metadata wiping.
  THIS WILL DESTROY CONTENT OF LOGICAL VOLUME (filesystem etc.)
  Converted vg1/data to thin pool."
test_eq "... the data LV keeps its UUID as data_tdata" "$(f data_tdata lv_uuid)" "$uuid_data"
test_ok "... the pool LV has a new UUID" test "$(f data lv_uuid)" != "$uuid_data"
test_eq "... attrs, sizes, chunk as lvcreate -T of the same size" \
    "$(for l in data data_tdata data_tmeta; do f $l lv_attr,lv_size,chunk_size,zero,discards; done)" \
    "$(for l in ref ref_tdata ref_tmeta; do f $l lv_attr,lv_size,chunk_size,zero,discards; done)"
test_eq "... one lvol0_pmspare of the metadata's size" \
    "$(X lvs -a --noheadings -o lv_name,lv_size vg1 2>/dev/null | grep -c pmspare) $(f lvol0_pmspare lv_size)" \
    "1 $(f data_tmeta lv_size)"
test_ok "... the metadata's first 4 KiB are zero" \
    cmp -n 4096 <(dd if="$(pv_of data_tmeta)" bs=4096 skip=$(($(off_of data_tmeta) / 4096)) count=1 status=none) /dev/zero
test_ok "... LVM2's vgck accepts the VG" lvm2 vgck vg1
test_eq "... LVM2 reports the pool and its sub-LVs" \
    "$(lvm2 lvs -a --noheadings -o lv_name,lv_attr,pool_lv vg1 2>/dev/null | awk '$1 ~ /^\[?data/ {print $1, substr($2, 1, 4), substr($2, 7)}')" \
    "data twi- tz--
[data_tdata] Twi- ----
[data_tmeta] ewi- ----"

# ---------------------------------------------------------------- user backend
test_ok "the converted pool activated (user backend)" U lvchange -ay vg1/data
test_ok "lvcreate -V 64m -T vg1/data -n thin1" U lvcreate -q -V 64m -T vg1/data -n thin1
dd if=/dev/urandom of="$SCRATCH/pat" bs=1M count=6 status=none
test_ok "6 MiB written to thin1 and read back" sh -c \
    "dd if='$SCRATCH/pat' of='$(dev thin1)' bs=1M oflag=direct status=none &&
     cmp -n 6291456 '$SCRATCH/pat' '$(dev thin1)'"
test_ok "vgchange -an vg1" U vgchange -an vg1
out=$(meta_ok data)
test_eq "thin_check accepts the converted pool's metadata" "$?" 0
diag "$out"
test_ok "reactivated: thin1 still holds the data" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -ay vg1/thin1 --devices $DEVS --config 'global { activation = 1 }' &&
     cmp -n 6291456 '$SCRATCH/pat' '$(dev thin1)'"
test_ok "vgchange -an vg1" U vgchange -an vg1

# ---------------------------------------------------------------- --poolmetadata, swap
test_ok "LVs p2 (20 MiB), m2 and m3 (8 MiB)" sh -c \
    "'$LVX' lvcreate -q -an -L 20m -n p2 vg1 --devices $DEVS && '$LVX' lvcreate -q -an -L 8m -n m2 vg1 --devices $DEVS &&
     '$LVX' lvcreate -q -an -L 8m -n m3 vg1 --devices $DEVS"
uuid_m2=$(f m2 lv_uuid) uuid_m3=$(f m3 lv_uuid)
out=$(X lvconvert -y --type thin-pool --poolmetadata m2 vg1/p2 2>&1)
test_eq "lvconvert --type thin-pool --poolmetadata m2 vg1/p2: exit 0" "$?" 0
test_ok "... LVM2's words for two LVs" grep -q \
    "Converting vg1/p2 and vg1/m2 to thin pool's data and metadata volumes with metadata wiping" <<<"$out"
test_eq "... m2 (UUID kept) is p2_tmeta, 8 MiB; the spare grew to it" \
    "$(f p2_tmeta lv_uuid) $(f p2_tmeta lv_size) $(f lvol0_pmspare lv_size)" "$uuid_m2 8.00m 8.00m"
out=$(X lvconvert --thinpool vg1/p2 --poolmetadata vg1/m3 <<<y 2>&1)
test_eq "metadata swap with m3: exit 0" "$?" 0
test_ok "... LVM2's prompt" grep -q "Do you want to swap metadata of vg1/p2 pool with metadata volume vg1/m3? \[y/n\]: " <<<"$out"
test_eq "... m3 is p2_tmeta (hidden), the old metadata is m3 (visible)" \
    "$(f p2_tmeta lv_uuid) $(f p2_tmeta lv_name) $(f m3 lv_uuid) $(f m3 lv_name)" \
    "$uuid_m3 [p2_tmeta] $uuid_m2 m3"
out=$(X lvconvert -y --thinpool vg1/p2 2>&1)
test_eq "swap without --poolmetadata: exit 5, LVM2's message" "$? $out" \
    "5   The --poolmetadata option is required to swap metadata."
test_ok "LVM2's vgck accepts the VG" lvm2 vgck vg1

# ---------------------------------------------------------------- an active LV
test_ok "an active LV d5 (user backend)" U lvcreate -q -L 8m -n d5 vg1
out=$(U lvconvert -y --thinpool vg1/d5 2>&1)
test_eq "lvconvert of the active d5: exit 0, the pool active after it, as LVM2" \
    "$? $(U lvs --noheadings -o lv_active vg1/d5 2>/dev/null | tr -d ' ')" "0 active"
test_ok "vgchange -an vg1" U vgchange -an vg1

# ---------------------------------------------------------------- thin_check at activation
cat >"$SCRATCH/fake_check" <<EOF
#!/bin/sh
echo "\$@" >>"$SCRATCH/fake_check.log"
exit \${FAKE_RC:-0}
EOF
chmod +x "$SCRATCH/fake_check"
CFG="thin_check_executable = \"$SCRATCH/fake_check\" thin_check_options = [ \"-q\", \"--skip-mappings\" ]"
test_ok "activation with a stand-in thin_check" U lvchange -ay vg1/data
test_eq "... called once with the configured options and a copy of the metadata" \
    "$(grep -cE '^-q --skip-mappings /.*lvx-tmeta-' "$SCRATCH/fake_check.log") $(wc -l <"$SCRATCH/fake_check.log")" "1 1"
test_ok "... the copy is gone" sh -c "! ls \"\$(awk '{print \$3}' '$SCRATCH/fake_check.log')\" 2>/dev/null"
test_ok "vgchange -an vg1" U vgchange -an vg1
out=$(FAKE_RC=1 U lvchange -ay vg1/data 2>&1)
test_eq "a failing check (status 1): exit 5, LVM2's message" "$? $out" \
    "5   Check of pool vg1/data failed (status:1). Manual repair required!"
test_eq "... the pool is not active" "$(U lvs --noheadings -o lv_active vg1/data 2>/dev/null | tr -d ' ')" ""
rm -f "$SCRATCH/fake_check.log"
CFG="thin_check_executable = \"\""
test_ok "thin_check_executable = \"\": no check, activation goes on" U lvchange -ay vg1/data
test_eq "... the pool is active, the stand-in not called" \
    "$(U lvs --noheadings -o lv_active vg1/data 2>/dev/null | tr -d ' ') $(cat "$SCRATCH/fake_check.log" 2>/dev/null | wc -l)" "active 0"
test_ok "vgchange -an vg1" U vgchange -an vg1
CFG=""
sb_dev=$(pv_of data_tmeta) sb_off=$(off_of data_tmeta)
dd if="$sb_dev" of="$SCRATCH/sb" bs=4096 skip=$((sb_off / 4096)) count=1 status=none
printf 'garbage!' | dd of="$sb_dev" bs=1 seek=$((sb_off + 40)) conv=notrunc status=none
out=$(U lvchange -ay vg1/thin1 2>&1)
test_eq "the _tmeta superblock corrupted: thin_check refuses the activation, exit 5" "$? $out" \
    "5   Check of pool vg1/data failed (status:1). Manual repair required!"
dd if="$SCRATCH/sb" of="$sb_dev" bs=4096 seek=$((sb_off / 4096)) count=1 conv=notrunc status=none
test_ok "the superblock restored: thin1 activates and holds its data" sh -c \
    "DM_DEV_DIR=$SCRATCH/dev LVX_ACTIVATION_BACKEND=user '$LVX' lvchange -ay vg1/thin1 --devices $DEVS --config 'global { activation = 1 }' &&
     cmp -n 6291456 '$SCRATCH/pat' '$(dev thin1)'"
test_ok "vgchange -an vg1" U vgchange -an vg1

done_testing
