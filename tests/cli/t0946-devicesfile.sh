#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0946-devicesfile: LVM2's devices file (<system dir>/devices/system.devices) with lvx
# and the real LVM2 side by side on the same loop devices (issue 15):
#   - lvmdevices (list, --check, --update, --adddev, --deldev, --addpvid, --delpvid,
#     --deviceidtype, --devicesfile) and vgimportdevices (VG, -a): each run by LVM2
#     and by lvx from the same starting file: same exit code, stdout, stderr and the
#     same file afterwards (its second line names the PID and time: checked for form);
#   - devices/use_devicesfile honoured by the scan: only listed devices are seen (pvs),
#     entries without a device and the ignored global_filter warned about as LVM2;
#     --devicesfile NAME / "" as LVM2;
#   - the files are shared: LVM2 reads and checks what lvx wrote (its VERSION counter
#     continued), lvx what LVM2 wrote; the PV device IDs vgimportdevices puts in the
#     metadata are LVM2's;
#   - pvcreate / vgextend / pvremove keep the file as LVM2 does (new PVs added with
#     their PVID, a removed PV's PVID cleared); a PV joining a VG gets its entry's
#     device ID in the metadata (device_id_type, device_id); without a file pvcreate and
#     vgcreate make one ("Creating devices file"), vgextend does not;
#   - a stale PVID (another PV on the device, none, or ".") is warned about and
#     corrected in the file by any command that reads the devices (not with --test).
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"


VG=vgdf$$
side_setup 4
CONF=$SCRATCH/lvm/lvm.conf
DF=$SCRATCH/lvm/devices/system.devices
use_devicesfile() { sed -i -E "s/use_devicesfile = [01]/use_devicesfile = $1/" "$CONF"; }

lvm2 pvcreate -q "${D[0]}" "${D[1]}" "${D[2]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 lvcreate -q -n one -L 8m "$VG" >/dev/null 2>&1
test_eq "LVM2 made the VG and an orphan PV" "3" \
    "$(lvm2 pvs --noheadings -o pv_name 2>/dev/null | wc -l)"
pvid() { lvm2 pvs --noheadings -o pv_uuid "$1" 2>/dev/null | tr -d ' -'; }
P0=$(pvid "${D[0]}") P1=$(pvid "${D[1]}") P2=$(pvid "${D[2]}")
use_devicesfile 1

# dfop DESC START ARGS...: LVM2 and lvx each from START (a file, or "none": no devices
# file), then compare exit code, stdout, stderr and the file left (but its line 2).
# FILTER_ERR: a regexp of stderr lines to leave out (default SIDE_NOISE, tools/side.sh).
dfop() {
    local desc=$1 start=$2 who ok=0 line2
    shift 2
    for who in l x; do
        if [[ $start == none ]]; then rm -f "$DF"; else mkdir -p "$(dirname "$DF")"; cp "$start" "$DF"; fi
        local rc=0
        if [[ $who == l ]]; then lvm2 "$@" >"$SCRATCH/$who.raw" 2>"$SCRATCH/$who.eraw" || rc=$?
        else lvx "$@" >"$SCRATCH/$who.raw" 2>"$SCRATCH/$who.eraw" || rc=$?; fi
        echo "$rc" >"$SCRATCH/$who.rc"
        side_filter <"$SCRATCH/$who.raw" >"$SCRATCH/$who.out"
        side_filter <"$SCRATCH/$who.eraw" | grep -Ev "${FILTER_ERR:-$SIDE_NOISE}" >"$SCRATCH/$who.err"
        if [[ -e $DF ]]; then sed 2d "$DF" >"$SCRATCH/$who.file"; line2=$(sed -n 2p "$DF")
        else echo "(no file)" >"$SCRATCH/$who.file"; line2=""; fi
        if [[ -n $line2 && ! $line2 =~ ^"# Created by LVM command "[a-z]+" pid "[0-9]+" at "[A-Z][a-z]{2}" "[A-Z][a-z]{2}" "[\ 0-9]{2}" "[0-9:]{8}" "[0-9]{4}$ ]]; then
            diag "$who: second line not as LVM2 writes it: $line2"
            ok=1
        fi
    done
    for f in rc out err file; do cmp -s "$SCRATCH/l.$f" "$SCRATCH/x.$f" || ok=1; done
    _tap_result "$ok" "$desc"
    if [[ $ok != 0 ]]; then
        diag "exit LVM2 $(cat "$SCRATCH/l.rc") lvx $(cat "$SCRATCH/x.rc")"
        diag "$(diff "$SCRATCH/l.out" "$SCRATCH/x.out")" "$(diff "$SCRATCH/l.err" "$SCRATCH/x.err")" \
             "$(diff "$SCRATCH/l.file" "$SCRATCH/x.file")"
    fi
}

