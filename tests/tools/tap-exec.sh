#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/tools/tap-exec.sh FILE - how prove runs one test (prove --exec): shell tests
# through bash (no need for the executable bit), anything else directly.
case $1 in
*.sh) exec bash "$1" ;;
*) exec "$1" ;;
esac
