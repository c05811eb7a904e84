#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0968-suite-diffs: differences LVM2's own test suite found (issue 21), lvx beside the
# real LVM2 on the same loop devices:
#   - lvcreate -i1 --stripesize: LVM2's note "Ignoring stripesize argument with single
#     stripe." on stdout (lvcreate-usage);
#   - lvextend -m N: -m0 (or the LV's own image count) goes on, another count is
#     refused ("Cannot vary number of mirrors in LV yet.", exit 5), a signed one is
#     invalid (exit 3); lvreduce/lvresize take no -m (lvresize-usage);
#   - lvs / vgs of a tag and a VG name that does not exist: LVM2 reads every VG and
#     keeps the named ones it finds, no error (process-each-lv);
#   - a metadata text whose checksum is wrong: "Checksum error on DEV at offset N."
#     (metadata-bad-text);
#   - a creation_time too large for 64 signed bits (old 32-bit builds wrote them): LVM2
#     warns once and reads a fixed day instead (creation-time);
#   - a PV its label marks in use (PV_EXT_USED) that no VG seen lists: vg_name
#     "[unknown]", attrs "u--", nothing free, pv_in_use "used" (pvscan-cache,
#     pv-ext-flags);
#   - one PV UUID on several devices: all "Not using device" lines, then the "prefers"
#     lines (pv-duplicate-uuid);
#   - pvresize of an orphan PV: its second metadata area moves to the new end (emptied,
#     cut down to what lies past the data area), "Size must exceed physical extent
#     start of N sectors" below the data area (pvresize-mdas);
#   - a write error while zeroing a new LV: "Failed to initialize logical volume ...",
#     exit 5, the LV taken out again (lvcreate-signature-wiping);
#   - devices/allow_mixed_block_sizes = 0: vgcreate of devices with different logical
#     block sizes, vgextend by one differing from the VG's PVs refused (exit 5,
#     "Devices have inconsistent logical block sizes (A and B).") (allow-mixed-block-sizes);
#   - vgchange -s: every extent count of the VG rescaled as LVM2 does, "not a perfect
#     fit" refused, the VG's own size a note (vgchange-usage).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgsd$$
side_setup 3

# ---- lvcreate -i1 --stripesize
side_fresh_vg
for who in lvm2 lvx; do
    rc=0; $who lvcreate -an -Zn -L 8m -n s1 -i1 --stripesize 4 "$VG" >"$SCRATCH/$who.out" \
        2>"$SCRATCH/$who.err" || rc=$?
    echo "$rc $(lvm2 lvs --noheadings -o stripes "$VG/s1" 2>/dev/null | tr -d ' ')" >"$SCRATCH/$who.rc"
    lvm2 lvremove -y -q "$VG/s1" >/dev/null 2>&1
done
test_eq "lvcreate -i1 --stripesize: LVM2's exit code and stripes" "$(cat "$SCRATCH/lvm2.rc")" \
    "$(cat "$SCRATCH/lvx.rc")"
test_eq "... the note on stdout, as LVM2's" \
    "$(grep Ignoring "$SCRATCH/lvm2.out")" "$(grep Ignoring "$SCRATCH/lvx.out")"
test_ok "... lvx's note is LVM2's words" grep -q "^  Ignoring stripesize argument with single stripe.$" \
    "$SCRATCH/lvx.out"

# ---- lvextend -m
side_fresh_vg
for who in lvm2 lvx; do
    lvm2 lvcreate -an -Zn -q -L 8m -n m1 "$VG" "${D[0]}" >/dev/null 2>&1
    r=""
    for m in "-m0" "--mirrors 0" "-m1" "-m+1" "-m-1" "--mirrors 2"; do
        rc=0
        # shellcheck disable=SC2086
        $who lvextend $m --type striped -L +4m "$VG/m1" "${D[1]}" >/dev/null 2>"$SCRATCH/e" || rc=$?
        r+="$m:$rc:$(grep -v WARNING "$SCRATCH/e" | tr '\n' '|') "
    done
    echo "$r" >"$SCRATCH/$who.m"
    lvm2 lvs --noheadings -o lv_size --units m "$VG/m1" 2>/dev/null | tr -d ' ' >"$SCRATCH/$who.size"
    lvm2 lvremove -y -q "$VG/m1" >/dev/null 2>&1