# ---- no devices file yet: the filters decide, lvmdevices says so
dfop "lvmdevices without a file: exit 5" none lvmdevices
dfop "lvmdevices --check without a file" none lvmdevices --check
dfop "pvs without a file: every device the filter accepts" none pvs
dfop "vgimportdevices VG creates the file" none vgimportdevices "$VG"
test_eq "... the VG's two PVs listed, by their loop files" "2" \
    "$(grep -c "^IDTYPE=loop_file IDNAME=$SCRATCH/loop[01].img DEVNAME=/dev/loop[0-9]* PVID=\($P0\|$P1\)\$" \
       "$SCRATCH/x.file")"
# the PV device IDs lvx wrote into the metadata, as LVM2 reads them
devid() { lvm2 pvs --noheadings -o pv_name,deviceidtype,deviceid "${D[0]}" "${D[1]}" 2>/dev/null | awk '{$1=$1; print}'; }
x_ids=$(devid)
rm -f "$DF"; lvm2 vgimportdevices "$VG" >/dev/null 2>&1
test_eq "... the device IDs in the metadata as LVM2's vgimportdevices writes them" "$(devid)" "$x_ids"
# (pvs sorts by name: /dev/loop18 before /dev/loop9, so D0's line is picked by name)
test_eq "... which are the loop backing files" "${D[0]} loop_file $SCRATCH/loop0.img" \
    "$(grep "^${D[0]} " <<<"$x_ids")"
cp "$DF" "$SCRATCH/start.devices"           # LVM2's file: D0 and D1
dfop "vgimportdevices -a over an existing file" "$SCRATCH/start.devices" vgimportdevices -a
dfop "vgimportdevices without VG: exit 3" "$SCRATCH/start.devices" vgimportdevices
dfop "vgimportdevices unknown VG" "$SCRATCH/start.devices" vgimportdevices nosuch$$ 

# ---- the file as the scan's device list
dfop "lvmdevices lists LVM2's file" "$SCRATCH/start.devices" lvmdevices
dfop "pvs sees only the listed devices (not the orphan PV on D2)" "$SCRATCH/start.devices" pvs
dfop "vgs" "$SCRATCH/start.devices" vgs
dfop "lvs -o lv_name,vg_name" "$SCRATCH/start.devices" lvs -o lv_name,vg_name
dfop "pvs --devicesfile \"\": the filters again" "$SCRATCH/start.devices" pvs --devicesfile ""
dfop "lvmdevices --check: nothing to do" "$SCRATCH/start.devices" lvmdevices --check
dfop "lvmdevices --update: nothing to do" "$SCRATCH/start.devices" lvmdevices --update

# ---- adding and removing
dfop "lvmdevices --adddev (an orphan PV)" "$SCRATCH/start.devices" lvmdevices --adddev "${D[2]}"
dfop "lvmdevices --adddev (no PV: PVID .)" "$SCRATCH/start.devices" lvmdevices --adddev "${D[3]}"
dfop "lvmdevices --adddev of a listed device: moved to the end" "$SCRATCH/start.devices" \
    lvmdevices --adddev "${D[0]}"
dfop "lvmdevices --adddev --deviceidtype devname" "$SCRATCH/start.devices" \
    lvmdevices --adddev "${D[2]}" --deviceidtype devname
dfop "lvmdevices --adddev --deviceidtype sys_wwid (none on a loop device)" \
    "$SCRATCH/start.devices" lvmdevices --adddev "${D[2]}" --deviceidtype sys_wwid
