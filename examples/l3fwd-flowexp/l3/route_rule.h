/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * A route rule as text (l3/route_rule.c): what --route, --nat-inside,
 * --nat-pool and the control path's prefixes are parsed with and printed
 * as, and the prefix match the flushes use. The rule list and the tables
 * are l3/route.h.
 */

#ifndef _FX_ROUTE_RULE_H_
#define _FX_ROUTE_RULE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "fwd/neigh.h"
#include "fwd/parse.h"

/**
 * Parse "ADDR/LEN" (IPv4 or IPv6), or "ADDR/LEN,PORT[,NEXTHOP]" if
 * with_port; LEN 0 is the default route. An address with bits set after
 * LEN is refused, with the prefix it would have been in the message.
 * @return 0, or -EINVAL with a reason in err.
 */
int fx_route_parse(const char *s, struct fx_route_rule *r, bool with_port,
		   char *err, size_t errlen);

/** Room for fx_route_format(): two IPv6 addresses, a length, a port. */
#define FX_ROUTE_TEXT 112

/** Print a rule as "ADDR/LEN" (and ",PORT[,NEXTHOP]" if with_port) into buf. */
void fx_route_format(const struct fx_route_rule *r, bool with_port,
		     char *buf, size_t len);

/** Whether addr (family) lies inside prefix p. */
bool fx_prefix_match(const struct fx_route_rule *p, const uint8_t *addr,
		     uint8_t family);

#endif /* _FX_ROUTE_RULE_H_ */
