#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0320-pvck: pvck with lvx and the real LVM2 side by side on the same loop devices
# (issue 21): plain `pvck PV...`, --dump headers|metadata|metadata_all|metadata_search|
# metadata_area (also from an image file, -f FILE), bad --dump/--repairtype values and
# the damaged cases (wiped label, bad label CRC, bad mda header checksum, bad metadata
# text checksum, a second mda): same exit code, stdout and stderr.  --repairtype
# label_header on twin devices (one repaired by LVM2, one by lvx): the same bytes.
source "$(dirname "$0")/../lib.sh"
source "$LVX_ROOT/tests/tools/side.sh"

VG=vgck$$
side_setup 4
lvm2 pvcreate -q "${D[0]}" "${D[1]}" >/dev/null 2>&1
lvm2 pvcreate -q --pvmetadatacopies 2 "${D[2]}" >/dev/null 2>&1
lvm2 vgcreate -q "$VG" "${D[0]}" "${D[1]}" "${D[2]}" >/dev/null 2>&1
lvm2 lvcreate -q -an -n one -L 8m "$VG" >/dev/null 2>&1
lvm2 lvcreate -q -an -n two -L 4m "$VG" >/dev/null 2>&1
test_eq "LVM2 made the VG with 3 PVs" "3" "$(lvm2 vgs --noheadings -o pv_count "$VG" 2>/dev/null | tr -d ' ')"

# -f files: a different name for each side, the contents compared
fside() {  # fside DESC DUMP DEV: --dump DUMP -f FILE by both, outputs and files compared
    rm -f "$SCRATCH/f.l" "$SCRATCH/f.x"
    local rl=0 rx=0
    lvm2 pvck --dump "$2" -f "$SCRATCH/f.l" "$3" >"$SCRATCH/l.out" 2>"$SCRATCH/l.err" || rl=$?
    lvx pvck --dump "$2" -f "$SCRATCH/f.x" "$3" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || rx=$?
    test_eq "$1: exit code" "$rl" "$rx"
    test_eq "$1: output" "$(side_filter <"$SCRATCH/l.out"; side_filter <"$SCRATCH/l.err")" \
        "$(side_filter <"$SCRATCH/x.out"; side_filter <"$SCRATCH/x.err")"
    test_ok "$1: file contents" cmp "$SCRATCH/f.l" "$SCRATCH/f.x"
}

for d in "${D[0]}" "${D[2]}"; do
    same "pvck $d" pvck "$d"
    for t in headers metadata metadata_all metadata_search metadata_area; do
        same "pvck --dump $t $d" pvck --dump "$t" "$d"
    done
    same "pvck --dump metadata_all -v $d" pvck --dump metadata_all -v "$d"
done
same "pvck two PVs" pvck "${D[0]}" "${D[1]}"
same "pvck --dump metadata of the second mda" pvck --dump metadata --pvmetadatacopies 2 "${D[2]}"
same "pvck --dump metadata_search of the second mda" pvck --dump metadata_search --pvmetadatacopies 2 "${D[2]}"
same "pvck --dump headers of a PV without a second mda, asking for it" pvck --dump metadata --pvmetadatacopies 2 "${D[0]}"
fside "--dump metadata -f" metadata "${D[0]}"
fside "--dump metadata_all -f" metadata_all "${D[0]}"
fside "--dump metadata_area -f" metadata_area "${D[0]}"
fside "--dump metadata_search -f" metadata_search "${D[2]}"
touch "$SCRATCH/exists"
same "-f of an existing file" pvck --dump metadata -f "$SCRATCH/exists" "${D[0]}"
same "metadata_area -f of an existing file" pvck --dump metadata_area -f "$SCRATCH/exists" "${D[0]}"

# an image file (the first 2 MiB of a PV)
dd if="${D[0]}" of="$SCRATCH/img" bs=1M count=2 status=none
same "pvck --dump headers of an image file" pvck --dump headers "$SCRATCH/img"
same "pvck --dump metadata of an image file" pvck --dump metadata "$SCRATCH/img"

# bad arguments
same "no PV" pvck
same "bad --dump" pvck --dump foo "${D[0]}"
same "bad --repairtype" pvck --repairtype foo "${D[0]}"
same "missing file for --dump" pvck --dump headers "$SCRATCH/nope"
same "an orphan-less device (no label)" pvck "${D[3]}"
same "--dump headers of a device without a label" pvck --dump headers "${D[3]}"

# damage, one kind at a time on D[1] (restored between)
dd if="${D[1]}" of="$SCRATCH/d1" bs=1M count=2 status=none
restore() { dd if="$SCRATCH/d1" of="${D[1]}" bs=1M count=2 conv=notrunc status=none; }
damage() {  # damage DESC OFFSET BYTES(printf format)
    restore
    printf "$3" | dd of="${D[1]}" bs=1 seek="$2" conv=notrunc status=none
    same "$1: pvck" pvck "${D[1]}"
    same "$1: --dump headers" pvck --dump headers "${D[1]}"
    same "$1: --dump metadata" pvck --dump metadata "${D[1]}"
}
damage "wiped label" 512 '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
damage "label crc" 528 '\1\2\3\4'
damage "label sector field" 520 '\7'
damage "pv uuid" 544 '\1'
damage "mda header checksum" 4096 '\1\2\3\4'
damage "mda header magic" 4100 'X'
damage "metadata text checksum" 4152 '\1\2\3\4'
damage "metadata text bytes" 5700 'ZZZZ'
restore

