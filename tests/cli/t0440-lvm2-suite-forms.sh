#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0440-lvm2-suite-forms: command forms that LVM2's own test suite uses (shell/
# pvcreate-usage, vgcreate-usage, vgextend-usage, vgreduce-usage, pvremove-usage,
# lvcreate-usage, select-report), checked against the real LVM2 on loop devices: the
# same exit codes and the values its tests check.
#   -M2 / --metadatatype lvm2 (and a bad type: exit 3); vgcreate/vgextend with the
#   implicit pvcreate's options (--zero, --labelsector, --pvmetadatacopies,
#   --metadatasize, --dataalignment[offset], --metadataignore); lvm.conf
#   metadata/pvmetadatasize; --dataalignment 1e (exit 3); "Metadata area size too
#   small"; pvs -a (byte-identical to LVM2's); vgreduce --all of the last PV (exit 5);
#   lvcreate --type foo (exit 3), -My --minor N (FIXED_MINOR, major/minor as LVM2
#   records them), -My without --minor, -Mn --minor, --minor out of range (exit 5);
#   lvextend LV PV without a size (all free extents of PV); --type zero|error LVs made,
#   extended with mixed types, reported, reduced, renamed and removed as by LVM2;
#   -S/--select in vgchange, lvchange, pvchange, vgremove (the tags each step leaves);
#   devices/pv_min_size (a smaller device is no PV; under 512 KiB: LVM2's note);
#   vgchange --addtag/--deltag while a PV is missing (other changes still refused);
#   pvremove -ff without an answer says "is used" first; lvcreate -ky / lvchange -ky|-kn
#   set and clear the activation skip flag ('k' in lv_attr) as LVM2 (shell/activation-skip);
#   pvcreate --uuid of a UUID another device carries (LVM2's line, exit 5) and
#   --restorefile bringing back the bootloader area (shell/pvcreate-operation,
#   pvcreate-bootloaderarea); lvchange -My --major --minor / -Mn and its refused forms
#   (shell/activate-minor): exit code, messages and the LV's fields as LVM2; a device
#   with a GFS pool label or an LVM1 header is refused by pvcreate (shell/pool-labels);
#   a negative --stripesize is "Size may not be negative." (shell/lvcreate-usage); an LV
#   named twice (VG/LV and VG) is processed once (shell/process-each-lv); lvchange takes
#   LVM_VG_NAME for an LV without VG (shell/vg-name-from-env); devices/
#   default_data_alignment (shell/pe-align): pe_start and the metadata area as LVM2's;
#   vgchange/lvchange --setautoactivation y|n (shell/duplicate-vgid): messages, exit
#   codes and the autoactivation fields as LVM2.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm
need_lvx
plan_later

D=()
for _ in 1 2 3 4; do D+=("$(make_loop 34M)") || skip_all "cannot make loop devices"; done
lvm_sandbox "${D[@]}"

# both TOOLARGS...: run with LVM2 then lvx; exit codes must be equal; the outputs are
# left in $SCRATCH/{lvm2,lvx}.{out,err}.  Each tool cleans up after itself (wipe).
wipe() { for d in "${D[@]}"; do dd if=/dev/zero of="$d" bs=1M count=2 conv=fsync status=none; done; }
run_tool() {  # run_tool lvm2|lvx ARGS...
    local t=$1 rc=0
    shift
    "$t" "$@" >"$SCRATCH/$t.out" 2>"$SCRATCH/$t.err" || rc=$?
    echo "$rc"
}
same_rc() {  # same_rc DESC WANT ARGS...
    local desc=$1 want=$2 a b
    shift 2
    a=$(run_tool lvm2 "$@")
    b=$(run_tool lvx "$@")
    test_eq "$desc: LVM2 exits $want" "$a" "$want"
    test_eq "$desc: lvx exits $want" "$b" "$want"
}
field() { "$1" pvs --noheadings -o "$2" "${@:4}" "$3" 2>/dev/null | tr -d ' '; }
vgfield() { "$1" vgs --noheadings -o "$2" "$3" 2>/dev/null | tr -d ' '; }

# -------------------------------------------------------------- metadata type
wipe
same_rc "pvcreate -M2" 0 pvcreate -M2 "${D[0]}"
same_rc "pvcreate --metadatatype lvm2" 0 pvcreate -ff -y --metadatatype lvm2 "${D[0]}"
same_rc "pvcreate -M1 (lvm1 is not supported)" 3 pvcreate -M1 "${D[1]}"
test_ok "... 'Invalid argument for --metadatatype: 1'" grep -q "Invalid argument for --metadatatype: 1" "$SCRATCH/lvx.err"
same_rc "pvcreate --dataalignment 1e" 3 pvcreate --dataalignment 1e "${D[1]}"
test_ok "... 'Physical volume data alignment is too big.'" grep -q "data alignment is too big" "$SCRATCH/lvx.err"
same_rc "pvcreate with a 16 KiB metadata area" 5 pvcreate --dataalignment 16384b --metadatasize 16384b "${D[1]}"
test_ok "... 'Metadata area size too small'" grep -q "Metadata area size too small" "$SCRATCH/lvx.err"

