/* SPDX-License-Identifier: ISC */
/*
 * C_Sign through any PKCS#11 module, as PKCS#11 callers sign: N processes (one session, hence
 * one connection, each), each loading the module, initialising it, finding a private EC key
 * and signing 32-byte digests with CKM_ECDSA (C_SignInit + C_Sign) for S seconds. Prints one
 * JSON object: signatures per second over all processes and the latency percentiles of single
 * signatures (microseconds, every process's samples together).
 *
 *   bench-pkcs11 --module PATH [--processes N] [--seconds S] [--pin PIN] [--token LABEL]
 *
 * The processes start together, once all are set up (a pipe the parent closes), and count only
 * within their window.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <p11-kit/pkcs11.h>

#include "bench-clock.h"
#include "proc-cpu.h"

#define MAX_PROCESSES 256
#define MAX_SAMPLES 200000	/* per process */

struct options {
	const char *module;
	const char *pin;
	const char *token;
	int processes;
	double seconds;
};

/* What a process reports through its pipe: its count, then that many latencies (ns, u32). */
struct report {
	uint64_t signatures;
	uint64_t samples;
};

static int fail(const char *what, CK_RV rv)
{
	fprintf(stderr, "bench-pkcs11: %s: 0x%lx\n", what, rv);
	return 1;
}

static int load(const char *path, CK_FUNCTION_LIST_PTR *p11)
{
	CK_RV (*get_list)(CK_FUNCTION_LIST_PTR_PTR);
	void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL), *sym;

	if (module == NULL || (sym = dlsym(module, "C_GetFunctionList")) == NULL) {
		fprintf(stderr, "bench-pkcs11: %s: %s\n", path, dlerror());
		return 1;
	}
	memcpy(&get_list, &sym, sizeof(sym));
	return get_list(p11) == CKR_OK ? 0 : 1;
}

/* The first slot whose token is present (and labelled `token` if given). */
static int find_slot_once(CK_FUNCTION_LIST_PTR p11, const char *token, CK_SLOT_ID *slot)
{
	CK_SLOT_ID slots[64];
	CK_ULONG n = 64, i;
	CK_TOKEN_INFO info;
	char label[33];
	size_t len;

	if (p11->C_GetSlotList(CK_TRUE, slots, &n) != CKR_OK)
		return 1;
	for (i = 0; i < n; i++) {
		if (p11->C_GetTokenInfo(slots[i], &info) != CKR_OK)
			continue;
		memcpy(label, info.label, 32);
		for (len = 32; len > 0 && label[len - 1] == ' '; len--)
			;
		label[len] = '\0';
		if (token == NULL || strcmp(label, token) == 0) {
			*slot = slots[i];
			return 0;
		}
	}
	return 1;
}

/*
 * C_Initialize and the slot. p11-kit's client connects in C_Initialize, and its server does not
 * take all of many connections made at once: a module without the token is initialised again,
 * for up to 10 s.
 */
static CK_RV initialize(CK_FUNCTION_LIST_PTR p11, const char *token, CK_SLOT_ID *slot)
{
	CK_C_INITIALIZE_ARGS args = { .flags = CKF_OS_LOCKING_OK };
	CK_RV rv = CKR_TOKEN_NOT_PRESENT;
	int i;

	for (i = 0; i < 200; i++) {
		if ((rv = p11->C_Initialize(&args)) != CKR_OK)
			return rv;
		if (find_slot_once(p11, token, slot) == 0)
			return CKR_OK;
		(void)p11->C_Finalize(NULL);
		usleep(50000);
		rv = CKR_TOKEN_NOT_PRESENT;
	}
	return rv;
}

static int find_key(CK_FUNCTION_LIST_PTR p11, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE *key)
{
	CK_OBJECT_CLASS cls = CKO_PRIVATE_KEY;
	CK_KEY_TYPE type = CKK_EC;
	CK_BBOOL yes = CK_TRUE;
	CK_ATTRIBUTE tmpl[] = {
		{ CKA_CLASS, &cls, sizeof(cls) },
		{ CKA_KEY_TYPE, &type, sizeof(type) },
		{ CKA_SIGN, &yes, sizeof(yes) },
	};
	CK_ULONG n = 0;

	if (p11->C_FindObjectsInit(s, tmpl, 3) != CKR_OK ||
	    p11->C_FindObjects(s, key, 1, &n) != CKR_OK || p11->C_FindObjectsFinal(s) != CKR_OK)
		return 1;
	return n == 1 ? 0 : 1;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, p, len)) <= 0)
			return 1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* SoftHSM2 behind p11-kit's server fails some of many logins made at once (its token files are
 * locked by each): tried again, up to a second. */