done
test_eq "lvextend -m0/-m1/-m+1/-m-1: LVM2's exit codes and errors" "$(cat "$SCRATCH/lvm2.m")" \
    "$(cat "$SCRATCH/lvx.m")"
test_eq "... the LV grew by -m0 only, as with LVM2" "$(cat "$SCRATCH/lvm2.size")" "$(cat "$SCRATCH/lvx.size")"
test_eq "... by two steps of 4m" "16.00m" "$(cat "$SCRATCH/lvx.size")"
lvm2 lvcreate -an -Zn -q -L 8m -n m2 "$VG" >/dev/null 2>&1
for c in lvreduce lvresize; do
    side "$c" -m0 -L-4m "$VG/m2"
    test_eq "$c -m0 refused: LVM2's exit code" "$(cat "$SCRATCH/l.rc")" "$(cat "$SCRATCH/x.rc")"
    test_eq "... 3 (an option it does not take)" "3" "$(cat "$SCRATCH/x.rc")"
done
test_eq "... the LV unchanged" "8.00m" \
    "$(lvm2 lvs --noheadings -o lv_size --units m "$VG/m2" 2>/dev/null | tr -d ' ')"

# ---- a tag and an unknown VG name
side_fresh_vg
lvm2 lvcreate -an -Zn -q -l1 -n t1 --addtag V1 "$VG" >/dev/null 2>&1
lvm2 lvcreate -an -Zn -q -l1 -n t2 "$VG" >/dev/null 2>&1
same "lvs @tag garbage: the tagged LV, no error" lvs -o vg_name,lv_name @V1 garbage
test_eq "lvx lists the tagged LV only" "t1" "$(lvx lvs --noheadings -o lv_name @V1 garbage 2>/dev/null | tr -d ' ')"
same "lvs garbage/lv @tag" lvs -o lv_name garbage/lv @V1
same "lvs @tag VG/unknown-LV: still an error" lvs -o lv_name @V1 "$VG/nosuch"
same "lvs garbage alone: an error" lvs -o lv_name garbage
lvm2 vgchange -q --addtag V1 "$VG" >/dev/null 2>&1
same "vgs @tag garbage: the tagged VG, no error" vgs -o vg_name @V1 garbage
same "vgs garbage alone: an error" vgs -o vg_name garbage
same "lvs @tag of a VG garbage: all the VG's LVs" lvs -o lv_name @V1 garbage

# ---- a bad metadata checksum
side_fresh_vg
dd if="${D[0]}" of="$SCRATCH/meta" bs=4k count=2 status=none
sed 's/flags =/flagx =/' "$SCRATCH/meta" >"$SCRATCH/meta.bad"
dd if="$SCRATCH/meta.bad" of="${D[0]}" conv=notrunc status=none
lvm2 pvs >/dev/null 2>"$SCRATCH/l.bad"
rc=0; lvx pvs >"$SCRATCH/x.pvs" 2>"$SCRATCH/x.bad" || rc=$?
test_eq "pvs with one bad metadata text: exit 0" "0" "$rc"
test_eq "... LVM2's checksum line (device, offset of the text)" \
    "$(grep -m1 'Checksum error' "$SCRATCH/l.bad")" "$(grep -m1 'Checksum error' "$SCRATCH/x.bad")"
test_eq "... the three PVs listed" "3" "$(grep -c "$VG" "$SCRATCH/x.pvs")"

# ---- creation_time above INT64_MAX
side_fresh_vg
lvm2 lvcreate -an -Zn -q -l1 -n c1 "$VG" >/dev/null 2>&1
lvm2 vgcfgbackup -f "$SCRATCH/back" "$VG" >/dev/null 2>&1
sed -e 's/creation_time = \(.*\)$/creation_time = 12029933779523993599/g' "$SCRATCH/back" >"$SCRATCH/backnew"
for who in lvm2 lvx; do
    rc=0; $who vgcfgrestore -f "$SCRATCH/backnew" "$VG" >/dev/null 2>"$SCRATCH/$who.err" || rc=$?
    echo "$rc" >"$SCRATCH/$who.rc"
    grep Invalid "$SCRATCH/$who.err" >"$SCRATCH/$who.inv"
    lvm2 lvs --noheadings -o lv_time "$VG/c1" 2>/dev/null | tr -d ' ' >"$SCRATCH/$who.time"