# -------------------------------------------------------------- the implicit pvcreate
for t in lvm2 lvx; do
    wipe
    rc=$(run_tool "$t" vgcreate -M2 --zero y --labelsector 2 --pvmetadatacopies 2 --metadatasize 100k \
        --dataalignment 100k t0440t "${D[0]}")
    test_eq "$t vgcreate with pvcreate options" "$rc" 0
    test_ok "$t: the label is in sector 2" sh -c "dd if=${D[0]} bs=512 skip=2 count=1 status=none | grep -q LABELONE"
    eval "mda_$t=\$(field $t pv_mda_count ${D[0]}) start_$t=\$(field $t pe_start ${D[0]})"
    rc=$(run_tool "$t" vgextend --metadataignore y --pvmetadatacopies 1 --dataalignmentoffset 7s \
        --metadatasize 128k t0440t "${D[1]}")
    test_eq "$t vgextend with pvcreate options" "$rc" 0
    eval "used_$t=\$(field $t pv_mda_used_count ${D[1]}) off_$t=\$(field $t pe_start ${D[1]} --units b)"
    eval "cfg_$t=\$($t pvcreate --config 'metadata {pvmetadatasize=255}' --dataalignment 512k ${D[2]} >/dev/null 2>&1; field $t pe_start ${D[2]})"
    rc=$(run_tool "$t" vgreduce --all t0440t)
    test_eq "$t vgreduce --all keeps the last PV and fails" "$rc" 5
    test_ok "$t: ... 'Can't remove final physical volume'" grep -q "Can't remove final physical volume" "$SCRATCH/$t.err"
    "$t" vgremove -f t0440t >/dev/null 2>&1
done
# shellcheck disable=SC2154  # set by eval above
{
    test_eq "vgcreate --pvmetadatacopies 2: lvx as LVM2" "$mda_lvx" "$mda_lvm2"
    test_eq "vgcreate --metadatasize 100k --dataalignment 100k: pe_start as LVM2 (200.00k)" "$start_lvx" "$start_lvm2"
    test_eq "vgextend --metadataignore y: no used area, as LVM2" "$used_lvx" "$used_lvm2"
    test_eq "vgextend --dataalignmentoffset 7s: pe_start as LVM2 (1052160B)" "$off_lvx" "$off_lvm2"
    test_eq "metadata/pvmetadatasize=255 with --dataalignment 512k: pe_start as LVM2 (512.00k)" "$cfg_lvx" "$cfg_lvm2"
}

# vgextend with an orphan PV and a device that is not a PV yet: no warning
wipe
lvx pvcreate "${D[0]}" >/dev/null 2>&1
lvx vgcreate t0440x "${D[1]}" >/dev/null 2>&1
rc=$(run_tool lvx vgextend t0440x "${D[0]}" "${D[2]}")
test_eq "vgextend VG ORPHAN-PV NEW-DEVICE" "$rc" 0
test_eq "... warns about nothing (the sandbox's backup warning aside)" \
    "$(sandbox_noise <"$SCRATCH/lvx.err" | grep -c WARNING)" 0
lvx vgremove -f t0440x >/dev/null 2>&1

# -------------------------------------------------------------- pvs -a
wipe
lvm2 pvcreate "${D[0]}" >/dev/null 2>&1
test_eq "pvs -a: non-PV devices listed as LVM2 does" "$(lvx pvs -a 2>/dev/null)" "$(lvm2 pvs -a 2>/dev/null)"
test_eq "pvs -a -o +pv_uuid,dev_size,pe_start,pv_mda_count --reportformat json: as LVM2" \
    "$(lvx pvs -a -o +pv_uuid,dev_size,pe_start,pv_mda_count --reportformat json 2>/dev/null)" \
    "$(lvm2 pvs -a -o +pv_uuid,dev_size,pe_start,pv_mda_count --reportformat json 2>/dev/null)"
lvm2 vgcreate t0440a "${D[0]}" "${D[1]}" >/dev/null 2>&1
test_eq "pvs -a with a VG: as LVM2" "$(lvx pvs -a -o +dev_size 2>/dev/null)" "$(lvm2 pvs -a -o +dev_size 2>/dev/null)"
test_eq "pvs -a -S pv_fmt=\"\": the non-PV devices, as LVM2" \
    "$(lvx pvs -a -S 'pv_fmt=""' 2>/dev/null)" "$(lvm2 pvs -a -S 'pv_fmt=""' 2>/dev/null)"
lvm2 vgremove -f t0440a >/dev/null 2>&1

# -------------------------------------------------------------- lvcreate forms
wipe
lvm2 vgcreate t0440l "${D[0]}" "${D[1]}" >/dev/null 2>&1
same_rc "lvcreate --type foo" 3 lvcreate -an --type foo -l1 t0440l
test_ok "... 'Invalid argument for --type: foo'" grep -q "Invalid argument for --type: foo" "$SCRATCH/lvx.err"
same_rc "lvcreate -My without --minor" 5 lvcreate -an -My --major 234 -l1 t0440l
same_rc "lvcreate -Mn --major" 5 lvcreate -an -Mn --major 234 -l1 t0440l
same_rc "lvcreate --persistent n --minor" 5 lvcreate -an --persistent n --minor 234 -l1 t0440l
same_rc "lvcreate --minor 9999999" 5 lvcreate -an --minor 9999999 -l1 t0440l
test_ok "... 'outside range'" grep -q "Minor number 9999999 outside range 0-1048575" "$SCRATCH/lvx.err"
rc=$(run_tool lvx lvcreate -an -My --minor 2345 -j 122 -l1 -n lvm t0440l)
test_eq "lvx lvcreate -My --minor 2345 -j 122" "$rc" 0
test_ok "... 'Ignoring supplied major number'" grep -q "Ignoring supplied major number 122" "$SCRATCH/lvx.err"
got=$(lvm2 lvs --noheadings -o lv_attr,lv_major,lv_minor t0440l/lvm 2>/dev/null | tr -s ' ')
dmmaj=$(awk '$2 == "device-mapper" {print $1}' /proc/devices | grep . || echo 0)
test_eq "LVM2 reads lvx's persistent minor (attr m, major, minor)" \
    "$(awk '{print substr($1, 4, 1), $2, $3}' <<<"$got")" "m $dmmaj 2345"