static CK_RV login(CK_FUNCTION_LIST_PTR p11, CK_SESSION_HANDLE s, const char *pin)
{
	CK_RV rv = CKR_GENERAL_ERROR;
	int i;

	for (i = 0; i < 100; i++) {
		rv = p11->C_Login(s, CKU_USER, (CK_UTF8CHAR_PTR)pin, strlen(pin));
		if (rv == CKR_OK || rv == CKR_USER_ALREADY_LOGGED_IN)
			return CKR_OK;
		usleep(10000);
	}
	return rv;
}

/* One process: set up, wait for the start, sign until the window ends, report. */
static int child(const struct options *o, int start_fd, int out_fd, unsigned index)
{
	static uint32_t lat[MAX_SAMPLES];
	CK_MECHANISM mech = { CKM_ECDSA, NULL, 0 };
	CK_FUNCTION_LIST_PTR p11;
	CK_SESSION_HANDLE s;
	CK_OBJECT_HANDLE key;
	CK_SLOT_ID slot;
	CK_BYTE digest[32], sig[128];
	CK_ULONG len;
	struct report r = { 0, 0 };
	uint64_t end, t0, t1;
	char go;
	CK_RV rv;

	if (load(o->module, &p11) != 0)
		return 1;
	if ((rv = initialize(p11, o->token, &slot)) != CKR_OK)
		return fail("C_Initialize and the token", rv);
	if ((rv = p11->C_OpenSession(slot, CKF_SERIAL_SESSION, NULL, NULL, &s)) != CKR_OK)
		return fail("C_OpenSession", rv);
	if (o->pin != NULL && (rv = login(p11, s, o->pin)) != CKR_OK)
		return fail("C_Login", rv);
	if (find_key(p11, s, &key) != 0)
		return fail("no private EC key", 0);
	memset(digest, (int)index, sizeof(digest));
	go = 'r';
	if (write_all(out_fd, &go, 1) != 0 || read(start_fd, &go, 1) < 0)
		return 1;	/* EOF (0) is the start signal */
	end = mono_ns() + (uint64_t)(o->seconds * 1e9);
	for (;;) {
		t0 = mono_ns();
		if (t0 >= end)
			break;
		digest[0] = (CK_BYTE)r.signatures;
		digest[1] = (CK_BYTE)(r.signatures >> 8);
		len = sizeof(sig);
		if ((rv = p11->C_SignInit(s, &mech, key)) != CKR_OK)
			return fail("C_SignInit", rv);
		if ((rv = p11->C_Sign(s, digest, sizeof(digest), sig, &len)) != CKR_OK)
			return fail("C_Sign", rv);
		t1 = mono_ns();
		if (r.samples < MAX_SAMPLES)
			lat[r.samples++] = (uint32_t)(t1 - t0 > UINT32_MAX ? UINT32_MAX : t1 - t0);
		r.signatures++;
	}
	(void)p11->C_CloseSession(s);
	(void)p11->C_Finalize(NULL);
	if (write_all(out_fd, &r, sizeof(r)) != 0 ||
	    write_all(out_fd, lat, r.samples * sizeof(lat[0])) != 0)
		return 1;
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	ssize_t n;

	while (len > 0) {
		if ((n = read(fd, p, len)) <= 0)
			return 1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static double percentile(const uint32_t *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	return n == 0 ? 0 : (double)v[i] / 1e3;
}

/*
 * The CPU time of the signing window: the callers (this process's children) and the whole
 * machine (/proc/stat: every CPU's time not idle), read as the window opens and as it closes, so
 * that no setup (C_Initialize, C_Login) is counted. On an otherwise quiet machine the machine's
 * less the callers' is the server side's: the daemon's processes, or p11-kit's server and the
 * processes it starts per connection with SoftHSM2 inside them (not all of them its children).
 */
struct window_cpu {
	double callers, machine;
};

static double machine_busy_s(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n = f != NULL ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
	    &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) : 0;

	if (f != NULL)
		fclose(f);
	if (n != 8)
		return 0;
	/* user nice system idle iowait irq softirq steal: all but idle, iowait and steal (the
	 * hypervisor's time for other guests, which no process here used) */
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / (double)sysconf(_SC_CLK_TCK);
}

static void window_cpu(struct window_cpu *c)
{
	c->callers = descendants_cpu_s(getpid());
	c->machine = machine_busy_s();
}

/* Sleeps the window's length (the processes measure it from the start signal themselves). */
static void wait_window(double seconds)
{
	struct timespec ts = { .tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench-pkcs11 --module PATH [--processes N] [--seconds S] "
		"[--pin PIN] [--token LABEL]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "module", required_argument, NULL, 'm' },
		{ "processes", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ "pin", required_argument, NULL, 'p' },
		{ "token", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .processes = 1, .seconds = 3 };
	int start[2], out[MAX_PROCESSES][2], c, i, status, failed = 0;
	pid_t pids[MAX_PROCESSES];
	uint32_t *all = NULL;
	uint64_t total = 0, nsamples = 0;
	struct window_cpu cpu0, cpu1;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': o.module = optarg; break;
		case 'n': o.processes = atoi(optarg); break;
		case 's': o.seconds = atof(optarg); break;
		case 'p': o.pin = optarg; break;
		case 't': o.token = optarg; break;
		default: return usage();
		}
	}
	if (o.module == NULL || o.processes < 1 || o.processes > MAX_PROCESSES || o.seconds <= 0)
		return usage();
	signal(SIGPIPE, SIG_IGN);
	if (pipe(start) != 0)
		return 1;
	for (i = 0; i < o.processes; i++) {
		if (pipe(out[i]) != 0 || (pids[i] = fork()) < 0)
			return 1;
		if (pids[i] == 0) {
			close(start[1]);
			close(out[i][0]);
			_exit(child(&o, start[0], out[i][1], (unsigned)i));
		}
		close(out[i][1]);
	}
	/* Every process sets up (load, initialise, find the key) and says so; then all start. */
	for (i = 0; i < o.processes; i++) {
		char ready;

		if (read_all(out[i][0], &ready, 1) != 0)
			failed = 1;
	}
	window_cpu(&cpu0);
	close(start[1]);
	wait_window(o.seconds);
	window_cpu(&cpu1);
	if ((all = malloc((size_t)o.processes * MAX_SAMPLES * sizeof(*all))) == NULL)
		return 1;
	for (i = 0; i < o.processes; i++) {
		struct report r;

		if (read_all(out[i][0], &r, sizeof(r)) != 0 || r.samples > MAX_SAMPLES ||
		    read_all(out[i][0], all + nsamples, r.samples * sizeof(*all)) != 0) {
			failed = 1;
		} else {
			total += r.signatures;
			nsamples += r.samples;
		}
		close(out[i][0]);
	}
	for (i = 0; i < o.processes; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			failed = 1;
	if (failed) {
		fprintf(stderr, "bench-pkcs11: a process failed\n");
		free(all);
		return 1;
	}
	qsort(all, nsamples, sizeof(*all), cmp_u32);
	printf("{\"module\": \"%s\", \"processes\": %d, \"seconds\": %.1f, \"signatures\": %llu, "
		"\"signatures_per_s\": %.0f, \"latency_us\": {\"p50\": %.1f, \"p90\": %.1f, "
		"\"p99\": %.1f}, \"cpu_us_per_signature\": {\"callers\": %.2f, \"machine\": %.2f}}\n",
		o.module, o.processes, o.seconds, (unsigned long long)total,
		(double)total / o.seconds, percentile(all, nsamples, 0.5),
		percentile(all, nsamples, 0.9), percentile(all, nsamples, 0.99),
		total ? (cpu1.callers - cpu0.callers) / (double)total * 1e6 : 0,
		total ? (cpu1.machine - cpu0.machine) / (double)total * 1e6 : 0);
	free(all);
	return 0;
}