done
test_eq "vgcfgrestore of a too large creation_time: LVM2's exit code" "$(cat "$SCRATCH/lvm2.rc")" \
    "$(cat "$SCRATCH/lvx.rc")"
test_eq "... LVM2's warning, once" "$(cat "$SCRATCH/lvm2.inv")" "$(cat "$SCRATCH/lvx.inv")"
test_eq "... the same day written in its place" "$(cat "$SCRATCH/lvm2.time")" "$(cat "$SCRATCH/lvx.time")"
lvx vgcfgbackup -f "$SCRATCH/back2" "$VG" >/dev/null 2>"$SCRATCH/x.err"
test_eq "the next backup has a valid time, no warning" "0" "$(grep -c Invalid "$SCRATCH/x.err")"

# ---- a PV marked in use whose VG is not seen
side_fresh_vg
lvm2 pvchange -q --metadataignore y "${D[0]}" >/dev/null 2>&1
same "pvs of a PV marked in use, its VG's other PVs not seen: VG [unknown], u--, nothing free" \
    pvs --devices "${D[0]}"
same "... pv_in_use used, vg_name [unknown]" pvs -o pv_name,vg_name,pv_in_use --devices "${D[0]}"
test_eq "lvx: VG [unknown]" "[unknown]" \
    "$(lvx pvs --noheadings -o vg_name --devices "${D[0]}" 2>/dev/null | tr -d ' ')"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
lvm2 pvcreate -ff -y -q "${D[2]}" >/dev/null 2>&1
same "an orphan PV: VG blank, ---, all free" pvs -o pv_name,vg_name,pv_attr,pv_free,pv_in_use "${D[2]}"

# ---- one PV UUID on three devices
lvm2 pvcreate -ff -y -q "${D[0]}" "${D[1]}" >/dev/null 2>&1
U=$(lvm2 pvs --noheadings -o pv_uuid "${D[0]}" 2>/dev/null | tr -d ' ')
for i in 1 2; do
    lvm2 pvcreate -ff -y -q --devices "${D[$i]}" -u "$U" --norestorefile "${D[$i]}" >/dev/null 2>&1
done
same "pvs of three devices with one PV UUID: LVM2's warnings in its order" pvs -o+uuid
test_eq "lvx: two 'Not using device' lines" "2" "$(grep -c 'Not using device' "$SCRATCH/x.err")"
# ---- a write error while zeroing a new LV (LVM2 in the sandbox does not zero: lvx
# alone; the words are those of LVM2's wipe_lv, which the suite greps)
for d in "${D[@]}"; do dd if=/dev/zero of="$d" bs=1M count=1 conv=notrunc status=none; done
lvm2 pvcreate -ff -y -q "${D[0]}" >/dev/null 2>&1
lvm2 pvcreate -ff -y -q --metadatacopies 0 "${D[1]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
blockdev --setro "${D[1]}"
rc=0; lvx lvcreate -l1 -n z1 "$VG" "${D[1]}" >/dev/null 2>"$SCRATCH/x.err" || rc=$?
blockdev --setrw "${D[1]}"
test_eq "lvcreate whose zeroing cannot write: exit 5" "5" "$rc"
test_ok "... LVM2's 'Failed to initialize' line" grep -qx \
    "  Failed to initialize logical volume $VG/z1 at position 0 and size 4096." "$SCRATCH/x.err"
test_ok "... and its 'Aborting' line" grep -qx "  Aborting. Failed to wipe start of new LV." \
    "$SCRATCH/x.err"
test_eq "... the LV taken out again" "" "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' ')"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1

