#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0611-raid-create: lvx lvcreate of RAID LVs on loop devices, host side (LVM2 creates
# only raid0 without device-mapper; the other types are compared with LVM2 inside a
# VM by t0710).
#   * raid0 on twin VGs (tests/tools/lv_twin.sh): lvx's layout and metadata text equal
#     LVM2's (ids and times aside);
#   * every type lvx makes (raid1 -m1/-m2, raid10, raid4, raid5 and its layouts, raid6
#     and its layouts, raid0_meta, --nosync, -R, recovery rates, tags): LVM2's vgck
#     accepts the VG and LVM2's report shows the type, image count and sizes asked for;
#     each image's rmeta and rimage lie on one PV, rmeta first and adjacent, images on
#     distinct PVs; the rmeta's first 4 KiB are zeroed (and the rimages' with -Z y);
#   * bad option combinations: same exit code and message as LVM2 (which checks them
#     before it looks for device-mapper), nothing written;
#   * lvconvert (-m, --type raid1|linear, --repair, --replace) and lvchange --syncaction
#     refuse what LVM2 refuses here (inactive LVs, wrong LV types, bad options) with
#     LVM2's words and exit codes, writing nothing; lvs of the RAID settings fields
#     (recovery rates, write-behind, region size) equals LVM2's; the default region
#     size follows lvm.conf's activation/raid_region_size as LVM2's does;
#   * lvremove takes the sub-LVs with the LV.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/tools/lv_twin.sh
. "$LVX_ROOT/tests/tools/lv_twin.sh"

need_loop
need_cmd lvm "$PYTHON"
need_lvx
plan_later

twin_setup 5 256M vg1 || { _tap_result 1 "set up twin VGs"; done_testing; }
D=$(IFS=,; echo "${TWIN_A[*]}")

# ---------------------------------------------------------------- raid0 against LVM2
meta() {  # the VG's metadata text without ids, times, hosts, seqno, devices
    "lvm_$1" vgcfgbackup -f "$SCRATCH/meta_$1.vg" vg1 >/dev/null 2>&1
    sed -n '/^vg1 {/,$p' "$SCRATCH/meta_$1.vg" |
        sed -E '/^\t*(id|creation_time|creation_host|seqno|device|dev_size) = /d'
}
for a in "-i2 -L 12m -n z0" "-i3 -I128k -L 16m -n z1" "-i5 -I4k -l 7 -n z2" "-i2 -L 8m -n z3 --addtag t"; do
    # shellcheck disable=SC2086
    lvx_a lvcreate -an -Zn --type raid0 $a vg1 >"$SCRATCH/a.out" 2>&1; rca=$?
    # shellcheck disable=SC2086
    lvm_b lvcreate -an -Zn --type raid0 $a vg1 >"$SCRATCH/b.out" 2>&1; rcb=$?
    test_eq "raid0 $a: lvx exits as LVM2" "$rca" "$rcb"
    test_eq "raid0 $a: layout equals LVM2's" "$(twin_lvs a)" "$(twin_lvs b)"
done
test_eq "raid0: lvx's metadata text equals LVM2's" "$(meta a)" "$(meta b)"
test_ok "LVM2's vgck accepts lvx's raid0 LVs" lvm_a vgck vg1
test_ok "lvx lvremove of the raid0 LVs" lvx_a lvremove -y vg1/z0 vg1/z1 vg1/z2 vg1/z3
test_eq "their sub-LVs went with them" "$(lvm_a lvs -a --noheadings -o lv_name vg1 2>/dev/null | wc -l)" 0

# ---------------------------------------------------------------- every type
# a pattern at the start of every PE: zeroing must be visible
"$PYTHON" -c "import sys; sys.stdout.buffer.write(b'\xa5' * 65536)" >"$SCRATCH/pat"
for d in "${TWIN_A[@]}"; do
    s=$(lvm_a pvs --noheadings --units b --nosuffix -o pe_start,pv_pe_count "$d" 2>/dev/null)
    read -r pes pec <<<"$s"
    for ((pe = 0; pe < pec; pe++)); do
        dd if="$SCRATCH/pat" of="$d" bs=64k seek=$(((pes + pe * 4194304) / 65536)) conv=notrunc status=none
    done
