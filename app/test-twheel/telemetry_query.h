/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Ask this process's own telemetry socket a command, as dpdk-telemetry.py
 * would. Shared by the test app and the installed-library probe
 * (install_telemetry.c, built alone with pkg-config), hence a header.
 */

#ifndef _TWHEEL_TELEMETRY_QUERY_H_
#define _TWHEEL_TELEMETRY_QUERY_H_

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_eal.h>

/* The reply to cmd in buf (NUL-terminated): 0, or -errno. */
static inline int
telemetry_query(const char *cmd, char *buf, size_t len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	ssize_t n;
	int fd;

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		return -ENOTCONN;
	}
	n = read(fd, buf, len - 1);          /* the greeting */
	if (n <= 0 || write(fd, cmd, strlen(cmd)) < 0) {
		close(fd);
		return -EIO;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return 0;
}

#endif /* _TWHEEL_TELEMETRY_QUERY_H_ */