lvm2 vgremove -f t0440l >/dev/null 2>&1

# lvextend LV PV without a size takes every free extent of the PV (LVM2 bz154691)
wipe
lvm2 vgcreate t0440e "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -an -Zn -L8m -n lv t0440e "${D[0]}" >/dev/null 2>&1
rc=$(run_tool lvx lvextend t0440e/lv "${D[0]}")
test_eq "lvx lvextend LV PV (no size)" "$rc" 0
test_ok "... 'successfully resized'" grep -q "Logical volume t0440e/lv successfully resized" "$SCRATCH/lvx.out"
test_eq "... the PV has no free extent left (LVM2 reads it)" "$(field lvm2 pv_free "${D[0]}")" "0"
same_rc "lvextend LV (neither size nor PV)" 3 lvextend t0440e/lv
lvm2 vgremove -f t0440e >/dev/null 2>&1

# PV arguments as @tag (shell/lvcreate-pvtags): the VG's PVs with the tag
for t in lvm2 lvx; do
    wipe
    lvm2 vgcreate t0440g "${D[0]}" "${D[1]}" "${D[2]}" >/dev/null 2>&1
    lvm2 pvchange --addtag fast "${D[0]}" "${D[2]}" >/dev/null 2>&1
    test_eq "$t lvcreate -l2 -i2 VG @fast" "$(run_tool "$t" lvcreate -an -Zn -l2 -i2 -n s t0440g @fast)" 0
    eval "devs_$t=\$(lvm2 lvs --noheadings -o devices t0440g/s 2>/dev/null | tr -d ' ')"
    test_eq "$t lvcreate -l3 -i3 VG @fast (2 PVs tagged)" "$(run_tool "$t" lvcreate -an -Zn -l3 -i3 -n t t0440g @fast)" 5
    test_eq "$t lvcreate -l1 VG @none (no PV tagged)" "$(run_tool "$t" lvcreate -an -Zn -l1 -n u t0440g @none)" 5
    lvm2 vgremove -f t0440g >/dev/null 2>&1
done
# activation/read_only_volume_list (shell/tags): the LV is not zeroed, and says so
wipe
lvm2 vgcreate t0440r "${D[0]}" >/dev/null 2>&1
pe=$(lvm2 pvs --noheadings --units b --nosuffix -o pe_start "${D[0]}" 2>/dev/null | tr -d ' ')
dd if=/dev/urandom of="${D[0]}" bs=4096 seek=$((pe / 4096)) count=1 conv=fsync status=none
head_sum() { dd if="${D[0]}" bs=4096 skip=$((pe / 4096)) count=1 status=none | md5sum; }
before=$(head_sum)
test_eq "lvx lvcreate --addtag RO with read_only_volume_list [\"@RO\"]" \
    "$(run_tool lvx lvcreate -an -l1 -n ro --addtag RO t0440r --config 'activation/read_only_volume_list = [ "@RO" ]')" 0
test_ok "... 'WARNING: Read-only activated logical volume t0440r/ro not zeroed.'" \
    grep -q "Read-only activated logical volume t0440r/ro not zeroed" "$SCRATCH/lvx.err"
test_eq "... the LV's first 4 KiB were left alone" "$(head_sum)" "$before"
test_eq "lvx lvcreate with read_only_volume_list not matching" \
    "$(run_tool lvx lvcreate -an -l1 -n rw t0440r --config 'activation/read_only_volume_list = [ "@RO", "t0440r/x", "other" ]')" 0
test_eq "... no warning" "$(grep -c "not zeroed" "$SCRATCH/lvx.err")" 0
lvm2 vgremove -f t0440r >/dev/null 2>&1

# report compaction (shell/report-fields) and an empty subset selection (select-report)
wipe
lvm2 vgcreate t0440c "${D[0]}" "${D[1]}" >/dev/null 2>/dev/null
lvm2 lvcreate -an -Zn -l1 -n tagged --addtag t1 t0440c >/dev/null 2>/dev/null
lvm2 lvcreate -an -Zn -l1 -n plain t0440c >/dev/null 2>/dev/null
for form in "-o pv_name,pv_exported,pv_tags -o#pv_tags" "-o pv_name,pv_tags,pv_exported -o#pv_tags,pv_exported" \
            "-o pv_name,pv_tags -o#pv_name,pv_tags"; do
    # shellcheck disable=SC2086
    test_eq "pvs --nameprefixes $form: as LVM2" "$(lvx pvs --nameprefixes $form 2>/dev/null)" "$(lvm2 pvs --nameprefixes $form 2>/dev/null)"
done
test_eq "pvs with report/compact_output_cols=\"pv_tags\": as LVM2" \
    "$(lvx pvs -o pv_name,pv_tags --config 'report/compact_output_cols="pv_tags"' 2>/dev/null)" \
    "$(lvm2 pvs -o pv_name,pv_tags --config 'report/compact_output_cols="pv_tags"' 2>/dev/null)"
test_eq "lvs with report/compact_output=1: as LVM2" \
    "$(lvx lvs -o lv_name,lv_tags,origin t0440c --config 'report/compact_output=1' 2>/dev/null)" \
    "$(lvm2 lvs -o lv_name,lv_tags,origin t0440c --config 'report/compact_output=1' 2>/dev/null)"
