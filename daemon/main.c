/* SPDX-License-Identifier: ISC */
/*
 * p256signd: arguments and the start-up order (docs/daemon.md). Config, keys, socket, user,
 * workers; then the parent forgets the private keys, and once every worker has passed its
 * self-test it accepts connections and tells systemd it is ready.
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "busypoll.h"
#include "config.h"
#include "keys.h"
#include "listen.h"
#include "log.h"
#include "notify.h"
#include "pool.h"
#include "privdrop.h"
#include "request.h"
#include "server.h"

#define CONFIG_DEFAULT "/etc/p256sign/p256signd.json"
#define STATUS_EVERY_MS 1000

struct daemon {
	struct config cfg;
	struct keytab kt;
	struct listener_socket ls;
	struct pool pool;
	struct server srv;
	struct event_base *base;
	struct event *sig_term, *sig_int, *sig_chld, *watchdog_ev, *status_ev;
	uint64_t watchdog_usec;
	char status[128];		/* the last STATUS= sent */
	int failed;
};

static void usage(FILE *f)
{
	fprintf(f,
	    "usage: p256signd [--config FILE]\n"
	    "       p256signd --check-config FILE\n"
	    "       p256signd --version | --help\n"
	    "\n"
	    "Holds P-256 keys and signs over a Unix socket (default config: %s).\n"
	    "  --config FILE        run with this configuration\n"
	    "  --check-config FILE  check the configuration and every key, print each key's\n"
	    "                       name and id, and exit\n",
	    CONFIG_DEFAULT);
}

/* "served N requests, W/W workers alive" for STATUS= */
static void status_text(const struct daemon *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s%llu requests served, %u/%u workers alive",
	    d->srv.stopping ? "stopping; " : "", (unsigned long long)d->srv.stats.requests,
	    d->pool.alive, d->pool.n);
}

static void stop_cb(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	notify_stopping();
	server_stop(&d->srv);
}

static void chld_cb(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	pool_reap(&d->pool);
}

static void watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;

	if (pool_watchdog(&d->pool))
		notify_watchdog();
}

/* STATUS= when the text changed since the last one: a quiet daemon sends nothing. */
static void status_cb(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	char buf[sizeof(d->status)];

	status_text(d, buf, sizeof(buf));
	if (strcmp(buf, d->status) == 0)
		return;
	memcpy(d->status, buf, sizeof(buf));
	notify_status(buf);
}

static void selftest_cb(void *arg, int ok)
{
	struct daemon *d = arg;
	struct timeval tv = { .tv_sec = STATUS_EVERY_MS / 1000 };

	if (!ok || server_accept(&d->srv) != 0) {
		log_error("start-up self-test failed; stopping");
		d->failed = 1;
		event_base_loopbreak(d->base);
		return;
	}
	log_info("ready: %u workers passed the self-test, %zu key(s)", d->pool.n, d->kt.n);
	status_text(d, d->status, sizeof(d->status));
	notify_ready(d->status);
	if (notify_enabled() && event_add(d->status_ev, &tv) != 0)
		log_error("cannot start status updates");
	if (d->watchdog_usec > 0) {
		/* Keep-alives at half the period, as sd_watchdog_enabled(3) advises. */
		tv.tv_sec = (time_t)(d->watchdog_usec / 2 / 1000000);
		tv.tv_usec = (suseconds_t)(d->watchdog_usec / 2 % 1000000);
		if (event_add(d->watchdog_ev, &tv) != 0)
			log_error("cannot start the watchdog");
		watchdog_cb(-1, 0, d);
	}
}

static void changed_cb(void *arg)
{
	status_cb(-1, 0, arg);
}

static const struct pool_callbacks pool_cbs = {
	.signed_cb = request_signed,
	.selftest_cb = selftest_cb,
	.changed_cb = changed_cb,
};

/* Enough descriptors for max_connections and the workers, within the hard limit. */
static void raise_fd_limit(unsigned want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < want)
		log_error("only %llu descriptors allowed for %u wanted; accepting will pause at the limit",
		    (unsigned long long)rl.rlim_cur, want);
}

static int check_config(const char *path)
{
	struct config cfg;
	struct keytab kt = { 0 };
	char err[512];
	int r = 1;

	if (config_load(path, &cfg, err, sizeof(err)) != 0 ||
	    keys_load(&cfg, &kt, err, sizeof(err)) != 0) {
		fprintf(stderr, "p256signd: %s\n", err);
		goto out;
	}
	for (size_t i = 0; i < kt.n; i++)
		printf("%s %s\n", kt.pub[i].name, kt.pub[i].id_hex);
	printf("%s: ok\n", path);
	r = 0;
out:
	keys_free(&kt);
	config_free(&cfg);
	return r;
}