dfop "lvmdevices --adddev of no device" "$SCRATCH/start.devices" lvmdevices --adddev /dev/nosuch$$
dfop "lvmdevices --deldev" "$SCRATCH/start.devices" lvmdevices --deldev "${D[1]}"
dfop "lvmdevices --deldev of an unlisted device" "$SCRATCH/start.devices" lvmdevices --deldev "${D[2]}"
dfop "lvmdevices --delpvid" "$SCRATCH/start.devices" lvmdevices --delpvid "$P0"
dfop "lvmdevices --delpvid of an unlisted PVID" "$SCRATCH/start.devices" lvmdevices --delpvid "$P2"
dfop "lvmdevices --delpvid bad" "$SCRATCH/start.devices" lvmdevices --delpvid bad
dfop "lvmdevices --addpvid (dashed)" "$SCRATCH/start.devices" lvmdevices --addpvid \
    "$(lvm2 pvs --noheadings -o pv_uuid "${D[2]}" 2>/dev/null | tr -d ' ')"
dfop "lvmdevices --addpvid of a listed PVID" "$SCRATCH/start.devices" lvmdevices --addpvid "$P1"
dfop "lvmdevices --addpvid found nowhere" "$SCRATCH/start.devices" lvmdevices --addpvid \
    CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC
dfop "lvmdevices --addpvid x" "$SCRATCH/start.devices" lvmdevices --addpvid x

# ---- stale entries: wrong PVID, renamed device, a device that is gone
sed "s/PVID=$P0/PVID=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/" "$SCRATCH/start.devices" >"$SCRATCH/pvid.devices"
sed "s|DEVNAME=${D[1]} |DEVNAME=/dev/loop999 |" "$SCRATCH/start.devices" >"$SCRATCH/name.devices"
{ cat "$SCRATCH/start.devices"
  echo "IDTYPE=loop_file IDNAME=$SCRATCH/gone.img DEVNAME=/dev/loop998 PVID=BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
  echo "IDTYPE=devname IDNAME=/dev/nosuch$$ DEVNAME=/dev/nosuch$$ PVID=."; } >"$SCRATCH/gone.devices"
dfop "--check: wrong PVID (exit 5)" "$SCRATCH/pvid.devices" lvmdevices --check
dfop "--update: wrong PVID corrected" "$SCRATCH/pvid.devices" lvmdevices --update
dfop "--check: renamed device" "$SCRATCH/name.devices" lvmdevices --check
dfop "--update: renamed device" "$SCRATCH/name.devices" lvmdevices --update
dfop "list: renamed device as recorded" "$SCRATCH/name.devices" lvmdevices
dfop "list: entries without a device" "$SCRATCH/gone.devices" lvmdevices
dfop "--check: entries without a device" "$SCRATCH/gone.devices" lvmdevices --check
dfop "--update: entries without a device kept" "$SCRATCH/gone.devices" lvmdevices --update
dfop "pvs: entries without a device warned about" "$SCRATCH/gone.devices" pvs
# a stale PVID is corrected by any command that reads the devices (LVM2's
# device_ids_validate): the line about it, the file rewritten naming the command
{ cat "$SCRATCH/start.devices"
  echo "IDTYPE=loop_file IDNAME=$SCRATCH/loop2.img DEVNAME=${D[2]} PVID=BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
  echo "IDTYPE=loop_file IDNAME=$SCRATCH/loop3.img DEVNAME=${D[3]} PVID=CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"
} >"$SCRATCH/nopv.devices"
sed "s/PVID=$P1/PVID=./" "$SCRATCH/start.devices" >"$SCRATCH/dot.devices"
dfop "pvs: a wrong PVID warned about and corrected in the file" "$SCRATCH/pvid.devices" pvs
dfop "lvs VG: the same (every listed device read)" "$SCRATCH/pvid.devices" lvs -o lv_name "$VG"
dfop "vgs VG: another PV on a device, and a device without a PV" "$SCRATCH/nopv.devices" vgs "$VG"
dfop "pvs -o pv_name: a PVID '.' of a PV filled in" "$SCRATCH/dot.devices" pvs -o pv_name
FILTER_ERR="$SIDE_NOISE|^  TEST MODE: " dfop "pvs --test: warned about, the file kept" \
    "$SCRATCH/pvid.devices" pvs --test