done
report() {  # report LV: "segtype images stripe_size region_size size" as LVM2 reads it
    lvm_a lvs --noheadings --units s -o segtype,stripes,stripe_size,region_size,lv_size "vg1/$1" 2>/dev/null |
        awk '{ print $1, $2, $3, $4, $5 }'
}
# placement: per image rmeta then rimage on one PV, rmeta just before; images on distinct PVs
placement_ok() {
    lvm_a lvs -a --noheadings --segments --separator ' ' -o lv_name,seg_pe_ranges vg1 2>/dev/null |
        tr -d '[]' | "$PYTHON" -c '
import sys, re, collections
lv, meta = sys.argv[1], sys.argv[2] == "1"
img, rmeta = {}, {}
for line in sys.stdin:
    f = line.split()
    if len(f) < 2: continue
    m = re.fullmatch(re.escape(lv) + r"_r(image|meta)_(\d+)", f[0])
    if not m: continue
    dev, rng = f[1].rsplit(":", 1)
    lo, hi = map(int, rng.split("-"))
    (img if m.group(1) == "image" else rmeta).setdefault(int(m.group(2)), []).append((dev, lo, hi))
ok = bool(img)
pvs = collections.Counter()
for i, runs in img.items():
    devs = {r[0] for r in runs}
    ok &= len(devs) == 1 and len(runs) == 1
    pvs.update(devs)
    if meta:
        ok &= i in rmeta and len(rmeta[i]) == 1 and rmeta[i][0][0] == runs[0][0] and rmeta[i][0][2] + 1 == runs[0][1]
ok &= all(c == 1 for c in pvs.values()) and (not meta or len(rmeta) == len(img))
sys.exit(0 if ok else 1)' "$1" "$2"
}
# first 4 KiB of a sub-LV zero? (through LVM2's report of where it is)
zeroed() {
    local line dev pe start
    line=$(lvm_a lvs -a --noheadings --segments --separator ' ' -o lv_name,seg_pe_ranges vg1 2>/dev/null |
        tr -d '[]' | awk -v n="$1" '$1 == n { print $2; exit }')
    dev=${line%:*}; pe=${line##*:}; pe=${pe%-*}
    start=$(lvm_a pvs --noheadings --units b --nosuffix -o pe_start "$dev" 2>/dev/null | tr -d ' ')
    [[ $(dd if="$dev" bs=4096 count=1 skip=$(((start + pe * 4194304) / 4096)) status=none | tr -d '\0' | wc -c) == 0 ]]
}
T=(lvcreate -an)
# name | lvcreate args | expected LVM2 report (type images stripe_size region_size size) | meta
while IFS='|' read -r name args want meta; do
    # shellcheck disable=SC2086
    test_ok "lvx lvcreate $args -n $name" lvx_a "${T[@]}" $args -n "$name" vg1
    test_eq "$name: LVM2 reads $want" "$(report "$name")" "$want"
    test_ok "$name: rmeta/rimage placement" placement_ok "$name" "$meta"
done <<'EOF2'
r1|--type raid1 -m1 -L 12m|raid1 2 0S 4096S 24576S|1
r1b|-m2 -L 8m|raid1 3 0S 4096S 16384S|1
r10|--type raid10 -i2 -m1 -L 12m|raid10 4 128S 4096S 32768S|1
r10b|-i2 -m1 -I 32k -L 8m|raid10 4 64S 4096S 16384S|1
r4|--type raid4 -i3 -L 12m|raid4 4 128S 4096S 24576S|1
r5|--type raid5 -L 12m|raid5 3 128S 4096S 32768S|1
r5la|--type raid5_la -i2 -I 16k -L 8m|raid5_la 3 32S 4096S 16384S|1
r5rs|--type raid5_rs -i3 -L 12m|raid5_rs 4 128S 4096S 24576S|1
r5ra|--type raid5_ra -i4 -L 16m|raid5_ra 5 128S 4096S 32768S|1
r5n|--type raid5_n -i2 -L 8m|raid5_n 3 128S 4096S 16384S|1
r6|--type raid6 -L 12m|raid6 5 128S 4096S 24576S|1
r6nr|--type raid6_nr -i3 -L 12m|raid6_nr 5 128S 4096S 24576S|1
r6nc|--type raid6_nc -i3 -L 12m|raid6_nc 5 128S 4096S 24576S|1
r0m|--type raid0_meta -i3 -L 12m|raid0_meta 3 128S 0S 24576S|1
rs|--type raid1 -m1 -R 512k -L 8m|raid1 2 0S 1024S 16384S|1
rsmall|--type raid1 -m1 -L 4m -R 8m|raid1 2 0S 8192S 8192S|1
EOF2
test_ok "LVM2's vgck accepts lvx's RAID LVs" lvm_a vgck vg1
for sub in r1_rmeta_0 r1_rmeta_1 r5_rmeta_2 r6_rmeta_4 r0m_rmeta_1 r1_rimage_0 r5_rimage_1; do
    test_ok "$sub: first 4 KiB zeroed" zeroed "$sub"
done
test_ok "lvx lvcreate --nosync --maxrecoveryrate 8m --minrecoveryrate 1m --addtag t1 -Zn" \
    lvx_a "${T[@]}" --type raid1 -m1 --nosync --maxrecoveryrate 8m --minrecoveryrate 1m --addtag t1 -Zn -L 4m -n ns vg1
test_eq "--nosync: LVM2 shows the LV as not synchronised (R), rates and tags as given" \
    "$(lvm_a lvs -a --noheadings -o lv_name,lv_attr,raid_min_recovery_rate,raid_max_recovery_rate,lv_tags vg1 2>/dev/null | awk '$1 ~ /ns/ { $2 = substr($2, 1, 1); print }')" \
    "ns R 1024 8192 t1
[ns_rimage_0] I
[ns_rimage_1] I
[ns_rmeta_0] e t1
[ns_rmeta_1] e t1"
test_ok "ns_rmeta_0 zeroed even with -Zn (LVM2 always wipes the rmeta)" zeroed ns_rmeta_0
test_fail "ns_rimage_0 not zeroed with -Zn" zeroed ns_rimage_0

# ---------------------------------------------------------------- bad input as LVM2
seqno() { lvm_a vgs --noheadings -o vg_seqno vg1 2>/dev/null | tr -d ' '; }
before=$(seqno)
while read -r args; do
    # shellcheck disable=SC2086
    lvx_a lvcreate -an $args -L 8m vg1 >"$SCRATCH/a.out" 2>"$SCRATCH/a.err"; rca=$?
    # shellcheck disable=SC2086
    lvm_b lvcreate -an $args -L 8m vg1 >"$SCRATCH/b.out" 2>"$SCRATCH/b.err"; rcb=$?
    test_eq "lvcreate $args: exit $rcb as LVM2" "$rca" "$rcb"
    test_eq "lvcreate $args: LVM2's message" "$(grep -v -e WARNING -e 'Run `lvcreate' -e 'Using default' "$SCRATCH/a.err" | sed 's/^ *//')" \
        "$(grep -v -e WARNING -e 'Run `lvcreate' -e 'Using default' "$SCRATCH/b.err" | sed 's/^ *//')"
done <<'EOF2'
--type raid6 --nosync
--type raid5 -m1
--type raid10 -m2
--type raid1 --minrecoveryrate 1m
--type raid1 -i2
--type raid6 -i2
--type raid5 -i1
--type raid1 -m0
--type raid0 -i1
EOF2
test_eq "nothing written by the refused commands" "$(seqno)" "$before"

# ---------------------------------------------------------------- lvconvert / lvchange refusals
# LVM2 converts only active LVs (none here): each refusal with LVM2's words and exit code,
# on lvx's RAID LVs (LVM2 reading the same VG A) and on a linear LV of each twin VG
test_ok "lvx lvcreate -an -L 8m -n lin (A)" lvx_a lvcreate -an -Zn -L 8m -n lin vg1
test_ok "LVM2 lvcreate -an -L 8m -n lin (B)" lvm_b lvcreate -an -Zn -L 8m -n lin vg1
conv_same() {  # conv_same TOOL-SUFFIX(a|b) CMD ARGS...: LVM2 and lvx on that VG, the same answer
    local v=$1 c=$2
    shift 2
    "lvm_$v" "$c" "$@" >"$SCRATCH/l.out" 2>"$SCRATCH/l.err"; rcl=$?
    if [[ -n ${LVX_CMD_PLAIN:-} ]]; then LVM_SYSTEM_DIR="$SCRATCH/twin_$v" "$LVX" "$c" "$@"
    elif [[ $v == a ]]; then lvx_a "$c" "$@"; else lvx_b "$c" "$@"; fi >"$SCRATCH/x.out" 2>"$SCRATCH/x.err"; rcx=$?
    test_eq "$c $*: lvx's exit code and messages are LVM2's" \
        "$rcx $(cat "$SCRATCH/x.out" "$SCRATCH/x.err" | sed 's/^ *//; s/ (Region size must.*//' | grep -v -e WARNING -e 'Error during parsing' -e '^Region size must')" \
        "$rcl $(cat "$SCRATCH/l.out" "$SCRATCH/l.err" | sed 's/^ *//; s/ (Region size must.*//' | grep -v -e WARNING -e 'Error during parsing' -e '^Region size must')"
}
before=$(seqno)
conv_same a lvconvert -y -m2 vg1/r1b
conv_same a lvconvert -y -m0 vg1/r1b
conv_same a lvconvert -y --type linear vg1/r1b
conv_same a lvconvert -y -m 70 vg1/r1b
conv_same a lvchange --syncaction check vg1/r1b
conv_same a lvchange --syncaction frob vg1/r1b
conv_same a lvchange --syncaction check vg1/lin
for v in a b; do
    conv_same $v lvconvert -y -m1 vg1/lin
    conv_same $v lvconvert -y --type raid1 vg1/lin
    conv_same $v lvconvert -y -m0 vg1/lin
    conv_same $v lvconvert -y --type linear -m1 vg1/lin
    conv_same $v lvconvert -y --repair vg1/lin
    conv_same $v lvconvert -y --replace "$(eval echo "\${TWIN_${v^^}[0]}")" vg1/lin
    # the plain form takes no option but -v (LVM2's parser): lvx without lvx_a's
    # --devices, seeing the side's devices through its sandbox's filter
    LVX_CMD_PLAIN=1 conv_same $v lvconvert vg1/lin
    conv_same $v lvconvert -y -m1 vg1/nosuch
    conv_same $v lvconvert -y -m1 -R 3k vg1/lin
done
test_eq "nothing written by the refused conversions" "$(seqno)" "$before"
F=lv_name,raid_min_recovery_rate,raid_max_recovery_rate,raid_write_behind,region_size,raid_sync_action,raid_mismatch_count
test_eq "lvx lvs of the RAID settings fields equals LVM2's (every LV and sub-LV)" \
    "$(lvx_a lvs -a -o $F vg1 2>/dev/null)" "$(lvm_a lvs -a -o $F vg1 2>/dev/null)"

# ---------------------------------------------------------------- default region size
# lvm.conf activation/raid_region_size (KiB), as LVM2: rounded down to a power of 2,
# mirror_region_size only where raid_region_size is 0
while IFS='|' read -r name conf want; do
    test_ok "lvx lvcreate --type raid1 with --config '$conf'" \
        lvx_a lvcreate -an -Zn --config "$conf" --type raid1 -m1 -L 8m -n "$name" vg1
    test_eq "$name: LVM2 reads region size $want" "$(report "$name" | awk '{ print $4 }')" "$want"
done <<'EOF2'
rg1|activation { raid_region_size = 1024 }|2048S
rg2|activation { raid_region_size = 3000 }|4096S
rg3|activation { raid_region_size = 0 mirror_region_size = 512 }|1024S
rg4|activation { raid_region_size = 2 }|4096S
EOF2

# ---------------------------------------------------------------- user-space backend
# (the user-space backend serves every RAID type now, raid0 as the striped LV it
# equals: t0935, t0937, t0976)
test_ok "lvx lvcreate -an --type raid0 -i2 -L 8m vg1/u0" lvx_a lvcreate -an -Zn --type raid0 -i2 -L 8m -n u0 vg1

test_ok "lvx lvremove of RAID LVs" lvx_a lvremove -y vg1/r1 vg1/r5 vg1/r6 vg1/r10 vg1/u0
test_eq "no sub-LV of them left" "$(lvm_a lvs -a --noheadings -o lv_name vg1 2>/dev/null | grep -c -E '(r1|r5|r6|r10)_r')" 0
test_ok "LVM2's vgck accepts the VG after the removals" lvm_a vgck vg1
done_testing
