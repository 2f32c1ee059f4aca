/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * Telemetry: /twheel/list and /twheel/stats,<name>, for dpdk-telemetry.py
 * while an application runs. Callbacks run on the telemetry thread and read
 * a wheel only under the registry lock, so a concurrent twheel_free() waits.
 *
 * A constructor registers the commands before any wheel exists; the
 * registry calls twheel_telemetry_register() again (a no-op then) when a
 * wheel is added, and that reference is what keeps this file in a program
 * that links libtwheel.a through pkg-config, without --whole-archive.
 */

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <rte_telemetry.h>
#include <rte_version.h>

#include "twheel_layout.h"
#include "twheel_registry.h"

/* _u64 is deprecated from 23.03 (for _uint) and gone in 25.11 */
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
#define tel_dict_u64 rte_tel_data_add_dict_uint
#else
#define tel_dict_u64 rte_tel_data_add_dict_u64
#endif

static void
list_one(const struct twheel *w, void *arg)
{
	rte_tel_data_add_array_string(arg, w->name);
}

static int
handle_list(const char *cmd __rte_unused, const char *params __rte_unused,
	    struct rte_tel_data *d)
{
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	twheel_registry_foreach(list_one, d);
	return 0;
}

static int
stats_one(const struct twheel *w, void *arg)
{
	struct rte_tel_data *d = arg;
	struct twheel_mem_info mi;
	struct twheel_stats st;

	twheel_stats_get(w, &st);
	twheel_mem_info_get(w, &mi);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", w->name);
	tel_dict_u64(d, "capacity", w->capacity);
	tel_dict_u64(d, "slots", w->slots);
	tel_dict_u64(d, "tick_cycles", w->tick_cycles);
	rte_tel_data_add_dict_int(d, "socket_id", w->socket_id);
	tel_dict_u64(d, "memory_bytes", mi.total_bytes);
	tel_dict_u64(d, "remote_lanes", w->nb_lanes);
	tel_dict_u64(d, "live", st.live);
	tel_dict_u64(d, "scheduled", st.scheduled);
	tel_dict_u64(d, "cancelled", st.cancelled);
	tel_dict_u64(d, "due", st.due);
	tel_dict_u64(d, "revisits", st.revisits);
	tel_dict_u64(d, "remote_cancels", st.remote_cancels);
	tel_dict_u64(d, "remote_schedules", st.remote_schedules);
	tel_dict_u64(d, "remote_stale", st.remote_stale);
	tel_dict_u64(d, "remote_full", st.remote_full);
	tel_dict_u64(d, "rejected", st.rejected);
	tel_dict_u64(d, "sweeps", st.sweeps);
	tel_dict_u64(d, "budget_exhausted", st.budget_exhausted);
	tel_dict_u64(d, "max_lag_cycles", st.max_lag_cycles);
	return 0;
}

static int
handle_stats(const char *cmd __rte_unused, const char *params,
	     struct rte_tel_data *d)
{
	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	return twheel_registry_with(params, stats_one, d);
}

static void
register_cmds(void)
{
	rte_telemetry_register_cmd("/twheel/list", handle_list,
		"Returns the names of the twheel timer wheels. Takes no parameters");
	rte_telemetry_register_cmd("/twheel/stats", handle_stats,
		"Returns a wheel's statistics. Parameters: wheel name");
}

void
twheel_telemetry_register(void)
{
	/* rte_telemetry keeps duplicates, so once only */
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, register_cmds);
}

RTE_INIT(twheel_telemetry_init)
{
	twheel_telemetry_register();
}
