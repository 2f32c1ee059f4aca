/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The twheel authors
 */

/*
 * The perf harness (see twheel_perf.h): knobs, samples and medians,
 * permutations, the results table and the CSV.
 *
 * Why batches and medians: the machine is a shared, noisy VM. An operation
 * of a few cycles cannot be timed alone, and a pass over a million entries
 * timed as one block absorbs every pre-emption into its mean. Timing
 * batches of PERF_BATCH operations and taking the median batch gives a
 * figure that noise in a few batches does not move; the mean is kept too.
 */

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_string_fns.h>

#include "test.h"
#include "test_twheel_util.h"
#include "twheel_perf.h"

static const uint32_t default_sizes[] = { 1000000, 4000000 };
static const uint32_t quick_sizes[] = { 65536, 262144 };

static int
parse_sizes(struct perf_env *pe, const char *s)
{
	char *end;
	unsigned long long v;

	pe->nb_sizes = 0;
	while (*s != '\0') {
		errno = 0;
		v = strtoull(s, &end, 0);
		if (errno != 0 || end == s || v == 0 || v > (1u << 30) ||
		    pe->nb_sizes == RTE_DIM(pe->sizes)) {
			printf("TWHEEL_PERF_SIZES: bad list at '%s' (at most %zu sizes of 1..2^30)\n",
			       s, RTE_DIM(pe->sizes));
			return -1;
		}
		pe->sizes[pe->nb_sizes++] = (uint32_t)v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s != '\0') {
			printf("TWHEEL_PERF_SIZES: expected ',' at '%s'\n", s);
			return -1;
		}
	}
	return pe->nb_sizes != 0 ? 0 : -1;
}

int
perf_env_init(struct perf_env *pe, const char *test_name)
{
	const char *sizes = getenv("TWHEEL_PERF_SIZES");
	const char *csv = getenv("TWHEEL_PERF_CSV");
	unsigned int i;

	memset(pe, 0, sizeof(*pe));
	pe->quick = test_env_u64("TWHEEL_PERF_QUICK", 0) != 0;
	pe->strict = test_env_u64("TWHEEL_PERF_STRICT", 0) != 0;
	pe->twheel_only = test_env_u64("TWHEEL_PERF_TWHEEL_ONLY", 0) != 0;
	pe->reps = (unsigned int)test_env_u64("TWHEEL_PERF_REPS",
					      pe->quick ? 1 : 3);
	if (pe->reps == 0 || pe->reps > 100) {
		printf("TWHEEL_PERF_REPS=%u: must be 1..100\n", pe->reps);
		return -1;
	}
	pe->seed = test_env_u64("TWHEEL_PERF_SEED", 20261129);
	pe->hz = rte_get_tsc_hz();
	pe->memory = rte_eal_has_hugepages() ? "hugepages" : "no-huge";
	pe->test_name = test_name;
	if (sizes != NULL && *sizes != '\0') {
		if (parse_sizes(pe, sizes) != 0)
			return -1;
	} else if (pe->quick) {
		memcpy(pe->sizes, quick_sizes, sizeof(quick_sizes));
		pe->nb_sizes = RTE_DIM(quick_sizes);
	} else {
		memcpy(pe->sizes, default_sizes, sizeof(default_sizes));
		pe->nb_sizes = RTE_DIM(default_sizes);
	}
	if (csv != NULL && *csv != '\0') {
		pe->csv = fopen(csv, "a");
		if (pe->csv == NULL) {
			printf("TWHEEL_PERF_CSV=%s: %s\n", csv, strerror(errno));
			return -1;
		}
		/* a header when the file is new */
		if (ftell(pe->csv) == 0)
			fprintf(pe->csv, "test,memory,section,library,workload,n,metric,value,unit\n");
	}
	perf_results_clear();

	printf("%s: TSC %.3f GHz, memory %s, %u repetition(s)%s, seed %" PRIu64
	       ", flow sizes", test_name, (double)pe->hz / 1e9, pe->memory,
	       pe->reps, pe->quick ? " (quick mode)" : "", pe->seed);
	for (i = 0; i < pe->nb_sizes; i++)
		printf("%s%u", i == 0 ? " " : ",", pe->sizes[i]);
	printf("%s%s\n", csv != NULL && *csv != '\0' ? ", CSV " : "",
	       csv != NULL ? csv : "");
	perf_print_placement();
	return 0;
}

void
perf_env_close(struct perf_env *pe)
{
	if (pe->csv != NULL)
		fclose(pe->csv);
	pe->csv = NULL;
}

int
perf_samples_init(struct perf_samples *s, uint64_t cap)
{
	memset(s, 0, sizeof(*s));
	s->v = malloc(sizeof(*s->v) * (cap != 0 ? cap : 1));
	if (s->v == NULL)
		return -1;
	s->cap = cap;
	return 0;
}