for sel in 'tags={}' 'tags=[]' 'tags=""' 'tags={"t1"}'; do
    test_eq "lvs -S '$sel': as LVM2" "$(lvx lvs --noheadings -o lv_name -S "$sel" t0440c 2>/dev/null)" \
        "$(lvm2 lvs --noheadings -o lv_name -S "$sel" t0440c 2>/dev/null)"
done
test_eq "... 'tags={}' is the untagged LV" "$(lvx lvs --noheadings -o lv_name -S 'tags={}' t0440c 2>/dev/null | tr -d ' ')" plain
lvm2 vgremove -f t0440c >/dev/null 2>&1

# small forms: pvdisplay -a alone, an invalid global/units, -L+-N, a bootloader area
# past the device end, lvextend -I above the extent size
same_rc "pvdisplay -a (without -C)" 3 pvdisplay -a
test_ok "... 'Incompatible options selected'" grep -q "Incompatible options selected" "$SCRATCH/lvx.err"
same_rc "pvdisplay -s -a -C (shell/process-each-pv)" 3 pvdisplay -s -a -C
same_rc "pvdisplay -s -C" 3 pvdisplay -s -C
test_ok "... 'Incompatible options selected'" grep -q "Incompatible options selected" "$SCRATCH/lvx.err"
same_rc "vgs --devicesfile F --devices D (shell/devicesfile-basic)" 3 vgs --devicesfile t.devices --devices "${D[0]}"
test_ok "... 'A --devices list cannot be used with --devicesfile.'" \
    grep -q "A --devices list cannot be used with --devicesfile." "$SCRATCH/lvx.err"
same_rc "pvs with global/units \"<\"" 5 pvs --config 'global { units = "<" }'
test_ok "... 'Unrecognised configuration setting for global/units: <'" \
    grep -q "Unrecognised configuration setting for global/units: <" "$SCRATCH/lvx.err"
wipe
lvm2 vgcreate -s 1m t0440s "${D[0]}" "${D[1]}" >/dev/null 2>&1
same_rc "lvcreate -L+-10" 3 lvcreate -an -L+-10 -n x t0440s
test_ok "... 'Multiple sign symbols detected.'" grep -q "Multiple sign symbols detected." "$SCRATCH/lvx.err"
lvm2 lvcreate -an -Zn -i2 -l2 -n st t0440s >/dev/null 2>&1
test_eq "lvx lvextend -i2 -I2m (extent size 1m)" "$(run_tool lvx lvextend -l+2 -i2 -I2m t0440s/st)" 0
test_ok "... 'Reducing stripe size 2.00 MiB to maximum, physical extent size 1.00 MiB.'" \
    grep -q "Reducing stripe size 2.00 MiB to maximum, physical extent size 1.00 MiB." "$SCRATCH/lvx.out"
lvm2 vgremove -f t0440s >/dev/null 2>&1
wipe
same_rc "pvcreate --bootloaderareasize past the device end" 5 pvcreate --bootloaderareasize 40m "${D[2]}"
test_ok "... 'Bootloader area with data-aligned start must not exceed device size'" \
    grep -q "Bootloader area with data-aligned start must not exceed device size" "$SCRATCH/lvx.err"

# LVM_VG_NAME (shell/vg-name-from-env): the VG of lvcreate without one, of LV names
wipe
lvm2 vgcreate t0440v1 "${D[0]}" >/dev/null 2>&1
lvm2 vgcreate t0440v2 "${D[1]}" >/dev/null 2>&1
test_eq "LVM_VG_NAME=t0440v1 lvx lvcreate -n a -l1 (no VG)" "$(LVM_VG_NAME=t0440v1 run_tool lvx lvcreate -an -Zn -n a -l1)" 0
lvm2 lvcreate -an -Zn -n b -l1 t0440v2 >/dev/null 2>&1
test_eq "... LVM2 sees the LV in t0440v1" "$(lvm2 lvs --noheadings -o lv_name t0440v1 2>/dev/null | tr -d ' ')" a
for args in "" "a" "t0440v1" "b" "t0440v2/b" "a t0440v2/b"; do
    # shellcheck disable=SC2086
    LVM_VG_NAME=t0440v1 same_rc "LVM_VG_NAME=t0440v1 lvs $args" \
        "$(LVM_VG_NAME=t0440v1 run_tool lvm2 lvs --noheadings -o vg_name,lv_name $args)" lvs --noheadings -o vg_name,lv_name $args
    test_eq "... same rows" "$(cat "$SCRATCH/lvx.out")" "$(cat "$SCRATCH/lvm2.out")"
done
lvm2 vgremove -f t0440v1 t0440v2 >/dev/null 2>&1

