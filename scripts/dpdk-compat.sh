#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The twheel authors
#
# Build and test twheel against other DPDK releases.
#
# Usage: scripts/dpdk-compat.sh [--cache DIR] [--suites "fast-tests e2e"]
#                               [--results FILE] SOURCE...
#   SOURCE   a DPDK source tarball (dpdk-*.tar.xz / .tar.gz) or an unpacked
#            DPDK source tree
#   --cache  where each DPDK is built and installed, once (default
#            $TWHEEL_DPDK_CACHE, else ~/.cache/twheel-dpdk); a later run
#            with the same source reuses it
#   --suites the meson test suites to run (default "fast-tests e2e"; ""
#            builds only)
#   --results also append every result, as meson testlog.json lines named
#            "[VERSION] test", to FILE (scripts/test.sh sums them)
#
# For each source: build DPDK into the cache unless it is there already
# (the drivers and libraries twheel needs, the options of
# ../shared/dpdk/README.md), build twheel against it in build-dpdk-VERSION/
# with warnings as errors, run the test suites with the libraries of that
# DPDK, and count the build as one test of its own. The last line is the
# plain summary "N passed, N failed" over every version; the exit status is
# non-zero when anything failed or nothing ran.
set -uo pipefail
src_root=$(cd "$(dirname "$0")/.." && pwd)
cd "$src_root"

cache=${TWHEEL_DPDK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/twheel-dpdk}
suites="fast-tests e2e"
results_out=""
sources=()
while [ $# -gt 0 ]; do
	case "$1" in
	--cache|--suites|--results)
		[ $# -ge 2 ] || { echo "dpdk-compat: $1 needs a value" >&2; exit 2; } ;;
	esac
	case "$1" in
	--cache) cache=$2; shift 2 ;;
	--suites) suites=$2; shift 2 ;;
	--results) results_out=$2; shift 2 ;;
	-h|--help) sed -n '5,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "dpdk-compat: unknown option '$1'" >&2; exit 2 ;;
	*) sources+=("$1"); shift ;;
	esac