# ---- devices of different logical block sizes (allow_mixed_block_sizes = 0, the default)
truncate -s 16M "$SCRATCH/b4k.img" "$SCRATCH/b512.img"
B4K=$(attach_loop "$SCRATCH/b4k.img" --sector-size 4096)
B512=$(attach_loop "$SCRATCH/b512.img")
lvm_sandbox "${D[@]}" "$B4K" "$B512"
NO=(--config 'devices/allow_mixed_block_sizes=0')
YES=(--config 'devices/allow_mixed_block_sizes=1')
sum_before=$(sha_devs "$B4K" "$B512")
same "vgcreate of a 4096 and a 512 device: refused as LVM2" vgcreate "${NO[@]}" "$VG" "$B4K" "$B512"
test_eq "... nothing written" "$sum_before" "$(sha_devs "$B4K" "$B512")"
test_ok "... lvx's line" grep -qx "  Devices have inconsistent logical block sizes (4096 and 512)." \
    "$SCRATCH/x.err"
lvm2 vgcreate -q "$VG" "$B4K" >/dev/null 2>&1
lvm2 pvcreate -q "$B512" >/dev/null 2>&1
same "vgextend of a VG on 4096 by a 512 PV: refused as LVM2" vgextend "${NO[@]}" "$VG" "$B512"
same "... by default too" vgextend "$VG" "$B512"
rc=0; lvx vgextend "${YES[@]}" "$VG" "$B512" >/dev/null 2>&1 || rc=$?
test_eq "... allowed with allow_mixed_block_sizes=1" "0 2" \
    "$rc $(lvm2 vgs --noheadings -o pv_count "$VG" 2>/dev/null | tr -d ' ')"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
lvm2 pvremove -ff -y -q "$B4K" "$B512" >/dev/null 2>&1
rc=0; lvx vgcreate "${YES[@]}" "$VG" "$B4K" "$B512" >/dev/null 2>&1 || rc=$?
test_eq "vgcreate with allow_mixed_block_sizes=1: made" "0 2" \
    "$rc $(lvm2 vgs --noheadings -o pv_count "$VG" 2>/dev/null | tr -d ' ')"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1
lvm_sandbox "${D[@]}"

# ---- vgchange -s: the extent size of a VG with LVs changed
for who in lvm2 lvx; do
    lvm2 vgremove -ff "$VG" >/dev/null 2>&1
    for d in "${D[@]}"; do dd if=/dev/zero of="$d" bs=1M count=1 conv=notrunc status=none; done
    lvm2 pvcreate -q -ff -y --metadatacopies 0 "${D[0]}" >/dev/null 2>&1
    lvm2 vgcreate -q -s 4M "$VG" "${D[@]}" >/dev/null 2>&1
    lvm2 lvcreate -q -an -Zn -l4 -n l1 "$VG" >/dev/null 2>&1
    lvm2 lvcreate -q -an -Zn -l6 -i2 -n l2 "$VG" >/dev/null 2>&1
    r=""
    for sz in 4K 8M 4K; do
        rc=0; $who vgchange -s "$sz" "$VG" >"$SCRATCH/o" 2>"$SCRATCH/e" || rc=$?
        r+="$sz:$rc:$(cat "$SCRATCH/o" "$SCRATCH/e" | grep -v WARNING | tr '\n' '|') "
        [[ $sz == 8M ]] || lvm2 vgs --noheadings -o vg_extent_size,vg_extent_count,vg_free_count \
            "$VG" >>"$SCRATCH/$who.s" 2>/dev/null
    done
    echo "$r" >"$SCRATCH/$who.r"
    lvm2 lvs --noheadings -o lv_name,seg_size_pe,seg_pe_ranges "$VG" 2>/dev/null |
        sed "s,${D[0]},D0,g; s,${D[1]},D1,g; s,${D[2]},D2,g" >>"$SCRATCH/$who.s"
    lvm2 vgcfgbackup -f "$SCRATCH/$who.bak" "$VG" >/dev/null 2>&1
    grep -vE 'id = |time|seqno|Generated|description|creation_host|contents' "$SCRATCH/$who.bak" \
        >"$SCRATCH/$who.meta"
    lvm2 vgchange -q -x n "$VG" >/dev/null 2>&1
    rc=0; $who vgchange -s 8K "$VG" >/dev/null 2>"$SCRATCH/e" || rc=$?
    echo "$rc $(grep -v WARNING "$SCRATCH/e")" >"$SCRATCH/$who.x"