test_eq "lvcreate VG @fast: the LV on the tagged PVs, as LVM2" "$devs_lvx" "$devs_lvm2"
test_ok "... both tagged PVs used" grep -q "${D[2]}" <<<"$devs_lvx"
# --type zero|error (shell/zero-usage, error-usage, unknown-segment): segments without
# PV space, mixed with linear/striped ones by lvextend, as LVM2 makes and reports them
wipe
for t in lvm2 lvx; do
    "$t" vgcreate -s 512k "t0440z$t" "${D[$([[ $t == lvm2 ]] && echo 0 || echo 1)]}" >/dev/null 2>&1
    vg=t0440z$t
    {
        for cmd in "lvcreate -an --type zero -L1 -n z $vg" "lvextend -L+1 $vg/z" \
                   "lvextend -L+1 --type error $vg/z" "lvextend -L+1 --type linear $vg/z" \
                   "lvextend -L+1 --type striped $vg/z" "lvextend -L+1 --type zero $vg/z" \
                   "lvcreate -an --type error -L1 -n e $vg" "lvextend -L+1 -I64 -i2 $vg/e"; do
            # shellcheck disable=SC2086
            echo "$cmd: $(run_tool "$t" $cmd)"
            grep -v WARNING "$SCRATCH/$t.out" "$SCRATCH/$t.err" | sed "s/$vg/VG/g; s/^[^:]*://"
        done
        "$t" lvs -o lv_name,lv_modules,segtype,seg_size_pe,seg_count,lv_size "$vg" 2>/dev/null
        "$t" vgcfgbackup -f "$SCRATCH/$t.bak" "$vg" >/dev/null 2>&1
        grep -E '^\s*(start_extent|extent_count|type|stripe_count) ' "$SCRATCH/$t.bak"
        for cmd in "lvreduce -f -L-1 $vg/z" "lvrename $vg/z z2" "lvremove -f $vg/z2 $vg/e"; do
            # shellcheck disable=SC2086
            echo "$cmd: $(run_tool "$t" $cmd)"
        done
    } >"$SCRATCH/zero.$t" 2>&1
    "$t" vgremove -f "$vg" >/dev/null 2>&1
done
test_ok "lvcreate --type zero succeeds (LVM2)" grep -q "^lvcreate -an --type zero -L1 -n z t0440zlvm2: 0" "$SCRATCH/zero.lvm2"
test_ok "lvcreate --type zero succeeds (lvx)" grep -q "^lvcreate -an --type zero -L1 -n z t0440zlvx: 0" "$SCRATCH/zero.lvx"
test_ok "lvextend --type error: LVM2's 'mixing segment types zero and error'" \
    grep -q "is using mixing segment types zero and error" "$SCRATCH/zero.lvx"
test_ok "lvs: lv_modules error,zero and 4 segments" grep -Eq "^ *z +error,zero +zero +4 +4 +6.00m" "$SCRATCH/zero.lvx"
test_eq "zero/error LVs: exit codes, messages, lvs, metadata segments, reduce/rename/remove as LVM2" \
    "$(sed 's/t0440zlvx/VG/g' "$SCRATCH/zero.lvx")" "$(sed 's/t0440zlvm2/VG/g' "$SCRATCH/zero.lvm2")"

# -S/--select in changing commands (shell/select-tools): vgchange, lvchange, pvchange and
# vgremove act on what the selection picks, with LV, segment, PV and PV-segment fields
# joined as in the reports, intersected with named arguments; the same tag changes as
# LVM2 from the same start
sel_run() {  # sel_run TOOL: the select-tools steps, the tags after each step
    local t=$1 step
    wipe
    lvm2 vgcreate -s 4m t0440s1 "${D[0]}" "${D[1]}" >/dev/null 2>&1
    lvm2 vgcreate -s 4m t0440s2 "${D[2]}" >/dev/null 2>&1
    lvm2 lvcreate -an -l1 -n lv1 t0440s1 "${D[0]}" >/dev/null 2>&1
    lvm2 lvcreate -an -l3 -n lv2 t0440s1 "${D[0]}" "${D[1]}" >/dev/null 2>&1
    lvm2 lvcreate -an -l1 -n lv1 t0440s2 >/dev/null 2>&1
    while IFS= read -r step; do
        # shellcheck disable=SC2086
        echo "$step: $(run_tool "$t" $step)"
        grep -h "Selection failed\|Can't report LV and PV" "$SCRATCH/$t.err" | sort -u
        lvm2 vgs --noheadings -o vg_name,vg_tags t0440s1 t0440s2 2>/dev/null
        lvm2 lvs --noheadings -o vg_name,lv_name,lv_tags t0440s1 t0440s2 2>/dev/null
        lvm2 pvs --noheadings -o pv_name,pv_tags "${D[@]:0:3}" 2>/dev/null
    done <<STEPS
vgchange --addtag 101 -S vg_name=t0440s1
vgchange --addtag 102 -S lv_name=lv2
vgchange --addtag 104 -S seg_start=8m
vgchange --addtag 108 -S pvseg_size=2
vgchange --addtag 110 -S vg_name=t0440s1 t0440s2
vgchange --addtag 111 -S vg_name=t0440s1 t0440s1
lvchange --addtag 201 -S vg_name=t0440s1
lvchange --addtag 203 -S lv_name=lv1
lvchange --addtag 204 -S seg_start=8m
lvchange --addtag 205 -S pv_name=${D[0]}
lvchange --addtag 207 -S lv_name=lv2 t0440s1/lv1
lvchange --addtag 208 -S lv_name=lv2 t0440s1/lv2
pvchange --addtag 301 -S vg_name=t0440s1
pvchange --addtag 303 -S seg_start=8m
pvchange --addtag 305 -S pvseg_size=2
pvchange --addtag 306 -S pv_name=${D[0]} ${D[1]}
vgremove --yes -S lv_name=lv2
STEPS
    lvm2 vgremove -f t0440s1 t0440s2 >/dev/null 2>&1
}
sel_run lvm2 >"$SCRATCH/sel.lvm2" 2>&1
sel_run lvx >"$SCRATCH/sel.lvx" 2>&1
test_ok "vgchange -S lv_name=lv2 tags only the VG with lv2 (lvx)" \
    grep -Eq "^ *t0440s1 +101,102$" "$SCRATCH/sel.lvx"
