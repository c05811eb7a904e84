#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t1000-scale: large VGs (README "Large VGs"), with system scans (no --devices) through a
# private lvm.conf whose global_filter accepts exactly this test's loop devices, and a
# private device index (LVX_RUN_DIR).
#
# 1. A VG of $LVX_SCALE_PVS PVs (default 200: attaching and detaching a thousand loop
#    devices takes minutes on a busy machine; LVX_SCALE_PVS=1000 runs the full size,
#    bench/scale measures 1000) made by one lvx pvcreate and one lvx vgcreate: LVM2's
#    `vgs`/`pvs --reportformat json` (a wide field list) equal lvx's; LVM2 counts 8 metadata
#    areas in use, the policy unmanaged; `lvm vgck` is clean.
# 2. An lvx commit (lvcreate) writes only to the devices of the in-use areas (counted with
#    LVX_TEST_IO_LOG), and LVM2 sees the new LV; `lvx vgs VG` opens each device once and
#    reads no range twice (one read per device without an area in use: label + mda0
#    header together).
# 3. The device index: `lvx vgs VG2` of a two-PV VG opens only VG2's devices; a stale entry
#    is detected and corrected each way - a PV moved to another device number (loop
#    detached and attached elsewhere), a PV wiped, a PV added to VG2 by LVM2 behind lvx's
#    back - lvx's reports then equal LVM2's and the index holds the new truth; a damaged
#    index file is ignored and rewritten.
# 4. Metadata space: on PVs with 60 KiB metadata areas, lvcreate warns at 50% and at 90%
#    of the room, naming the way out; pvcreate --metadatasize 1m + vgextend +
#    pvchange --metadataignore y on the small PVs then let 100 more LVs be created, and
#    LVM2 agrees (lv_count, vgck).
# 5. What a command reads: vgextend with a device without a label (implicit pvcreate)
#    reads the VG's devices (through the index) and that device, no other device, and
#    the index then lists it in the VG; vgreduce reads only the VG's devices and the
#    index then lists the PV as an orphan, and vgextend of that orphan reads only the VG
#    and it; a PV without metadata areas that LVM2 added to another VG behind lvx's back
#    (the index still says orphan) is refused as that VG's ("already in volume group"):
#    such a device is not provably an orphan, so every device is read; a device with
#    4 KiB logical sectors (refusing the 4.5 KiB O_DIRECT head read) is read all the
#    same.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm "$PYTHON"
need_lvx
plan_later
unset LVX_LOCK_DIR

COUNT=${LVX_SCALE_PVS:-200}
VG="lvxscale$$"
VG2="lvxscale$$b"
VG3="lvxscale$$c"
VG4="lvxscale$$d"
VG5="lvxscale$$e"
R=$SCRATCH/r
mkdir -p "$R" "$SCRATCH/run"
export LVX_RUN_DIR=$SCRATCH/run

