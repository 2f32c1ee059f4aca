# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# Sourced by the plot scripts (bash): plot_setup USAGE ARGS... checks that
# the arguments are a readable CSV and a PNG path (sets csv and png),
# installs gnuplot (Debian: gnuplot-nox) when it is missing, and makes a
# scratch directory $tmp, removed at exit.

plot_setup() {
	local usage=$1
	shift
	if [ $# -ne 2 ]; then
		echo "usage: $0 $usage" >&2
		exit 2
	fi
	csv=$1
	png=$2
	[ -r "$csv" ] || { echo "$0: cannot read $csv" >&2; exit 1; }
	if ! command -v gnuplot >/dev/null 2>&1; then
		local sudo=""
		[ "$(id -u)" -eq 0 ] || sudo="sudo"
		echo "installing gnuplot-nox"
		$sudo apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
			--no-install-recommends gnuplot-nox >/dev/null
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
}
