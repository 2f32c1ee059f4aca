#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Remove the EAL runtime directories (/var/run/dpdk/PREFIX as root,
# $XDG_RUNTIME_DIR/dpdk/PREFIX or /tmp/dpdk/PREFIX otherwise) that the
# meson tests of a build directory leave: each test's --file-prefix
# carries the build's tag (meson.build: build_tag, the first 8 hex digits
# of the SHA-1 of the build directory's absolute path). The e2e tests and
# the scripts remove their own. Run it with no test of that build running.
# Usage: scripts/remove-eal-runtime.sh BUILD_DIR...
set -euo pipefail
run=$([ "$(id -u)" -eq 0 ] && echo /var/run/dpdk || echo "${XDG_RUNTIME_DIR:-/tmp}/dpdk")
for dir in "$@"; do
	tag=$(python3 -c 'import hashlib, sys; print(hashlib.sha1(sys.argv[1].encode()).hexdigest()[:8])' \
		"$(cd "$dir" && pwd)")
	rm -rf "$run"/*"$tag"*
done