BIG=()
for ((i = 0; i < COUNT; i++)); do BIG+=("$(make_loop 8M)") || break; done
((${#BIG[@]} == COUNT)) || skip_all "could not attach $COUNT loop devices"
SMALL=()
for i in 0 1 2 3 4 5 6 7 8; do SMALL+=("$(make_loop 12M)"); done
ALL=("${BIG[@]}" "${SMALL[@]}")
lvm_sandbox "${ALL[@]}"
INDEX=$(LVM_SYSTEM_DIR="$SCRATCH/lvm" "$PYTHON" -c 'import os, sys
h = 14695981039346656037
for b in os.environ["LVM_SYSTEM_DIR"].encode():
    h = ((h ^ b) * 1099511628211) % (1 << 64)
print("%s/index-%016x" % (os.environ["LVX_RUN_DIR"], h))')

X() { LVM_SYSTEM_DIR="$SCRATCH/lvm" "$LVX" "$@"; }

PVF=pv_name,pv_uuid,vg_name,pv_fmt,dev_size,pv_size,pe_start,pv_pe_count,pv_pe_alloc_count,pv_mda_count,pv_mda_used_count,pv_mda_size,pv_attr
VGF=vg_name,vg_uuid,vg_attr,vg_extent_size,vg_extent_count,vg_free_count,vg_seqno,pv_count,lv_count,vg_mda_count,vg_mda_used_count,vg_mda_copies,vg_mda_size,vg_mda_free

# same_reports LABEL [VG]: lvx's and LVM2's pvs and vgs (json) are equal; prints the
# first differences otherwise.
same_reports() {
    local p=$R/$1 t
    local -x ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    for t in lvx lvm2; do
        if [[ $t == lvx ]]; then
            X pvs --reportformat json --units b -o "$PVF" >"$p.$t.pvs" 2>"$p.$t.err"
            X vgs --reportformat json --units b -o "$VGF" ${2:+"$2"} >"$p.$t.vgs" 2>>"$p.$t.err"
        else
            lvm2 pvs --reportformat json --units b -o "$PVF" >"$p.$t.pvs" 2>"$p.$t.err"
            lvm2 vgs --reportformat json --units b -o "$VGF" ${2:+"$2"} >"$p.$t.vgs" 2>>"$p.$t.err"
        fi
    done
    "$PYTHON" - "$p" <<'PY'
import json, sys
p = sys.argv[1]
bad = 0
for what in ("pvs", "vgs"):
    a = json.load(open("%s.lvx.%s" % (p, what)))["report"]
    b = json.load(open("%s.lvm2.%s" % (p, what)))["report"]
    if a == b:
        continue
    for ra, rb in zip(a, b):
        for key in ra:
            x, y = ra[key], rb.get(key, [])
            if len(x) != len(y):
                print("%s: %d rows (lvx) vs %d (LVM2)" % (what, len(x), len(y)))
            for i, (u, v) in enumerate(zip(x, y)):
                for f in u:
                    if u[f] != v.get(f) and bad < 10:
                        bad += 1
                        print("%s row %d %s: lvx %r, LVM2 %r" % (what, i, f, u[f], v.get(f)))
    bad += 1
sys.exit(1 if bad else 0)
PY
}

json_field() {  # json_field FILE REPORTKEY FIELD -> values, one per line
    "$PYTHON" -c 'import json, sys
for r in json.load(open(sys.argv[1]))["report"]:
    for row in r.get(sys.argv[2], []):
        print(row[sys.argv[3]])' "$1" "$2" "$3"
}

# ---- 1. a VG of COUNT PVs ---------------------------------------------------------------
test_ok "lvx pvcreate of $COUNT devices" X pvcreate -y "${BIG[@]}"
test_ok "lvx vgcreate with $COUNT PVs" X vgcreate "$VG" "${BIG[@]}"
if same_reports created "$VG" >"$R/created.diff"; then
    _tap_result 0 "LVM2 reads the $COUNT-PV VG as lvx does (pvs, vgs json)"
else
    _tap_result 1 "LVM2 reads the $COUNT-PV VG as lvx does (pvs, vgs json)"
    _diag_file diff "$R/created.diff"
fi
test_eq "LVM2 counts 8 metadata areas in use" \
    "$(json_field "$R/created.lvm2.vgs" vg vg_mda_used_count)" 8
test_eq "the VG's policy stays unmanaged for LVM2" \
    "$(json_field "$R/created.lvm2.vgs" vg vg_mda_copies)" unmanaged
lvm2 vgck "$VG" >"$R/vgck.out" 2>&1
test_eq "LVM2 vgck is clean" "$?:$(grep -v 'Activation disabled' "$R/vgck.out" | grep -c WARNING)" "0:0"

# ---- 2. commits write only the in-use areas ---------------------------------------------
mapfile -t INUSE < <("$PYTHON" -c 'import json, sys
for r in json.load(open(sys.argv[1]))["report"]:
    for row in r.get("pv", []):
        if row["pv_mda_used_count"] not in ("0", ""):
            print(row["pv_name"])' "$R/created.lvm2.pvs" | sort)
IOLOG=$SCRATCH/io.log
: >"$IOLOG"
test_ok "lvx lvcreate in the $COUNT-PV VG" env LVX_TEST_IO_LOG="$IOLOG" \
    LVM_SYSTEM_DIR="$SCRATCH/lvm" "$LVX" lvcreate -an -Zn -L 4m -n lv1 "$VG"
mapfile -t WRITTEN < <(awk '$1 == "write" { print $5 }' "$IOLOG" | sort -u)
test_eq "its writes go to the ${#INUSE[@]} devices of the in-use areas only" \
    "${WRITTEN[*]}" "${INUSE[*]}"
test_eq "LVM2 sees the new LV" "$(lvm2 lvs --noheadings -o lv_name "$VG" 2>/dev/null | tr -d ' ')" lv1
: >"$IOLOG"
LVX_TEST_IO_LOG=$IOLOG X vgs "$VG" >/dev/null 2>&1
test_eq "lvx vgs reads no range of a device twice" \
    "$(awk '$1 == "read" { print $5, $3 }' "$IOLOG" | sort | uniq -d | wc -l)" 0
test_eq "it opens each of the $COUNT devices once" \
    "$(grep '^open ' "$IOLOG" | sort | uniq -c | awk '$1 == 1' | wc -l)" "$COUNT"
test_eq "and reads the $((COUNT - 8)) without an area in use in one read each" \
    "$(awk '$1 == "read" { n[$5]++ } END { for (d in n) if (n[d] == 1) c++; print c + 0 }' "$IOLOG")" \
    "$((COUNT - 8))"

# ---- 3. the device index ---------------------------------------------------------------
A=${SMALL[0]} B=${SMALL[1]} C=${SMALL[2]}
test_ok "lvx vgcreate $VG2 on two PVs" X vgcreate "$VG2" "$A" "$B"
# The list is kept under the kernel's uevent counter: on a busy machine (other programs
# attaching loop devices) it moves between two commands and lvx rightly lists again, so
# the check counts only a try during which the counter held still.
listed=none
for try in $(seq 20); do
    seq0=$(cat /sys/kernel/uevent_seqnum)
    X vgs >/dev/null 2>&1      # a full scan writes the index
    : >"$IOLOG"
    LVX_TEST_IO_LOG=$IOLOG X vgs -d "$VG2" >/dev/null 2>"$R/listed.err"
    if grep -q "Device index: using the ${#ALL[@]} devices listed under the same key" "$R/listed.err"; then
        listed=yes
        break
    fi
    [[ $(cat /sys/kernel/uevent_seqnum) == "$seq0" ]] && { listed=no; break; }
done
test_eq "the index lists every PV" "$(grep -c '^pv ' "$INDEX" 2>/dev/null)" "$((COUNT + 2))"
if [[ $listed == none ]]; then
    test_skip "the index keeps the device list: vgs $VG2 does not list the devices again" \
        "the uevent counter moved during each of $try tries (busy machine)"
else
    ((try > 1)) && diag "index list check: try $try (the uevent counter moved before)"
    test_eq "the index keeps the device list: vgs $VG2 does not list the devices again" "$listed" yes ||
        _diag_file stderr "$R/listed.err"
fi
test_eq "the index keeps one dev line per listed device" "$(grep -c '^dev ' "$INDEX")" "${#ALL[@]}"
test_eq "lvx vgs $VG2 opens only its 2 devices" \
    "$(grep '^open /dev/' "$IOLOG" | sort -u | awk '{ print $2 }' | tr '\n' ' ')" \
    "$(printf 'open %s\n' "$A" "$B" | sort | awk '{ print $2 }' | tr '\n' ' ')"

majmin() { printf '%d:%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"; }
uuid_of() { lvm2 pvs --noheadings -o pv_uuid "$1" 2>/dev/null | tr -d ' -'; }

# 3a. PV moved: B's loop detached and its file attached at another device number
BFILE=$(loop_backing "$B")
BUUID=$(uuid_of "$B")
detach_loop "$B"
# far from the numbers just freed (losetup -f would give B's back at once)
n=$(( $(ls /sys/block | sed -n 's/^loop//p' | sort -n | tail -1) + 17 ))
B=$(attach_loop_from "$n" "$BFILE") || B=/dev/lvx-no-loop
SMALL[1]=$B
ALL=("${BIG[@]}" "${SMALL[@]}")
lvm_sandbox "${ALL[@]}"
if same_reports moved "$VG2" >"$R/moved.diff"; then
    _tap_result 0 "PV moved to $B: lvx reads $VG2 as LVM2 does"
else
    _tap_result 1 "PV moved to $B: lvx reads $VG2 as LVM2 does"
    _diag_file diff "$R/moved.diff"
fi
test_eq "PV moved: the index has it at its new device number" \
    "$(awk -v u="$BUUID" '$1 == "pv" && $3 == u { print $2 }' "$INDEX")" "$(majmin "$B")"

# 3b. PV added behind lvx's back (the device list is unchanged: only VG2's metadata says so)
X vgs "$VG2" >/dev/null 2>&1
lvm2 pvcreate -y "$C" >/dev/null 2>&1 && lvm2 vgextend "$VG2" "$C" >/dev/null 2>&1
test_eq "LVM2 extended $VG2 behind lvx's back" \
    "$(lvm2 vgs --noheadings -o pv_count "$VG2" 2>/dev/null | tr -d ' ')" 3
test_eq "lvx vgs $VG2 finds the third PV" "$(X vgs --noheadings -o pv_count "$VG2" 2>/dev/null | tr -d ' ')" 3
test_eq "PV added by LVM2: the index lists it in $VG2" \
    "$(awk -v d="$(majmin "$C")" '$1 == "pv" && $2 == d { print $5 }' "$INDEX")" "$VG2"

# 3c. PV wiped (its label zeroed behind lvx's back)
dd if=/dev/zero of="$A" bs=4096 count=1 conv=fsync status=none
X vgs "$VG2" >"$R/wiped.out" 2>"$R/wiped.err"
grep -q "Couldn't find device with uuid" "$R/wiped.err"
test_eq "PV wiped: lvx reports $VG2 with a missing PV" "$?" 0
test_eq "PV wiped: the index no longer lists its device" \
    "$(awk -v d="$(majmin "$A")" '$1 == "pv" && $2 == d' "$INDEX" | wc -l)" 0

# 3d. a damaged index file is ignored and rewritten
printf 'lvx-index 1\ndevices zz\npv 7:x garbage\n\0\377' >"$INDEX"
test_eq "damaged index: lvx vgs $VG2 still reports its PVs" \
    "$(X vgs --noheadings -o pv_count "$VG2" 2>/dev/null | tr -d ' ')" 3
test_eq "damaged index: rewritten by the full scan" "$(head -1 "$INDEX")" "lvx-index 1"
test_eq "damaged index: ... with every PV again" "$(grep -c '^pv ' "$INDEX")" "$((COUNT + 2))"

# ---- 4. metadata space: warnings and the way out ------------------------------------------
D1=${SMALL[3]} D2=${SMALL[4]} D3=${SMALL[5]}
test_ok "pvcreate --metadatasize 32k --dataalignment 64k (60 KiB areas)" \
    X pvcreate -y --metadatasize 32k --dataalignment 64k "$D1" "$D2"
test_ok "vgcreate $VG3 (64 KiB extents)" X vgcreate -s 64k "$VG3" "$D1" "$D2"
: >"$R/fill.err"
made=0 failed=0
for ((i = 1; i <= 150; i++)); do
    X lvcreate -an -Zn -l 1 -n "f$i" "$VG3" >/dev/null 2>"$R/one.err" || { failed=1; break; }
    cat "$R/one.err" >>"$R/fill.err"
    made=$i
    grep -q "changes will fail when it is full" "$R/one.err" && break
done
diag "$made LVs created before the 90% warning"
test_eq "LVs are created up to the 90% warning without a failure" "$failed" 0
grep -Eq "uses [5-8][0-9]% of the space of its smallest metadata area" "$R/fill.err"
test_eq "a warning at 50% of the room" "$?" 0
grep -Eq "uses (9[0-9]|1[0-9][0-9])% .*changes will fail when it is full" "$R/fill.err"
test_eq "a warning at 90% of the room" "$?" 0
grep -q "pvcreate --metadatasize" "$R/fill.err"
test_eq "the warning names the way out" "$?" 0
test_ok "way out: pvcreate --metadatasize 1m" X pvcreate -y --metadatasize 1m "$D3"
test_ok "way out: vgextend with the large-area PV" X vgextend "$VG3" "$D3"
test_ok "way out: pvchange --metadataignore y on the small PVs" \
    X pvchange -y --metadataignore y "$D1" "$D2"
: >"$R/more.cmds"
for ((i = 1; i <= 100; i++)); do echo "lvcreate -an -Zn -l 1 -n g$i $VG3" >>"$R/more.cmds"; done
X shell <"$R/more.cmds" >"$R/more.out" 2>"$R/more.err"
test_eq "then 100 more LVs fit" "$(X vgs --noheadings -o lv_count "$VG3" 2>/dev/null | tr -d ' ')" $((made + 100))
test_eq "without a space warning" "$(grep -c 'of the space of its smallest' "$R/more.err")" 0
test_eq "LVM2 counts them too" "$(lvm2 vgs --noheadings -o lv_count "$VG3" 2>/dev/null | tr -d ' ')" $((made + 100))
lvm2 vgck "$VG3" >"$R/vgck3.out" 2>&1
test_eq "LVM2 vgck of $VG3 is clean" "$?:$(grep -v 'Activation disabled' "$R/vgck3.out" | grep -c WARNING)" "0:0"

# ---- 5. what a command reads -------------------------------------------------------------
# 5a. vgextend of a device without a label (an implicit pvcreate) reads the VG's devices
#     and that one (again after the pvcreate), no device of another VG.
E=${SMALL[6]}
X vgs >/dev/null 2>&1            # a full scan: the index is up to date
: >"$IOLOG"
test_ok "vgextend $VG3 with a device without a label" \
    env LVX_TEST_IO_LOG="$IOLOG" LVM_SYSTEM_DIR="$SCRATCH/lvm" "$LVX" vgextend "$VG3" "$E"
test_eq "it opens no device of another VG" "$(grep -c "^open ${BIG[0]}\$" "$IOLOG")" 0
test_eq "and a member it does not write once" "$(grep -c "^open $D1\$" "$IOLOG")" 1
test_eq "it opens $((3 + 1)) devices: the VG's and the one named" \
    "$(awk '$1 == "open" { print $2 }' "$IOLOG" | sort -u | wc -l)" 4
test_eq "LVM2 counts the new PV in $VG3" \
    "$(lvm2 vgs --noheadings -o pv_count "$VG3" 2>/dev/null | tr -d ' ')" 4
test_eq "the index lists the new PV in $VG3" \
    "$(awk -v d="$(majmin "$E")" '$1 == "pv" && $2 == d { print $5 }' "$INDEX")" "$VG3"

# 5b. vgreduce reads only the VG's devices; the index then says orphan
: >"$IOLOG"
test_ok "vgreduce $VG3 of that PV" \
    env LVX_TEST_IO_LOG="$IOLOG" LVM_SYSTEM_DIR="$SCRATCH/lvm" "$LVX" vgreduce "$VG3" "$E"
test_eq "vgreduce opens no device of another VG" "$(grep -c "^open ${BIG[0]}\$" "$IOLOG")" 0
test_eq "the index lists the PV as an orphan" \
    "$(awk -v d="$(majmin "$E")" '$1 == "pv" && $2 == d { print $4, $5 }' "$INDEX")" "- -"
test_eq "LVM2 counts 3 PVs in $VG3" \
    "$(lvm2 vgs --noheadings -o pv_count "$VG3" 2>/dev/null | tr -d ' ')" 3
: >"$IOLOG"
test_ok "vgextend $VG3 with that orphan" \
    env LVX_TEST_IO_LOG="$IOLOG" LVM_SYSTEM_DIR="$SCRATCH/lvm" "$LVX" vgextend "$VG3" "$E"
test_eq "it opens the VG's devices and the orphan only" \
    "$(awk '$1 == "open" { print $2 }' "$IOLOG" | sort -u | wc -l)" 4
test_eq "LVM2 counts 4 PVs in $VG3 again" \
    "$(lvm2 vgs --noheadings -o pv_count "$VG3" 2>/dev/null | tr -d ' ')" 4

# 5c. a PV without metadata areas put into a VG by LVM2 behind lvx's back: the index still
#     says orphan, the device cannot prove it is one: lvx reads every device and refuses.
F=${SMALL[7]} G=${SMALL[8]}
lvm2 pvcreate -y --pvmetadatacopies 0 "$F" >/dev/null 2>&1
lvm2 pvcreate -y "$G" >/dev/null 2>&1
X vgs >/dev/null 2>&1            # a full scan: the index records F and G as orphans
lvm2 vgcreate "$VG5" "$G" "$F" >/dev/null 2>&1
test_eq "LVM2 put the area-less PV into $VG5" \
    "$(lvm2 pvs --noheadings -o vg_name "$F" 2>/dev/null | tr -d ' ')" "$VG5"
test_eq "the index still lists it as an orphan (no full scan since)" \
    "$(awk -v d="$(majmin "$F")" '$1 == "pv" && $2 == d { print $5 }' "$INDEX")" "-"
X vgextend "$VG3" "$F" >"$R/steal.out" 2>"$R/steal.err"
test_eq "lvx vgextend $VG3 with it fails (exit 5)" "$?" 5
# LVM2 2.03.16 refuses a PV flagged in use whose own metadata is missing this way even
# when another PV's metadata lists it (its implicit pvcreate checks the flag first)
test_eq "... with LVM2's lines (warnings aside)" "$(grep -v WARNING "$R/steal.err")" \
    "$(lvm2 vgextend "$VG3" "$F" 2>&1 >/dev/null | sandbox_noise | grep -v WARNING)"
test_eq "LVM2 still counts 4 PVs in $VG3" \
    "$(lvm2 vgs --noheadings -o pv_count "$VG3" 2>/dev/null | tr -d ' ')" 4

# 5d. a device with 4 KiB logical sectors: scans read the head of every device with
#     O_DIRECT in 4.5 KiB, which such a device refuses; lvx then reads it buffered.
truncate -s 16M "$SCRATCH/k4.img"
K4=$(attach_loop "$SCRATCH/k4.img" --sector-size 4096 2>/dev/null)
if [[ -n $K4 && $(cat "/sys/block/${K4#/dev/}/queue/logical_block_size" 2>/dev/null) == 4096 ]]; then
    lvm_sandbox "${ALL[@]}" "$K4"
    test_ok "pvcreate on a 4 KiB-sector device" X pvcreate -y "$K4"
    test_ok "vgcreate on it" X vgcreate "$VG4" "$K4"
    test_eq "lvx vgs $VG4 reads it" "$(X vgs --noheadings -o pv_count "$VG4" 2>/dev/null | tr -d ' ')" 1
    test_eq "LVM2 agrees" "$(lvm2 vgs --noheadings -o pv_count,vg_mda_count "$VG4" 2>/dev/null | tr -s ' ')" " 1 1"
    X vgremove -f "$VG4" >/dev/null 2>&1
else
    for t in pvcreate vgcreate vgs LVM2; do test_skip "4 KiB-sector device: $t" "no losetup --sector-size"; done
fi

[[ -n ${KEEP:-} ]] && { echo "# kept $SCRATCH"; trap - EXIT; }
X vgremove -f "$VG" "$VG3" >/dev/null 2>&1
lvm2 vgremove -f "$VG2" "$VG5" >/dev/null 2>&1
done_testing