# --repairtype label_header on twins: D[1]'s first 2 MiB copied to D[3], the same damage
dd if="$SCRATCH/d1" of="${D[3]}" bs=1M count=2 conv=notrunc status=none
for d in "${D[1]}" "${D[3]}"; do
    printf '\1\2\3\4' | dd of="$d" bs=1 seek=528 conv=notrunc status=none
    printf 'XXXX' | dd of="$d" bs=1 seek=512 conv=notrunc status=none
done
rl=0 rx=0
lvm2 pvck -y --repairtype label_header "${D[1]}" >"$SCRATCH/l.out" 2>"$SCRATCH/l.err" || rl=$?
lvx pvck -y --repairtype label_header "${D[3]}" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || rx=$?
test_eq "repair label_header: exit code" "$rl" "$rx"
test_eq "repair label_header: output" "$(side_filter <"$SCRATCH/l.out"; side_filter <"$SCRATCH/l.err" | sed "s|${D[1]}|DEV|g")" \
    "$(side_filter <"$SCRATCH/x.out"; side_filter <"$SCRATCH/x.err" | sed "s|${D[3]}|DEV|g")"
test_ok "repair label_header: the same first 1 MiB on both" \
    cmp <(dd if="${D[1]}" bs=1M count=1 status=none) <(dd if="${D[3]}" bs=1M count=1 status=none)
same "after the repair: pvck clean" pvck "${D[3]}"
restore
dd if=/dev/zero of="${D[3]}" bs=1M count=2 conv=notrunc status=none

# -t: nothing written
printf '\1\2\3\4' | dd of="${D[1]}" bs=1 seek=528 conv=notrunc status=none
sum=$(dd if="${D[1]}" bs=1M count=1 status=none | sha1sum)
lvx pvck -t -y --repairtype label_header "${D[1]}" >/dev/null 2>&1
test_eq "repair label_header -t writes nothing" "$sum" "$(dd if="${D[1]}" bs=1M count=1 status=none | sha1sum)"
restore

# --repairtype pv_header|metadata and --repair with a metadata file, on twins: the
# damaged device copied whole to D[3]; LVM2 repairs the original, its result is kept and
# the damage put back (so that the PV UUID is on no other device), then lvx repairs the
# twin: same exit code, output and bytes.
lvm2 pvck --dump metadata -f "$SCRATCH/md" "${D[0]}" >/dev/null 2>&1
twin() {  # twin DESC DEV ARGS...: DEV already damaged
    local desc=$1 dev=$2 rl=0 rx=0
    shift 2
    dd if="$dev" of="${D[3]}" bs=4M status=none conv=notrunc
    dd if="$dev" of="$SCRATCH/damaged" bs=4M status=none
    lvm2 pvck -y "$@" "$dev" >"$SCRATCH/l.out" 2>"$SCRATCH/l.err" || rl=$?
    dd if="$dev" of="$SCRATCH/fixed" bs=4M status=none
    dd if="$SCRATCH/damaged" of="$dev" bs=4M status=none conv=notrunc
    lvx pvck -y "$@" "${D[3]}" >"$SCRATCH/x.out" 2>"$SCRATCH/x.err" || rx=$?
    test_eq "$desc: exit code" "$rl" "$rx"
    test_eq "$desc: output" \
        "$(cat "$SCRATCH/l.out" "$SCRATCH/l.err" | side_filter | sed "s|$dev|DEV|g")" \
        "$(cat "$SCRATCH/x.out" "$SCRATCH/x.err" | side_filter | sed "s|${D[3]}|DEV|g")"
    test_ok "$desc: the same bytes written" cmp "$SCRATCH/fixed" "${D[3]}"
}
zero() { dd if=/dev/zero of="$1" bs=1 seek="$2" count="$3" conv=notrunc status=none; }
full_restore() { dd if="$SCRATCH/full$1" of="${D[$1]}" bs=4M conv=notrunc status=none; }
dd if="${D[1]}" of="$SCRATCH/full1" bs=4M status=none
dd if="${D[2]}" of="$SCRATCH/full2" bs=4M status=none

