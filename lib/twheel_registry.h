/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The process's wheels by name (twheel_registry.c) and the telemetry
 * commands that read them (twheel_telemetry.c). Control path only: the
 * registry's lock is never taken by an owner function.
 */

#ifndef _TWHEEL_REGISTRY_H_
#define _TWHEEL_REGISTRY_H_

#include <stdbool.h>

struct twheel;

int twheel_registry_add(struct twheel *w);
void twheel_registry_remove(struct twheel *w);
bool twheel_registry_has(const char *name);
/* fn runs under the registry lock: the wheel cannot be freed meanwhile */
void twheel_registry_foreach(void (*fn)(const struct twheel *w, void *arg),
			     void *arg);
int twheel_registry_with(const char *name,
			 int (*fn)(const struct twheel *w, void *arg),
			 void *arg);

/*
 * Register the telemetry commands, once per process. Called by a
 * constructor and again by twheel_create(): the call is what keeps
 * twheel_telemetry.o in a program that links libtwheel.a without
 * --whole-archive.
 */
void twheel_telemetry_register(void);

#endif /* _TWHEEL_REGISTRY_H_ */