done
test_eq "vgchange -s 4K, 8M (no fit), 4K again: LVM2's exit codes and messages" \
    "$(cat "$SCRATCH/lvm2.r")" "$(cat "$SCRATCH/lvx.r")"
test_eq "... the sizes and counts as LVM2 leaves them" "$(cat "$SCRATCH/lvm2.s")" "$(cat "$SCRATCH/lvx.s")"
test_ok "... 4096 extents of 4k in l1" grep -q "l1 *4096" "$SCRATCH/lvx.s"
test_eq "... the metadata as LVM2 writes it (UUIDs and times aside)" \
    "$(cat "$SCRATCH/lvm2.meta")" "$(cat "$SCRATCH/lvx.meta")"
test_eq "vgchange -s of a VG that is not resizeable: refused as LVM2" "$(cat "$SCRATCH/lvm2.x")" \
    "$(cat "$SCRATCH/lvx.x")"
lvm2 vgremove -ff "$VG" >/dev/null 2>&1

# ---- pvresize of an orphan PV with a second metadata area (moved to the new end)
U=Zy1a5L-2Xdb-gNjp-Kw1C-sgkm-hWqY-oeUKf5
pv8m() {        # pv8m COPIES [OPTION...]: an 8m PV on D[0], the same bytes each time
    local copies=$1
    shift
    dd if=/dev/zero of="${D[0]}" bs=1M count=16 conv=notrunc status=none
    lvm2 pvcreate -q -ff -y -u "$U" --norestorefile --setphysicalvolumesize 8m \
        --metadatacopies "$copies" "$@" "${D[0]}" >/dev/null 2>&1
}
for sz in 4m 4608k 3200k 2m 3m; do
    for who in lvm2 lvx; do
        pv8m 2
        [[ $sz == 3200k || $sz == 2m || $sz == 3m ]] && pv8m 2 --metadatasize 2m
        rc=0; $who pvresize --setphysicalvolumesize "$sz" -y "${D[0]}" >/dev/null \
            2>"$SCRATCH/$who.err" || rc=$?
        echo "$rc $(lvm2 pvs --noheadings -o pv_size,pv_mda_count ${D[0]} 2>/dev/null)" >"$SCRATCH/$who.r"
        grep -v WARNING "$SCRATCH/$who.err" >"$SCRATCH/$who.msg"
        dd if="${D[0]}" bs=1M count=16 status=none | sha256sum >"$SCRATCH/$who.sum"
    done
    test_eq "pvresize to $sz of a PV with 2 metadata areas: LVM2's exit code, size, areas" \
        "$(cat "$SCRATCH/lvm2.r")" "$(cat "$SCRATCH/lvx.r")"
    test_eq "... LVM2's messages" "$(cat "$SCRATCH/lvm2.msg")" "$(cat "$SCRATCH/lvx.msg")"
    test_eq "... the device byte for byte as LVM2 leaves it" "$(cat "$SCRATCH/lvm2.sum")" \
        "$(cat "$SCRATCH/lvx.sum")"
done
# the suite's case: one metadata area, the data area at 3m
for who in lvm2 lvx; do
    pv8m 1 --metadatasize 2m
    r=""
    for sz in 2m 3m; do
        rc=0; $who pvresize --setphysicalvolumesize "$sz" -y "${D[0]}" >/dev/null 2>"$SCRATCH/e" || rc=$?
        r+="$sz:$rc:$(grep -v WARNING "$SCRATCH/e" | tr '\n' '|') "
    done
    echo "$r $(lvm2 pvs --noheadings -o pv_size,pv_mda_count ${D[0]} 2>/dev/null)" >"$SCRATCH/$who.r"
done
test_eq "pvresize 2m, then 3m, of a PV whose data starts at 3m: as LVM2" "$(cat "$SCRATCH/lvm2.r")" \
    "$(cat "$SCRATCH/lvx.r")"
test_ok "... 2m refused below the data area start" grep -q \
    "2m:5:  Size must exceed physical extent start of 6144 sectors on PV ${D[0]}." "$SCRATCH/lvx.r"

done_testing