/*
 * Opens /dev/null on whichever of descriptors 0, 1 and 2 the daemon was started without: else the
 * next socket takes the number, and the log written to "stderr" goes to a client, a worker keeps
 * the listening socket as its stderr. 0 or -1.
 */
static int open_stdio(void)
{
	int r = -1;

	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		if (errno != EBADF)
			goto out;
		/* open returns the lowest free number: fd, as the ones below it are open. */
		if ((n = open("/dev/null", O_RDWR)) != fd) {
			if (n >= 0)
				close(n);
			goto out;
		}
	}
	r = 0;
out:
	return r;
}

/* Everything before the event loop; the parent holds public keys only afterwards. */
static int start(struct daemon *d, const char *path)
{
	char err[512];

	if (config_load(path, &d->cfg, err, sizeof(err)) != 0 ||
	    keys_load(&d->cfg, &d->kt, err, sizeof(err)) != 0) {
		log_error("%s", err);
		return -1;
	}
	raise_fd_limit(d->cfg.limits.max_connections + d->cfg.workers + 64);
	if (listen_open(&d->cfg, &d->ls) != 0 || privdrop(d->cfg.user) != 0 ||
	    pool_spawn(&d->pool, d->cfg.workers, d->cfg.limits.max_inflight, d->cfg.busy_poll_us,
	    &d->kt) != 0)
		return -1;
	keys_forget_private(&d->kt);
	d->watchdog_usec = notify_watchdog_usec();
	if ((d->base = event_base_new()) == NULL ||
	    (d->sig_term = evsignal_new(d->base, SIGTERM, stop_cb, d)) == NULL ||
	    (d->sig_int = evsignal_new(d->base, SIGINT, stop_cb, d)) == NULL ||
	    (d->sig_chld = evsignal_new(d->base, SIGCHLD, chld_cb, d)) == NULL ||
	    (d->watchdog_ev = event_new(d->base, -1, EV_PERSIST, watchdog_cb, d)) == NULL ||
	    (d->status_ev = event_new(d->base, -1, EV_PERSIST, status_cb, d)) == NULL ||
	    event_add(d->sig_term, NULL) != 0 || event_add(d->sig_int, NULL) != 0 ||
	    event_add(d->sig_chld, NULL) != 0) {
		log_error("cannot set up the event loop");
		return -1;
	}
	if (pool_attach(&d->pool, d->base, &pool_cbs, d) != 0)
		return -1;
	if (server_init(&d->srv, d->base, &d->cfg, &d->kt, &d->pool, d->ls.fd) != 0) {
		d->ls.fd = -1;
		return -1;
	}
	d->ls.fd = -1;	/* the server owns it now */
	pool_selftest(&d->pool);
	return 0;
}

static void finish(struct daemon *d)
{
	struct event *evs[] = { d->sig_term, d->sig_int, d->sig_chld, d->watchdog_ev, d->status_ev };

	if (d->base != NULL) {
		pool_cancel(&d->pool, PROTO_E_SHUTTING_DOWN);
		server_free(&d->srv);
	}
	pool_close(&d->pool);
	listen_cleanup(&d->cfg, &d->ls);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		if (evs[i] != NULL)
			event_free(evs[i]);
	if (d->base != NULL)
		event_base_free(d->base);
	keys_free(&d->kt);
	config_free(&d->cfg);
}

static int run(const char *path)
{
	static struct daemon d;

	d.ls.fd = -1;
	if (start(&d, path) != 0)
		d.failed = 1;
	else if (busypoll_loop(d.base, d.cfg.busy_poll_us, &d.srv.activity) != 0) {
		log_error("event loop failed");
		d.failed = 1;
	}
	if (!d.failed)
		log_info("stopped after %llu requests",
		    (unsigned long long)d.srv.stats.requests);
	finish(&d);
	return d.failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", required_argument, NULL, 'C' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = CONFIG_DEFAULT;
	int ch;

	if (open_stdio() != 0) {
		log_error("cannot open /dev/null on descriptors 0-2: %s", strerror(errno));
		return 1;
	}
	/* No core dumps, and no ptrace by the same user, of a process that reads keys. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		log_error("prctl: %s", strerror(errno));
		return 1;
	}
	while ((ch = getopt_long(argc, argv, "c:C:Vh", opts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			path = optarg;
			break;
		case 'C':
			return check_config(optarg);
		case 'V':
			printf("p256signd %s\n", P256SIGN_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);	/* no reload: keys and limits are read once, at start-up */
	return run(path);
}
