#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# t0300-pvcreate-geometry: `lvx pvcreate OPTS DEV_A` must lay out a PV exactly as the
# real `lvm pvcreate OPTS DEV_B` does on a device of the same size.  For every
# combination of device size, --metadatacopies, --metadatasize, --dataalignment,
# --dataalignmentoffset, --labelsector, --bootloaderareasize (and --metadataignore,
# --setphysicalvolumesize) the test compares:
#   - whether both commands succeed or both fail;
#   - LVM2's own `pvs --reportformat json` of both devices (pe_start, mda size and
#     count, bootloader area, dev_size, mda free, extension version);
#   - the first 4 KiB and every mda header, byte for byte, with the PV UUID and the
#     checksums masked;
#   - that LVM2's `pvck` accepts lvx's PV.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

need_loop
need_cmd lvm blkdiscard "$PYTHON"
need_lvx
plan_later

FIELDS=pe_start,pv_mda_size,pv_mda_count,pv_ba_start,pv_ba_size,dev_size,pv_mda_free,pv_ext_vsn

# size  options (one combination per line)
MATRIX=$(cat <<'EOF'
64M
64M --metadatacopies 0
64M --metadatacopies 2
64M --pvmetadatacopies 2 --metadatasize 192k
64M --metadatasize 192k
64M --metadatasize 960K
64M --metadatasize 1
64M --metadatasize 1G
64M --metadatasize 128k --dataalignment 64k
64M --metadatasize 1500k --dataalignment 512k
64M --metadatasize 60k --dataalignment 64k
64M --dataalignment 192k --dataalignmentoffset 64k
64M --dataalignment 64k --dataalignmentoffset 4k --metadatacopies 2
64M --bootloaderareasize 1m
64M --bootloaderareasize 100k --dataalignment 64k
64M --labelsector 0
64M --labelsector 3
64M --labelsector 2 --metadatacopies 2 --metadatasize 500k
64M --metadataignore y
64M --metadatacopies 2 --metadataignore y
64M -Z n
96M --pvmetadatacopies 2
96M --metadatacopies 0 --bootloaderareasize 2m
8M
8M --metadatacopies 2
8M --metadatasize 4m
8M --metadatasize 6m
3M
3M --metadatacopies 2
200M --dataalignment 4m --metadatacopies 2
200M --bootloaderareasize 3m --dataalignment 2m
200M --dataalignmentoffset 16k
200M --metadatasize 3m --dataalignment 1536k
200M --metadatasize 16k --dataalignment 64k
200M --dataalignmentoffset 2m
200M --setphysicalvolumesize 100m -y
200M --setphysicalvolumesize 100m --metadatacopies 2 -y
EOF
)

declare -A LOOP_A LOOP_B
for size in $(awk '{print $1}' <<<"$MATRIX" | sort -u); do
    LOOP_A[$size]=$(make_loop "$size")
    LOOP_B[$size]=$(make_loop "$size")
done
lvm_sandbox "${LOOP_A[@]}" "${LOOP_B[@]}"

# pvs_json DEV: LVM2's report row of DEV (fields above), one JSON object per line.
pvs_json() {
    lvm2 pvs --reportformat json --units b -o "$FIELDS" "$1" 2>/dev/null |
        "$PYTHON" -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["report"][0]["pv"], sort_keys=True))'
}

# masked_bytes DEV: hex of the first 4 KiB and of each mda header, UUID and CRCs masked.
masked_bytes() {
    "$PYTHON" - "$1" <<'PY'
import struct, sys

def nonzero_lines(tag, buf):
    """16-byte lines that are not all zero, as 'tag+offset: hex'."""
    return ["%s+%04x: %s" % (tag, i, buf[i:i + 16].hex())
            for i in range(0, len(buf), 16) if any(buf[i:i + 16])]

dev = open(sys.argv[1], "rb")
head = bytearray(dev.read(4096))
out = []
mdas = []
for s in range(4):
    base = s * 512
    if head[base:base + 8] == b"LABELONE":
        head[base + 16:base + 20] = b"C" * 4           # label crc
        head[base + 32:base + 64] = b"U" * 32          # pv_uuid
        p = base + 32 + 40                             # data area list
        while struct.unpack_from("<Q", head, p)[0]:
            p += 16
        p += 16                                        # metadata area list
        while struct.unpack_from("<Q", head, p)[0]:
            mdas.append(struct.unpack_from("<QQ", head, p))
            p += 16
        break
out += nonzero_lines("head", head)
for off, size in mdas:
    dev.seek(off)
    hdr = bytearray(dev.read(512))
    hdr[0:4] = b"C" * 4                                # mda header crc
    out += nonzero_lines("mda@%d/%d" % (off, size), hdr)
print("\n".join(out))
PY
}

n=0
while read -r size opts; do
    n=$((n + 1))
    a=${LOOP_A[$size]}
    b=${LOOP_B[$size]}
    blkdiscard -f "$a" 2>/dev/null || dd if=/dev/zero of="$a" bs=1M count=8 status=none
    blkdiscard -f "$b" 2>/dev/null || dd if=/dev/zero of="$b" bs=1M count=8 status=none
    what="$size ${opts:-(defaults)}"
    # shellcheck disable=SC2086
    lvx pvcreate $opts "$a" >"$SCRATCH/lvx.out" 2>"$SCRATCH/lvx.err"
    rc_lvx=$?
    # shellcheck disable=SC2086
    lvm2 pvcreate $opts "$b" >"$SCRATCH/lvm.out" 2>"$SCRATCH/lvm.err" </dev/null
    rc_lvm=$?
    if ! test_eq "$what: lvx and LVM2 agree on success" "$([[ $rc_lvx == 0 ]] && echo ok || echo fail)" \
        "$([[ $rc_lvm == 0 ]] && echo ok || echo fail)"; then
        _diag_file "lvx stderr" "$SCRATCH/lvx.err"
        _diag_file "lvm stderr" "$SCRATCH/lvm.err"
        continue
    fi
    if [[ $rc_lvx != 0 ]]; then
        test_eq "$what: both refused, lvx printed one error line" "$(grep -vc '^$' "$SCRATCH/lvx.err")" 1
        continue
    fi
    test_eq "$what: lvx prints LVM2's message" \
        "$(sed "s|$a|DEV|" "$SCRATCH/lvx.out")" "$(sed "s|$b|DEV|" "$SCRATCH/lvm.out")"
    test_eq "$what: LVM2 reports the same PV geometry" "$(pvs_json "$a")" "$(pvs_json "$b")"
    test_eq "$what: same label and mda header bytes (uuid, crc masked)" \
        "$(masked_bytes "$a")" "$(masked_bytes "$b")"
    pvck_opts=()     # pvck looks for the label in sector 1 unless told
    [[ $opts =~ --labelsector\ ([0-9]) ]] && pvck_opts=(--labelsector "${BASH_REMATCH[1]}")
    test_ok "$what: LVM2 pvck accepts lvx's PV" lvm2 pvck "${pvck_opts[@]}" "$a"
done <<<"$MATRIX"

test_ok "matrix has at least 20 combinations ($n)" test "$n" -ge 20
done_testing