test_ok "lvchange -S with a PV field: LVM2's 'Selection failed for LV'" \
    grep -q "Selection failed for LV lv1" "$SCRATCH/sel.lvx"
test_ok "vgremove -S lv_name=lv2 removed t0440s1 only (lvx)" \
    grep -q "^vgremove --yes -S lv_name=lv2: 0" "$SCRATCH/sel.lvx"
test_eq "-S in vgchange/lvchange/pvchange/vgremove: exit codes and the tags after each step as LVM2" \
    "$(sed 's/report type "[a-z]*"/report type/' "$SCRATCH/sel.lvx")" "$(sed 's/report type "[a-z]*"/report type/' "$SCRATCH/sel.lvm2")"

# devices/pv_min_size (shell/pv-min-size): smaller devices are no PVs; a value under
# 512 KiB counts as 512 with LVM2's note (the devices here are 34 MiB = 34816 KiB)
wipe
lvm2 pvcreate "${D[0]}" >/dev/null 2>&1
same_rc "pvs DEV with pv_min_size 34816 (the device's size)" 0 pvs --config 'devices {pv_min_size=34816}' "${D[0]}"
same_rc "pvs DEV with pv_min_size 34817 (one KiB more)" 5 pvs --config 'devices {pv_min_size=34817}' "${D[0]}"
same_rc "pvs with pv_min_size -100" 0 pvs --config 'devices {pv_min_size=-100}' "${D[0]}"
test_ok "... LVM2's 'Ignoring too small pv_min_size -100KB, using default 512KB.'" \
    grep -q "^  Ignoring too small pv_min_size -100KB, using default 512KB.$" "$SCRATCH/lvx.err"
test_eq "... said once" "$(grep -c "Ignoring too small" "$SCRATCH/lvx.err")" 1
same_rc "pvcreate of a device under pv_min_size" 5 pvcreate --config 'devices {pv_min_size=40000}' "${D[1]}"
test_ok "... 'device is too small (pv_min_size)'" grep -q "Cannot use ${D[1]}: device is too small (pv_min_size)" "$SCRATCH/lvx.err"

# tags may change while a PV is missing, nothing else (shell/vgchange-partial)
wipe
lvm2 vgcreate t0440p "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm_sandbox "${D[@]:1}"         # D0 goes missing
test_eq "vgchange --addtag with a missing PV: lvx exits 0 (as LVM2)" "$(run_tool lvx vgchange --addtag foo t0440p)" 0
test_eq "... LVM2 reads the tag" "$(lvm2 vgs --noheadings -o vg_tags t0440p 2>/dev/null | tr -d ' ')" foo
same_rc "vgchange -p 10 with a missing PV" 5 vgchange -p 10 t0440p
same_rc "vgchange -p 10 --addtag bar with a missing PV" 5 vgchange -p 10 --addtag bar t0440p
test_eq "... the tags unchanged" "$(lvm2 vgs --noheadings -o vg_tags t0440p 2>/dev/null | tr -d ' ')" foo
lvm_sandbox "${D[@]}"
lvm2 vgremove -ff t0440p >/dev/null 2>&1

# pvremove -ff of a PV in a VG without an answer: "is used" said before the question
# (shell/pvremove-usage greps it)
wipe
lvm2 vgcreate t0440r "${D[0]}" >/dev/null 2>&1
same_rc "pvremove -ff PV-IN-VG, no answer" 5 pvremove -ff "${D[0]}"
test_ok "... 'WARNING: PV DEV is used by VG t0440r.' (lvx)" grep -q "WARNING: PV ${D[0]} is used by VG t0440r." "$SCRATCH/lvx.err"
test_ok "... 'WARNING: PV DEV is used by VG t0440r.' (LVM2)" grep -q "WARNING: PV ${D[0]} is used by VG t0440r." "$SCRATCH/lvm2.err"
lvm2 vgremove -ff t0440r >/dev/null 2>&1

# the activation skip flag (shell/activation-skip): lvcreate -ky, lvchange -ky/-kn
wipe
skipattr() { lvm2 lvs --noheadings -o lv_attr "$1" 2>/dev/null | tr -d ' ' | cut -c10; }
lvm2 vgcreate t0440k "${D[0]}" >/dev/null 2>&1
for t in lvm2 lvx; do
    test_eq "$t lvcreate -ky -an" "$(run_tool "$t" lvcreate -ky -an -l1 -n "s$t" t0440k)" 0
    test_eq "... $t's LV is flagged (attr k, read by LVM2)" "$(skipattr "t0440k/s$t")" k
    test_eq "$t lvcreate -an (no -k)" "$(run_tool "$t" lvcreate -an -l1 -n "n$t" t0440k)" 0
    test_eq "... $t's LV is not flagged" "$(skipattr "t0440k/n$t")" -
    test_eq "$t lvchange -ky" "$(run_tool "$t" lvchange -ky "t0440k/n$t")" 0
    test_eq "... flagged" "$(skipattr "t0440k/n$t")" k
    test_eq "$t lvchange --setactivationskip n" "$(run_tool "$t" lvchange --setactivationskip n "t0440k/s$t")" 0
    test_eq "... not flagged" "$(skipattr "t0440k/s$t")" -
    cat "$SCRATCH/$t.out" "$SCRATCH/$t.err" | sandbox_noise | sed "s/s$t/LV/" >"$SCRATCH/$t.msg"
done
test_ok "lvchange -kn: the same messages" cmp "$SCRATCH/lvm2.msg" "$SCRATCH/lvx.msg"
lvm2 vgremove -ff t0440k >/dev/null 2>&1