dfop "two operations at once: exit 3" "$SCRATCH/start.devices" lvmdevices --check --update

# ---- another file, and devices files switched off
mkdir -p "$SCRATCH/lvm/devices"
rm -f "$SCRATCH/lvm/devices/other.devices"
lvm2 lvmdevices --devicesfile other.devices --adddev "${D[2]}" >/dev/null 2>&1
mv "$SCRATCH/lvm/devices/other.devices" "$SCRATCH/other.l"
lvx lvmdevices --devicesfile other.devices --adddev "${D[2]}" >/dev/null 2>&1
mv "$SCRATCH/lvm/devices/other.devices" "$SCRATCH/other.x"
test_eq "--devicesfile other.devices --adddev: the same new file" \
    "$(sed 2d "$SCRATCH/other.l")" "$(sed 2d "$SCRATCH/other.x")"
cp "$SCRATCH/other.x" "$SCRATCH/lvm/devices/other.devices"
dfop "pvs --devicesfile other.devices: only D2" "$SCRATCH/start.devices" pvs --devicesfile other.devices
dfop "lvmdevices --devicesfile other.devices" "$SCRATCH/start.devices" lvmdevices --devicesfile other.devices
rm -f "$SCRATCH/lvm/devices/other.devices"
use_devicesfile 0
dfop "use_devicesfile=0: lvmdevices not enabled" "$SCRATCH/start.devices" lvmdevices
dfop "use_devicesfile=0: --adddev not enabled" "$SCRATCH/start.devices" lvmdevices --adddev "${D[2]}"
dfop "use_devicesfile=0: pvs ignores the file" "$SCRATCH/start.devices" pvs
use_devicesfile 1

# ---- one file, both programs
cp "$SCRATCH/start.devices" "$DF"
lvx lvmdevices --adddev "${D[2]}" >/dev/null 2>&1
v_x=$(sed -n 's/^VERSION=//p' "$DF")
test_eq "LVM2 --check accepts lvx's file" "0" "$(lvm2 lvmdevices --check >/dev/null 2>&1; echo $?)"
test_eq "... and LVM2's pvs sees the device lvx added" "3" \
    "$(lvm2 pvs --noheadings -o pv_name 2>/dev/null | wc -l)"
lvm2 lvmdevices --deldev "${D[2]}" >/dev/null 2>&1
test_eq "LVM2 continues lvx's VERSION counter" "1.1.$((${v_x##*.} + 1))" \
    "$(sed -n 's/^VERSION=//p' "$DF")"
lvx lvmdevices --adddev "${D[2]}" >/dev/null 2>&1
test_eq "... and lvx LVM2's" "1.1.$((${v_x##*.} + 2))" "$(sed -n 's/^VERSION=//p' "$DF")"

