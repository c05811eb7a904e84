#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/demo.sh - `make demo`: lvx reading disks made by the real LVM2, with no real
# disk involved.  Rebuilds the images of two fixture scenarios (p02: a 4-stripe LV over
# four PVs; p05: three PVs with different metadata sizes and data alignments) into a
# temporary directory, runs the report and display commands on them, cleans up.
#   LVX=path/to/lvx (default build/lvx)
set -euo pipefail
cd "$(dirname "$0")/../.."

LVX=$(realpath -m "${LVX:-build/lvx}")
PYTHON=python3
[[ -x /usr/bin/python3 ]] && PYTHON=/usr/bin/python3
if [[ ! -x $LVX ]]; then
    echo "demo: $LVX is not built; run 'make' first" >&2
    exit 1
fi
tmp=$(mktemp -d /tmp/lvx-demo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

run() {
    printf '\n$ lvx %s\n' "$*"
    "$LVX" "$@"
}

for scenario in p02_striped4_256k p05_custom_mdasize_dataalignment; do
    mapfile -t images < <("$PYTHON" tests/tools/fixture.py build "$scenario" "$tmp/$scenario")
    images=("${images[@]##*/}")          # run inside the directory: short device names
    devices=$(IFS=,; echo "${images[*]}")
    title="$scenario: $("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["description"])' \
        "tests/fixtures/lvm2/$scenario/manifest.json")"
    printf '\n==== %s\n' "$title"
    printf '     (%s: sparse image files rebuilt from tests/fixtures/lvm2/%s)\n' "${images[*]}" "$scenario"
    (
        cd "$tmp/$scenario"
        run pvs --devices "$devices"
        run vgs --devices "$devices"
        run lvs -a --segments -o +devices --devices "$devices"
        run lvdisplay -m --devices "$devices"
    )
done
printf '\n(images removed; LVM2 made them: see tests/fixtures/lvm2/*/commands.txt)\n'
