#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
# Usage: check-manpage.sh PAGE MIN_TAGGED
# Format a man page with groff, every warning on (as lintian does); fail on
# any warning, and on a page with fewer than MIN_TAGGED tagged paragraphs
# (.TP: options, tests). Exit 77 (skipped) where groff is not installed.
page=$1
min=$2
command -v groff >/dev/null || { echo "groff not installed"; exit 77; }
warnings=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1)
if [ -n "$warnings" ]; then
	echo "$warnings"
	exit 1
fi
tagged=$(grep -c '^\.TP' "$page")
echo "$page: $tagged tagged paragraphs (at least $min wanted), no groff warning"
[ "$tagged" -ge "$min" ]