# nofile WHO CMD RUN TAG: CMD (pvcreate, vgcreate or vgextend of D3) run by RUN without a
# devices file; its output, exit code, the file it leaves (or none) and D3's device ID
# in the metadata into $SCRATCH/WHO.TAG.CMD; D3 is an orphan again afterwards
nofile() {
    local who=$1 c=$2 run=$3 out=$SCRATCH/$1.$4.$2
    rm -f "$DF"
    case $c in
    pvcreate) $run pvcreate -y "${D[3]}" >"$out" 2>"$out.err" ;;
    vgcreate) $run vgcreate "vgn$$" "${D[3]}" >"$out" 2>"$out.err" ;;
    vgextend) $run vgextend "$VG" "${D[3]}" >"$out" 2>"$out.err" ;;
    esac
    echo "rc $?" >>"$out"
    if [[ -e $DF ]]; then mask >>"$out"; else echo "(no file)" >>"$out"; fi
    lvm2 pvs --devicesfile "" --noheadings -o pv_name,vg_name,deviceidtype,deviceid "${D[3]}" 2>/dev/null |
        awk '{$1=$1; print}' >>"$out"
    side_filter <"$out.err" | grep -Ev "$SIDE_NOISE" >>"$out"
    lvm2 vgremove --devicesfile "" -f "vgn$$" >/dev/null 2>&1
    lvm2 vgreduce --devicesfile "" "$VG" "${D[3]}" >/dev/null 2>&1
    lvm2 pvremove --devicesfile "" -y "${D[3]}" >/dev/null 2>&1
}
# ---- PV commands keep the file (PVIDs are new each time: compared without them)
mask() { sed -e 2d -e 's/PVID=[A-Za-z0-9]\{32\}/PVID=X/' "$DF"; }
for who in l x; do
    cp "$SCRATCH/start.devices" "$DF"
    if [[ $who == l ]]; then run=lvm2; else run=lvx; fi
    $run pvcreate -q -y "${D[3]}" >/dev/null 2>&1
    mask >"$SCRATCH/$who.pvcreate"
    grep -q "PVID=$(pvid "${D[3]}")\$" "$DF" && echo yes >"$SCRATCH/$who.pvid"
    $run pvremove -q "${D[3]}" >/dev/null 2>&1
    mask >"$SCRATCH/$who.pvremove"
    $run vgextend -q "$VG" "${D[3]}" >/dev/null 2>&1
    mask >"$SCRATCH/$who.vgextend"
    lvm2 pvs --noheadings -o pv_name,deviceidtype,deviceid "${D[3]}" 2>/dev/null | awk '{$1=$1; print}' \
        >"$SCRATCH/$who.vgextend_id"
    $run vgreduce -q "$VG" "${D[3]}" >/dev/null 2>&1
    $run pvremove -q "${D[3]}" >/dev/null 2>&1
    for c in pvcreate vgcreate vgextend; do nofile "$who" "$c" "$run" vgs; done
    cp "$SCRATCH/start.devices" "$DF"
done
test_eq "vgextend: the new PV's device ID in the metadata as LVM2 writes it" \
    "$(cat "$SCRATCH/l.vgextend_id")" "$(cat "$SCRATCH/x.vgextend_id")"
test_eq "... which is its loop file" "${D[3]} loop_file $SCRATCH/loop3.img" "$(cat "$SCRATCH/x.vgextend_id")"
for c in pvcreate vgcreate vgextend; do
    test_eq "$c without a devices file, another VG on the system: not made, as LVM2" \
        "$(cat "$SCRATCH/l.vgs.$c")" "$(cat "$SCRATCH/x.vgs.$c")"
done
test_ok "... LVM2's reason given" grep -q "^  Not creating system devices file due to existing VGs.\$" \
    "$SCRATCH/x.vgs.vgcreate"
for step in pvcreate pvremove vgextend; do
    test_eq "$step: the devices file as LVM2 leaves it" "$(cat "$SCRATCH/l.$step")" \
        "$(cat "$SCRATCH/x.$step")"
done
test_eq "pvcreate: the new PV's PVID recorded (LVM2, lvx)" "yes yes" \
    "$(cat "$SCRATCH/l.pvid" 2>/dev/null) $(cat "$SCRATCH/x.pvid" 2>/dev/null)"

# ---- no VG on the system: pvcreate and vgcreate make the devices file
lvm2 vgremove -f "$VG" >/dev/null 2>&1
for who in l x; do
    if [[ $who == l ]]; then run=lvm2; else run=lvx; fi
    for c in pvcreate vgcreate; do nofile "$who" "$c" "$run" novg; done
done
for c in pvcreate vgcreate; do
    test_eq "$c without a devices file and no VG: the file made, as LVM2" \
        "$(cat "$SCRATCH/l.novg.$c")" "$(cat "$SCRATCH/x.novg.$c")"
done
test_ok "... vgcreate says 'Creating devices file'" grep -q "^  Creating devices file $DF\$" \
    "$SCRATCH/x.novg.vgcreate"
test_ok "... and its PV has the device ID in the metadata" \
    grep -q "^${D[3]} vgn$$ loop_file $SCRATCH/loop3.img\$" "$SCRATCH/x.novg.vgcreate"

done_testing