# lvchange -M (shell/activate-minor): each form on LVM2's LV and on lvx's twin
wipe
lvm2 vgcreate t0440m "${D[0]}" >/dev/null 2>&1
for t in lvm2 lvx; do lvm2 lvcreate -an -l1 -n "m$t" t0440m >/dev/null 2>&1; done
for args in "-My --major=255 --minor=123" "-Mn" "-Mn" "-My" "-Mn --minor 3" "--minor 5" "--major 3" \
    "-My --minor 2000000" "-My --minor 124 -Mn"; do
    for t in lvm2 lvx; do
        # shellcheck disable=SC2086
        echo "$(run_tool "$t" lvchange "t0440m/m$t" $args)" >"$SCRATCH/$t.m"
        lvm2 lvs --noheadings -o lv_attr,lv_major,lv_minor "t0440m/m$t" 2>/dev/null >>"$SCRATCH/$t.m"
        cat "$SCRATCH/$t.out" "$SCRATCH/$t.err" | sandbox_noise | sed "s/m$t/LV/g" >>"$SCRATCH/$t.m"
    done
    test_ok "lvchange $args: exit code, fields and messages as LVM2" cmp "$SCRATCH/lvm2.m" "$SCRATCH/lvx.m"
done
lvm2 vgremove -ff t0440m >/dev/null 2>&1

# old labels LVM2's signature filter hides: a GFS pool label, an LVM1 PV header
pool_label() {
    printf '\x01\x16\x70\x06\x5f\xcf\xff\xb9\xf8\x24\x8apool1' | dd of="$1" bs=5 seek=1 conv=notrunc status=none
    printf '\x04\x01\x03\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x68\x01\x16\x70\x00\x00\x00\x00\x00\x06\x5f\xd0' |
        dd of="$1" bs=273 seek=1 conv=notrunc status=none
}
for label in pool lvm1; do
    for t in lvm2 lvx; do
        wipe
        if [[ $label == pool ]]; then pool_label "${D[0]}"; else printf 'HM\x02\x00' | dd of="${D[0]}" conv=notrunc status=none; fi
        test_eq "$t pvcreate of a device with a $label label" "$(run_tool "$t" pvcreate "${D[0]}")" 5
        sandbox_noise <"$SCRATCH/$t.err" >"$SCRATCH/$t.msg"
        test_eq "$t ... still no PV" "$(lvm2 pvs --noheadings -o pv_name "${D[0]}" 2>/dev/null | wc -l)" 0
    done
    test_ok "... LVM2's message ($label label)" cmp "$SCRATCH/lvm2.msg" "$SCRATCH/lvx.msg"
done
wipe
lvm2 vgcreate t0440s "${D[0]}" "${D[1]}" >/dev/null 2>&1
same_rc "lvcreate --stripesize -4" 3 lvcreate -L 8m -n s -i2 --stripesize -4 t0440s
test_ok "... 'Size may not be negative.'" grep -q "Size may not be negative" "$SCRATCH/lvx.err"
same_rc "lvcreate --stripesize 4294967291" 3 lvcreate -L 8m -n s -i2 --stripesize 4294967291 t0440s
test_ok "... 'Stripe size cannot be larger than 512.00 GiB.'" \
    grep -q "Stripe size cannot be larger than 512.00 GiB." "$SCRATCH/lvx.err"
lvm2 vgremove -ff t0440s >/dev/null 2>&1

# each LV once, whatever names it; LVM_VG_NAME in lvchange
for t in lvm2 lvx; do
    wipe
    lvm2 vgcreate t0440e "${D[0]}" >/dev/null 2>&1
    for i in 1 2 3 4; do lvm2 lvcreate -an -l1 -n "l$i" t0440e >/dev/null 2>&1; done
    {
        run_tool "$t" lvremove -y t0440e/l1 t0440e t0440e/l3
        cat "$SCRATCH/$t.out"
        lvm2 lvcreate -an -l1 -n l5 t0440e >/dev/null 2>&1
        LVM_VG_NAME=t0440e run_tool "$t" lvchange --addtag x l5
        cat "$SCRATCH/$t.out"
        run_tool "$t" lvchange --addtag y t0440e/l5 t0440e t0440e/l5
        cat "$SCRATCH/$t.out"
        lvm2 lvs --noheadings -o lv_name,lv_tags t0440e 2>/dev/null
    } >"$SCRATCH/$t.each"
    lvm2 vgremove -ff t0440e >/dev/null 2>&1
done
test_ok "lvremove VG/LV VG VG/LV2, lvchange with LVM_VG_NAME and twice-named LVs: as LVM2" \
    cmp "$SCRATCH/lvm2.each" "$SCRATCH/lvx.each"

# --setautoactivation
for t in lvm2 lvx; do
    wipe
    lvm2 vgcreate t0440u "${D[0]}" >/dev/null 2>&1
    lvm2 lvcreate -an -l1 -n l t0440u >/dev/null 2>&1
    for c in "vgchange --setautoactivation n t0440u" "vgchange --setautoactivation n t0440u" \
        "vgchange --setautoactivation y t0440u" "vgchange --setautoactivation y t0440u" \
        "lvchange --setautoactivation n t0440u/l" "lvchange --setautoactivation n t0440u/l" \
        "lvchange --setautoactivation y t0440u/l"; do
        # shellcheck disable=SC2086
        run_tool "$t" $c
        cat "$SCRATCH/$t.out" "$SCRATCH/$t.err" | sandbox_noise
        lvm2 vgs --noheadings -o vg_autoactivation t0440u 2>/dev/null
        lvm2 lvs --noheadings -o lv_autoactivation t0440u/l 2>/dev/null
    done >"$SCRATCH/$t.aa"
    lvm2 vgremove -ff t0440u >/dev/null 2>&1
