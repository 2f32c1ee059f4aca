/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Telemetry check for an installed libtwheel (scripts/check-install.sh):
 * built with pkg-config alone, dynamically and statically. It creates a
 * wheel, asks its own process's telemetry socket for /twheel/list, as
 * dpdk-telemetry.py would, and exits 0 only if the wheel is listed. A
 * static link that dropped the library's telemetry commands answers
 * with null instead.
 */

#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include <twheel.h>

#include "telemetry_query.h"

#define WHEEL_NAME "install_tel"

int
main(int argc, char **argv)
{
	struct twheel_config cfg;
	struct twheel *w;
	char reply[4096];
	int ok;

	if (rte_eal_init(argc, argv) < 0)
		return 1;
	twheel_config_standard(&cfg, WHEEL_NAME, 64, rte_socket_id());
	w = twheel_create(&cfg);
	if (w == NULL)
		return 1;
	if (telemetry_query("/twheel/list", reply, sizeof(reply)) != 0) {
		printf("no answer from the telemetry socket\n");
		return 1;
	}
	ok = strstr(reply, "\"" WHEEL_NAME "\"") != NULL;
	printf("/twheel/list: %s (%s)\n", reply, ok ? "listed" : "NOT listed");
	twheel_free(w);
	rte_eal_cleanup();
	return ok ? 0 : 1;
}