done
[ ${#sources[@]} -gt 0 ] || { echo "dpdk-compat: no DPDK source given (see --help)" >&2; exit 2; }

# DPDK's build runs python3 with pyelftools: Debian's, not one a version
# manager puts first in PATH
export PATH=/usr/bin:$PATH
scripts/deps.sh xz-utils >/dev/null || { echo "dpdk-compat: installing packages failed" >&2; exit 1; }

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
# EAL refuses to load drivers from below a world-writable directory (such
# as /tmp): say so now rather than fail every test
d=$cache
while [ "$d" != / ]; do
	if [ -n "$(find "$d" -maxdepth 0 -perm -0002)" ]; then
		echo "dpdk-compat: $d is world-writable: EAL will not load DPDK's drivers from below it; choose another --cache" >&2
		exit 2
	fi
	d=$(dirname "$d")
done
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# one line of meson's testlog.json format, so meson-summary.py counts it
record() { # version what OK|FAIL
	printf '{"name": "[%s] %s", "result": "%s"}\n' "$1" "$2" "$3" >> "$results"
}

dpdk_version_of() { # tree
	tr -d '[:space:]' < "$1/VERSION"
}

# Unpack (tarball) or point at (tree) SOURCE; build and install it into the
# cache once. Prints the install prefix.
dpdk_install() {
	local source=$1 key dir tree prefix
	if [ -d "$source" ]; then
		tree=$(cd "$source" && pwd)
		key=$(basename "$tree")-$(printf '%s' "$tree" | sha1sum | cut -c1-8)
	else
		[ -f "$source" ] || { echo "dpdk-compat: $source: no such file" >&2; return 1; }
		key=$(basename "$source")
		key=${key%%.tar*}-$(sha1sum < "$source" | cut -c1-8)
	fi
	dir=$cache/$key
	prefix=$dir/install
	if [ -f "$dir/installed" ]; then
		echo "$prefix"
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	if [ -z "${tree:-}" ]; then
		tar -xf "$source" -C "$dir" || return 1
		tree=$(find "$dir" -mindepth 1 -maxdepth 1 -type d | head -1)
		[ -f "$tree/VERSION" ] || { echo "dpdk-compat: $source is not a DPDK source tarball" >&2; return 1; }
	fi
	echo "dpdk-compat: building DPDK $(dpdk_version_of "$tree") into $prefix (log: $dir/build.log)" >&2
	if ! { meson setup "$dir/build" "$tree" --prefix="$prefix" --libdir=lib \
		--buildtype=release -Dplatform=generic \
		-Denable_drivers=bus/vdev,mempool/ring,net/ring,net/null,net/memif,net/pcap \
		-Denable_apps=test-pmd \
		-Denable_libs=eal,ring,mempool,mbuf,net,ethdev,hash,lpm,timer,telemetry,kvargs,log,meter,pci,rcu,cmdline,metrics,bitratestats,latencystats,pdump,gro,gso,bpf,pcapng \
		-Dtests=false -Denable_docs=false -Dexamples= &&
		ninja -C "$dir/build" install; } > "$dir/build.log" 2>&1; then
		tail -20 "$dir/build.log" >&2
		return 1
	fi
	[ -d "$dir/build" ] && rm -rf "$dir/build"
	echo "$tree" > "$dir/source"
	touch "$dir/installed"
	echo "$prefix"
}

for source in "${sources[@]}"; do
	name=$(basename "$source")
	name=${name%%.tar*}
	t0=$SECONDS
	if ! prefix=$(dpdk_install "$source"); then
		echo "dpdk-compat: $name: DPDK did not build"
		record "$name" "DPDK build" FAIL
		continue
	fi
	pcdir=$prefix/lib/pkgconfig
	version=$(PKG_CONFIG_PATH=$pcdir pkg-config --modversion libdpdk) || {
		echo "dpdk-compat: $name: no libdpdk.pc under $pcdir"
		record "$name" "DPDK build" FAIL
		continue
	}
	build=build-dpdk-$version
	blog=$build.log
	echo "dpdk-compat: DPDK $version: building twheel in $build/ (log: $blog)"
	# the caller's PKG_CONFIG_PATH stays behind ours: a DPDK of its own
	# must not shadow the one under test
	export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
	export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	if { if [ -d "$build" ]; then
			meson setup --reconfigure "$build" --werror
		else
			meson setup "$build" --buildtype=release --werror
		fi && ninja -C "$build"; } > "$blog" 2>&1; then
		warnings=$(grep -c 'warning:' "$blog")
		if [ "$warnings" -eq 0 ]; then
			record "$version" "twheel build, 0 warnings" OK
		else
			echo "dpdk-compat: DPDK $version: $warnings warnings (see $blog)"
			record "$version" "twheel build, 0 warnings" FAIL
		fi
		args=()
		for s in $suites; do args+=(--suite "$s"); done
		if [ ${#args[@]} -gt 0 ]; then
			rm -f "$build/meson-logs/testlog.json"
			meson test -C "$build" --print-errorlogs "${args[@]}" |
				grep -E '^ *[0-9]+/[0-9]+ ' | sed "s|^|[$version] |"
			# each result, named with its DPDK version
			python3 - "$version" "$build/meson-logs/testlog.json" >> "$results" <<-'EOF'
			import json, sys
			try:
			    lines = open(sys.argv[2]).read().splitlines()
			except OSError:
			    lines = ['{"name": "meson test", "result": "ERROR"}']
			for line in filter(str.strip, lines):
			    r = json.loads(line)
			    print(json.dumps({"name": "[%s] %s" % (sys.argv[1], r.get("name")),
			                      "result": r.get("result"),
			                      "stdout": r.get("stdout", "")}))
			EOF
			"$src_root/scripts/remove-eal-runtime.sh" "$build"
		fi
	else
		grep -E 'error|warning' "$blog" | head -20
		echo "dpdk-compat: DPDK $version: twheel did not build (see $blog)"
		record "$version" "twheel build, 0 warnings" FAIL
	fi
	export PKG_CONFIG_PATH=${PKG_CONFIG_PATH#"$pcdir"}
	PKG_CONFIG_PATH=${PKG_CONFIG_PATH#:}
	export LD_LIBRARY_PATH=${LD_LIBRARY_PATH#"$prefix/lib"}
	LD_LIBRARY_PATH=${LD_LIBRARY_PATH#:}
	echo "dpdk-compat: DPDK $version: done in $(( SECONDS - t0 )) s"
done

[ -n "$results_out" ] && cat "$results" >> "$results_out"
python3 scripts/meson-summary.py "$results"