done
test_ok "vgchange/lvchange --setautoactivation y|n: as LVM2" cmp "$SCRATCH/lvm2.aa" "$SCRATCH/lvx.aa"

# devices/default_data_alignment (MiB) with and without --metadatasize
for c in 0 1 2 3; do
    for m in "" "--metadatasize 2048k"; do
        for t in lvm2 lvx; do
            wipe
            # shellcheck disable=SC2086
            "$t" pvcreate $m --config "devices {default_data_alignment=$c}" "${D[0]}" >/dev/null 2>&1
            lvm2 pvs --noheadings -o pe_start,pv_mda_size --units k "${D[0]}" 2>/dev/null >"$SCRATCH/$t.pa"
        done
        test_ok "default_data_alignment=$c ${m:-(default metadata size)}: pe_start, mda size as LVM2" \
            cmp "$SCRATCH/lvm2.pa" "$SCRATCH/lvx.pa"
    done
done

# pvcreate --uuid: a UUID already on another device is refused
u1=freddy-fred-fred-fred-fred-fred-freddy
for t in lvm2 lvx; do
    wipe
    lvm2 pvcreate --norestorefile --uuid "$u1" "${D[0]}" >/dev/null 2>&1
    test_eq "$t pvcreate --uuid of a UUID in use elsewhere" \
        "$(run_tool "$t" pvcreate --norestorefile --uuid "$u1" "${D[1]}")" 5
    sandbox_noise <"$SCRATCH/$t.err" >"$SCRATCH/$t.msg"
    test_eq "... ${D[1]} is no PV" "$(lvm2 pvs --noheadings -o pv_name "${D[1]}" 2>/dev/null | wc -l)" 0
    test_eq "$t pvcreate --uuid of the same device again" \
        "$(run_tool "$t" pvcreate -ff -y --norestorefile --uuid "$u1" "${D[0]}")" 0
done
test_ok "... LVM2's message ('UUID ... already in use on \"DEV\".')" cmp "$SCRATCH/lvm2.msg" "$SCRATCH/lvx.msg"
# pvcreate --restorefile with a --dataalignment[offset] that cannot give the restored
# pe_start: LVM2's warning, the alignment ignored (shell/pvcreate-operation)
wipe
lvm2 pvcreate --norestorefile --uuid "$u1" --dataalignment 600k --dataalignmentoffset 32k "${D[0]}" >/dev/null 2>&1
lvm2 vgcreate t0440a "${D[0]}" >/dev/null 2>&1
lvm2 vgcfgbackup -f "$SCRATCH/al.vg" t0440a >/dev/null 2>&1
lvm2 vgremove -ff t0440a >/dev/null 2>&1
for a in "500k 10k" "300k 32k"; do
    for t in lvm2 lvx; do
        lvm2 pvremove -ff -y "${D[0]}" >/dev/null 2>&1
        read -r da off <<<"$a"
        test_eq "$t pvcreate --restorefile --dataalignment $da --dataalignmentoffset $off" \
            "$(run_tool "$t" pvcreate --restorefile "$SCRATCH/al.vg" --uuid "$u1" --dataalignment "$da" \
               --dataalignmentoffset "$off" "${D[0]}")" 0
        { grep "incompatible with restored pe_start" "$SCRATCH/$t.err"
          lvm2 pvs --noheadings -o pe_start --units b "${D[0]}" 2>/dev/null; } >"$SCRATCH/$t.al"
    done
    test_ok "... the warning (or none) and pe_start as LVM2 ($a)" cmp "$SCRATCH/lvm2.al" "$SCRATCH/lvx.al"
done
same_rc "pvcreate --restorefile with --bootloaderareasize" 3 pvcreate --uuid "$u1" \
    --restorefile "$SCRATCH/al.vg" --bootloaderareasize 1m "${D[0]}" "${D[1]}"
test_ok "... LVM2's line" grep -q -- "Command does not accept option combination: --bootloaderareasize  with --restorefile" "$SCRATCH/lvx.err"
# pvcreate --restorefile --uuid: the bootloader area of the backup comes back
for t in lvm2 lvx; do
    wipe
    lvm2 pvcreate --metadatasize 255s --dataalignment 256k --bootloaderareasize 600k "${D[0]}" >/dev/null 2>&1
    lvm2 vgcreate t0440b "${D[0]}" >/dev/null 2>&1
    lvm2 vgcfgbackup -f "$SCRATCH/ba.vg" t0440b >/dev/null 2>&1
    u=$(lvm2 pvs --noheadings -o pv_uuid "${D[0]}" 2>/dev/null | tr -d ' ')
    lvm2 vgremove -ff t0440b >/dev/null 2>&1
    lvm2 pvremove -ff "${D[0]}" >/dev/null 2>&1
    test_eq "$t pvcreate --restorefile of a PV with a bootloader area" "$(run_tool "$t" pvcreate \
        --metadatasize 255s --dataalignment 256k --restorefile "$SCRATCH/ba.vg" --uuid "$u" "${D[0]}")" 0
    test_eq "... ba_start, ba_size, pe_start as in the backup" \
        "$(lvm2 pvs --noheadings --units b -o ba_start,ba_size,pe_start "${D[0]}" 2>/dev/null | tr -s ' ')" \
        " 262144B 786432B 1048576B"
done

done_testing
