/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The process's list of wheels, by name: it makes names unique and lets
 * telemetry find a wheel. Control path only (create, free, telemetry
 * thread); the owner's fast path never touches it. The lock also keeps a
 * wheel alive while a telemetry callback reads it: twheel_free() takes the
 * wheel off the list under the lock before releasing its memory.
 */

#include <errno.h>
#include <string.h>

#include <rte_spinlock.h>

#include "twheel_layout.h"
#include "twheel_registry.h"

static TAILQ_HEAD(, twheel) registry = TAILQ_HEAD_INITIALIZER(registry);
static rte_spinlock_t registry_lock = RTE_SPINLOCK_INITIALIZER;

static struct twheel *
find_locked(const char *name)
{
	struct twheel *w;

	TAILQ_FOREACH(w, &registry, next)
		if (strcmp(w->name, name) == 0)
			return w;
	return NULL;
}

bool
twheel_registry_has(const char *name)
{
	bool found;

	rte_spinlock_lock(&registry_lock);
	found = find_locked(name) != NULL;
	rte_spinlock_unlock(&registry_lock);
	return found;
}

int
twheel_registry_add(struct twheel *w)
{
	int ret = 0;

	rte_spinlock_lock(&registry_lock);
	if (find_locked(w->name) != NULL)
		ret = -EEXIST;
	else
		TAILQ_INSERT_TAIL(&registry, w, next);
	rte_spinlock_unlock(&registry_lock);
	return ret;
}

void
twheel_registry_remove(struct twheel *w)
{
	struct twheel *it;

	rte_spinlock_lock(&registry_lock);
	TAILQ_FOREACH(it, &registry, next)
		if (it == w) {
			TAILQ_REMOVE(&registry, w, next);
			break;
		}
	rte_spinlock_unlock(&registry_lock);
}

void
twheel_registry_foreach(void (*fn)(const struct twheel *w, void *arg),
			void *arg)
{
	const struct twheel *w;

	rte_spinlock_lock(&registry_lock);
	TAILQ_FOREACH(w, &registry, next)
		fn(w, arg);
	rte_spinlock_unlock(&registry_lock);
}

int
twheel_registry_with(const char *name,
		     int (*fn)(const struct twheel *w, void *arg), void *arg)
{
	const struct twheel *w;
	int ret;

	rte_spinlock_lock(&registry_lock);
	w = find_locked(name);
	ret = (w == NULL) ? -ENOENT : fn(w, arg);
	rte_spinlock_unlock(&registry_lock);
	return ret;
}