void
perf_samples_free(struct perf_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void
perf_samples_reset(struct perf_samples *s)
{
	s->n = 0;
	s->cycles = 0;
	s->ops = 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double sorted_median(const double *v, uint64_t n, double q);

double
perf_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return sorted_median(v, n, 0.5);
}

/* Apply fn to a sorted copy of the samples; NAN without memory, 0 without samples. */
static double
with_sorted(const struct perf_samples *s, double (*fn)(const double *v,
						       uint64_t n, double q),
	    double q)
{
	double *tmp;
	double r;

	if (s->n == 0)
		return 0;
	tmp = malloc(sizeof(*tmp) * s->n);
	if (tmp == NULL)
		return NAN;
	memcpy(tmp, s->v, sizeof(*tmp) * s->n);
	qsort(tmp, s->n, sizeof(*tmp), cmp_double);
	r = fn(tmp, s->n, q);
	free(tmp);
	return r;
}

static double
sorted_quantile(const double *v, uint64_t n, double q)
{
	return v[(uint64_t)(q * (double)(n - 1) + 0.5)];
}

static double
sorted_median(const double *v, uint64_t n, double q __rte_unused)
{
	return (n & 1) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
perf_samples_quantile(const struct perf_samples *s, double q)
{
	return with_sorted(s, sorted_quantile, q);
}

double
perf_samples_median(const struct perf_samples *s)
{
	return with_sorted(s, sorted_median, 0.5);
}

void
perf_permutation(uint32_t *p, uint32_t n, uint64_t *rng)
{
	uint32_t i, j, t;

	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n; i > 1; i--) {
		j = (uint32_t)(tw_rand(rng) % i);
		t = p[i - 1];
		p[i - 1] = p[j];
		p[j] = t;
	}
}

void
perf_shuffle(uint32_t *order, uint64_t *rel, uint32_t n, uint64_t base,
	     uint64_t span, uint64_t *rng)
{
	uint32_t k;

	perf_permutation(order, n, rng);
	for (k = 0; k < n; k++)
		rel[k] = base + tw_rand(rng) % span;
}

/* Results ------------------------------------------------------------------ */

#define PERF_RESULTS_MAX 1024

struct perf_result {
	char key[160];
	double value;
};

static struct perf_result results[PERF_RESULTS_MAX];
static unsigned int nb_results;

static void
make_key(char *key, size_t len, const char *section, const char *library,
	 const char *workload, uint64_t n, const char *metric)
{
	snprintf(key, len, "%s/%s/%s/%" PRIu64 "/%s", section, library,
		 workload, n, metric);
}

void
perf_results_clear(void)
{
	nb_results = 0;
}

/* The index of a result's key, or nb_results when it is not kept. */
static unsigned int
find_result(const char *key)
{
	unsigned int i;

	for (i = 0; i < nb_results; i++)
		if (strcmp(results[i].key, key) == 0)
			break;
	return i;
}

void
perf_record(struct perf_env *pe, const char *section, const char *library,
	    const char *workload, uint64_t n, const char *metric,
	    double value, const char *unit)
{
	char key[sizeof(results[0].key)];
	unsigned int i;

	make_key(key, sizeof(key), section, library, workload, n, metric);
	i = find_result(key);
	if (i == nb_results) {
		if (nb_results == PERF_RESULTS_MAX) {
			printf("perf: results table full, %s not kept\n", key);
			return;
		}
		nb_results++;
		strlcpy(results[i].key, key, sizeof(results[i].key));
	}
	results[i].value = value;
	if (pe->csv != NULL) {
		fprintf(pe->csv, "%s,%s,%s,%s,%s,%" PRIu64 ",%s,%.3f,%s\n",
			pe->test_name, pe->memory, section, library, workload,
			n, metric, value, unit);
		fflush(pe->csv);
	}
}

double
perf_lookup(const char *section, const char *library, const char *workload,
	    uint64_t n, const char *metric)
{
	char key[sizeof(results[0].key)];
	unsigned int i;

	make_key(key, sizeof(key), section, library, workload, n, metric);
	i = find_result(key);
	return i < nb_results ? results[i].value : NAN;
}

void
perf_print_placement(void)
{
	unsigned int lcore = rte_lcore_id();
	rte_cpuset_t set = rte_lcore_cpuset(lcore);
	unsigned int cpu, count = 0;

	printf("main lcore %u on CPU(s)", lcore);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set)) {
			printf(" %u", cpu);
			count++;
		}
	printf("; %u lcore(s)%s\n", rte_lcore_count(),
	       count == 1 ? "" : " - WARNING: not pinned to one CPU, figures will be noisier");
}

uint64_t
perf_flow_deadline(void *payload, void *arg __rte_unused)
{
	return ((const struct perf_flow *)payload)->expires;
}

uint64_t
perf_ctx_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}