zero "${D[1]}" 584 100
twin "pv_header, areas list zeroed" "${D[1]}" --repairtype pv_header -f "$SCRATCH/md"
full_restore 1
printf '\1\2\3\4' | dd of="${D[1]}" bs=1 seek=528 conv=notrunc status=none
zero "${D[1]}" 600 60
twin "pv_header, label crc and mda entry damaged" "${D[1]}" --repairtype pv_header -f "$SCRATCH/md"
full_restore 1
zero "${D[1]}" 4096 512
zero "${D[1]}" 5000 3000
twin "metadata, mda header and text zeroed" "${D[1]}" --repairtype metadata -f "$SCRATCH/md"
full_restore 1
zero "${D[1]}" 584 100
zero "${D[1]}" 4096 512
twin "--repair, pv_header list and mda header zeroed" "${D[1]}" --repair -f "$SCRATCH/md"
full_restore 1
zero "${D[2]}" 584 100
twin "pv_header of a PV with two areas, list zeroed (mda2 found)" "${D[2]}" --repairtype pv_header -f "$SCRATCH/md"
full_restore 2
zero "${D[2]}" 4096 512
twin "metadata of a PV with two areas" "${D[2]}" --repairtype metadata -f "$SCRATCH/md"
full_restore 2
dd if=/dev/zero of="${D[3]}" bs=4M count=16 conv=notrunc status=none

# --settings
same "metadata_search seqno=1" pvck --dump metadata_search --settings seqno=1 "${D[0]}"
same "metadata_all metadata_offset" pvck --dump metadata_all --settings "metadata_offset=4608" "${D[0]}"
same "metadata mda_num=2" pvck --dump metadata --settings mda_num=2 "${D[2]}"
same "metadata mda_num=2 without mda2" pvck --dump metadata --settings mda_num=2 "${D[0]}"
same "metadata_search mda_num=2 on a PV without mda2" pvck --dump metadata_search --settings mda_num=2 "${D[0]}"
same "metadata_search mda_num=1 mda_size" pvck --dump metadata_search --settings "mda_num=1 mda_size=1044480" "${D[0]}"
same "metadata_search mda_num=2 mda_size" pvck --dump metadata_search --settings "mda_num=2 mda_size=1048576" "${D[2]}"
same "metadata_search one value only" pvck --dump metadata_search --settings "mda_size=1044480" "${D[0]}"
same "two --settings" pvck --dump metadata_search --settings mda_num=1 --settings seqno=2 "${D[0]}"
same "bad setting" pvck --dump metadata --settings "foo=1" "${D[0]}"
same "bad settings syntax" pvck --dump metadata --settings "foo" "${D[0]}"
same "bad pv_uuid setting" pvck --dump metadata --settings "pv_uuid=xyz" "${D[0]}"

# a backup file as the repair input, on twins
lvm2 vgcfgbackup -f "$SCRATCH/backup" "$VG" >/dev/null 2>&1
zero "${D[1]}" 584 100
zero "${D[1]}" 4096 512
twin "--repair from a backup file" "${D[1]}" --repair -f "$SCRATCH/backup"
full_restore 1
zero "${D[1]}" 4096 512
twin "metadata mda_num=1 from a backup file" "${D[1]}" --repairtype metadata --settings mda_num=1 -f "$SCRATCH/backup"
full_restore 1
zero "${D[1]}" 512 512
U1=$(lvm2 pvs --noheadings -o pv_uuid "${D[0]}" 2>/dev/null | tr -d ' ')
same "pv_header, label wiped, pv_uuid setting of another PV in use, -t" pvck -t -y --repairtype pv_header --settings "pv_uuid=$U1" -f "$SCRATCH/md" "${D[1]}"
same "pv_header, zero mdas by settings, -t" pvck -t -y --repairtype pv_header --settings "mda_offset=0 mda_size=0" -f "$SCRATCH/md" "${D[1]}"
same "pv_header from settings only, -t" pvck -t -y --repairtype pv_header --settings "pv_uuid=$U1 device_size=67108864 data_offset=1048576" "${D[1]}"
full_restore 1
dd if=/dev/zero of="${D[3]}" bs=4M count=16 conv=notrunc status=none

# refusals, the same device for both sides (nothing written: -t or an error)
zero "${D[1]}" 512 512
same "pv_header with the label wiped (name from the file), -t" pvck -t -y --repairtype pv_header -f "$SCRATCH/md" "${D[1]}"
same "metadata with the label wiped" pvck -y --repairtype metadata -f "$SCRATCH/md" "${D[1]}"
full_restore 1
same "pv_header without a file" pvck -y --repairtype pv_header "${D[1]}"
same "metadata without a file" pvck -y --repairtype metadata "${D[1]}"
same "metadata -t" pvck -t -y --repairtype metadata -f "$SCRATCH/md" "${D[1]}"
same "pv_header whose UUID is on another device" pvck -y --repairtype pv_header -f "$SCRATCH/md" "${D[1]}"
lvm2 pvck --dump metadata "${D[0]}" >"$SCRATCH/stdout-md" 2>/dev/null
same "pvck's stdout as the file" pvck -y --repairtype metadata -f "$SCRATCH/stdout-md" "${D[1]}"
same "a missing file" pvck -y --repairtype metadata -f "$SCRATCH/nope" "${D[1]}"
: >"$SCRATCH/empty"
same "an empty file" pvck -y --repairtype metadata -f "$SCRATCH/empty" "${D[1]}"
test_eq "D[1] unchanged by the refusals" "$(sha1sum <"$SCRATCH/full1")" "$(dd if="${D[1]}" bs=4M status=none | sha1sum)"

lvm2 vgremove -q -f "$VG" >/dev/null 2>&1
done_testing
