#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install the Debian 12 packages twheel needs, only those missing.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail

# prometheus: the server the telemetry exporter test scrapes with
# (examples/l3fwd-flowexp/test/e2e/e2e_telemetry.py); nfdump: nfcapd, the IPFIX
# collector the NAT log test exports to, and nfdump, which reads its files
# (examples/l3fwd-flowexp/test/e2e/e2e_ipfix.py); each runs only there;
# abigail-tools: abidw and abidiff, the ABI check (scripts/check-abi.sh);
# tshark: Wireshark's IPFIX dissector, the NAT log's second reader
# (e2e_ipfix.py events; its setuid question answered no, the default);
# groff-base: the man pages' check (scripts/check-manpage.sh); lintian:
# the Debian packages' check (scripts/check-debian.sh, which installs
# debian/control's Build-Depends itself with apt-get build-dep)
packages=(build-essential meson ninja-build pkg-config python3
	python3-pyelftools libdpdk-dev dpdk dpdk-dev libpcap-dev
	iproute2 ethtool curl prometheus nfdump abigail-tools tshark groff-base
	lintian "$@")

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
	--no-install-recommends "${missing[@]}" >/dev/null
