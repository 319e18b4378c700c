/* SPDX-License-Identifier: ISC */
/*
 * The parent role (parent.h): the start-up order, the key-holder's channel, and the event loop's
 * signals and timers (docs/daemon.md).
 */
#include "parent.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "busypoll.h"
#include "chan.h"
#include "clock.h"
#include "config.h"
#include "ipc.h"
#include "keyholder.h"
#include "keytab.h"
#include "listen.h"
#include "log.h"
#include "notify.h"
#include "signers.h"
#include "proc.h"
#include "reply.h"
#include "request.h"
#include "selftest.h"
#include "server.h"

#define STATUS_EVERY_MS 1000
/* How long the parent waits at exit for the key-holder, which waits for its signers. */
#define KEYHOLDER_EXIT_WAIT_MS 3000

struct parent {
	struct config cfg;
	struct keytab kt;		/* public keys of the generation in use */
	struct key_usage *usage;	/* and their rate limits and counts (CONFIG_KEYS_MAX) */
	struct keytab next;		/* a generation being started (reload), while it starts */
	uint32_t next_gen;
	struct keytab prev;		/* the one before, while its signers may still answer */
	uint32_t prev_gen;
	struct listener_socket ls;
	struct signers signers;
	struct server *srv;
	struct replies *replies;	/* the audit gate */
	struct requests *requests;
	struct audit audit;
	struct event_base *base;
	struct chan kh;			/* the key-holder's channel */
	struct ipc_peer kh_peer;	/* its messages: their handlers and order */
	pid_t kh_pid;
	struct event *sig_term, *sig_int, *sig_hup, *sig_chld, *watchdog_ev, *status_ev;
	uint64_t watchdog_usec;
	int notify;			/* $NOTIFY_SOCKET set: read once, not in every loop pass */
	char status[160];		/* the last STATUS= sent */
	int ready;			/* the first generation passed its self-tests */
	int reloading;
	int failed;
};

static void fail(struct parent *d, const char *why)
{
	log_error("stopping: %s", why);
	d->failed = 1;
	event_base_loopbreak(d->base);
}

static void status_text(const struct parent *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%llu requests served, %u/%u signers alive, %llu replaced, "
	    "%llu resent", d->srv == NULL || server_stopping(d->srv) ? "stopping; " : "",
	    d->audit.failing ? "audit failing; " : "",
	    (unsigned long long)replies_requests(d->replies), d->signers.alive, d->signers.want,
	    (unsigned long long)d->signers.stats.replaced,
	    (unsigned long long)d->signers.stats.resent);
}

/* STATUS= when the text changed since the last one: a quiet daemon sends nothing, and its timer
 * is armed again only by work (worked); a signer's change is sent at once (changed_cb). */
static void status_cb(evutil_socket_t fd, short what, void *arg)
{
	struct parent *d = arg;
	char buf[sizeof(d->status)];

	status_text(d, buf, sizeof(buf));
	if (strcmp(buf, d->status) == 0)
		return;
	memcpy(d->status, buf, sizeof(buf));
	notify_status(buf);
}

static void watchdog_cb(evutil_socket_t fd, short what, void *arg)
{
	struct parent *d = arg;

	/* Keep-alives only while a signer answers: a daemon that cannot sign is not healthy. */
	if (signers_healthy(&d->signers))
		notify_watchdog();
}

static void stop_cb(evutil_socket_t sig, short what, void *arg)
{
	struct parent *d = arg;

	notify_stopping();
	server_stop(d->srv);
}

/* Sends the key-holder one message; 0 or -1 (then the daemon stops: healing needs it). */
static int to_keyholder(struct parent *d, uint16_t type, const void *body, size_t len)
{
	uint8_t buf[IPC_MSG_MAX];
	size_t fill = 0;

	if (ipc_put(buf, sizeof(buf), &fill, type, 0, body, len) != 0 ||
	    evbuffer_add(d->kh.out, buf, fill) != 0 || chan_flush(&d->kh) < 0) {
		fail(d, "cannot write to the key-holder");
		return -1;
	}
	return 0;
}

/* SIGHUP: the audit file is opened again (log rotation), and the key set read again. */
static void hup_cb(evutil_socket_t sig, short what, void *arg)
{
	struct parent *d = arg;

	if (d->ready)
		audit_reopen(&d->audit);
	if (!d->ready || d->reloading || server_stopping(d->srv)) {
		log_info("reload: %s; ignored", d->reloading ? "one is under way" : "not serving");
		return;
	}
	log_info("reload: reading the key set again");
	d->reloading = 1;
	notify_reloading();
	to_keyholder(d, IPC_RELOAD, NULL, 0);
}

static void chld_cb(evutil_socket_t sig, short what, void *arg)
{
	struct parent *d = arg;
	int status;

	if (d->kh_pid > 0 && waitpid(d->kh_pid, &status, WNOHANG) == d->kh_pid) {
		d->kh_pid = -1;
		fail(d, "the key-holder exited");
	}
}

/* ---- the audit's callbacks ------------------------------------------------------------- */

static void keyholder_read_cb(evutil_socket_t sock, short what, void *arg);

static int audit_seal_cb(void *arg, const struct ipc_audit_seal *m)
{
	struct parent *d = arg;

	if (d->failed || d->kh.fd < 0)
		return -1;
	return to_keyholder(d, IPC_AUDIT_SEAL, m, sizeof(*m));
}

static int audit_wait_cb(void *arg, unsigned ms)
{
	struct parent *d = arg;
	struct pollfd p = { .fd = d->kh.fd, .events = POLLIN };

	if (d->failed || d->kh.fd < 0 || poll(&p, 1, (int)ms) < 0)
		return -1;
	if (p.revents != 0)
		keyholder_read_cb(d->kh.fd, EV_READ, d);
	return d->failed ? -1 : 0;
}

static void audit_written_cb(void *arg, uint64_t ok_through, uint64_t tried_through)
{
	struct parent *d = arg;

	replies_audit_written(d->replies, ok_through, tried_through);
}

/* The audit log's first record, once the audit key's public half is known. */
static int start_audit(struct parent *d)
{
	const struct audit_callbacks cbs = { .seal = audit_seal_cb, .wait = audit_wait_cb,
		.written = audit_written_cb, .arg = d };
	struct proto_key sel = { .kind = PROTO_KEY_NAME };
	struct audit_key key;
	int k = -1;

	if (d->cfg.audit.key != NULL && proto_key_name(&sel, d->cfg.audit.key) == 0)
		k = keytab_find(&d->kt, &sel);
	if (d->cfg.audit.key != NULL && k < 0) {
		log_error("audit: the key-holder sent no audit key %s", d->cfg.audit.key);
		return -1;
	}
	if (k >= 0) {	/* the audit takes a key's name, id and point, nothing else of it */
		memcpy(key.name, d->kt.pub[k].name, sizeof(key.name));
		memcpy(key.id, d->kt.pub[k].id, sizeof(key.id));
		memcpy(key.point, d->kt.pub[k].point, sizeof(key.point));
	}
	return audit_start(&d->audit, d->base, k >= 0 ? &key : NULL, &cbs);
}

/* ---- the signers' callbacks -------------------------------------------------------------- */

static void ready_cb(void *arg, uint32_t gen)
{
	struct parent *d = arg;
	struct timeval tv = { .tv_sec = STATUS_EVERY_MS / 1000 };
	keytab_free(&d->prev);
	d->prev = d->kt;
	d->prev_gen = d->signers.generation;
	d->kt = d->next;
	memset(&d->next, 0, sizeof(d->next));
	key_usage_reset(d->usage, &d->kt);
	signers_switch(&d->signers, gen);
	if (d->ready) {
		d->reloading = 0;
		log_info("reloaded: key set %u, %zu key(s), in use", gen, d->kt.n);
		status_text(d, d->status, sizeof(d->status));
		notify_ready(d->status);
		return;
	}
	if (start_audit(d) != 0) {
		fail(d, "cannot start the audit log");
		return;
	}
	if (server_accept(d->srv) != 0) {
		fail(d, "cannot accept connections");
		return;
	}
	d->ready = 1;
	log_info("ready: %u signers passed the self-test, %zu key(s)", d->signers.want, d->kt.n);
	status_text(d, d->status, sizeof(d->status));
	notify_ready(d->status);
	if (d->notify && event_add(d->status_ev, &tv) != 0)
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
	struct parent *d = arg;

	if (d->ready)
		status_cb(-1, 0, d);	/* before READY=1, the first STATUS= goes with it */
}

static void restart_cb(void *arg, uint32_t id)
{
	struct parent *d = arg;
	struct ipc_signer m = { .signer = id };

	to_keyholder(d, IPC_SIGNER_RESTART, &m, sizeof(m));
}

static void fatal_cb(void *arg, const char *why)
{
	fail(arg, why);
}

/* A request of the previous key set, sent again after its signer died while draining, goes to
 * the same key (by id) in the one in use. */
static int remap_cb(void *arg, uint32_t from, uint32_t key, uint32_t to)
{
	struct parent *d = arg;
	struct proto_key sel = { .kind = PROTO_KEY_ID };

	if (from != d->prev_gen || to != d->signers.generation || key >= d->prev.n)
		return -1;
	memcpy(sel.id, d->prev.pub[key].id, sizeof(sel.id));
	return keytab_find(&d->kt, &sel);
}

static const struct signers_callbacks signers_cbs = {
	.signed_cb = request_signed,
	.ready_cb = ready_cb,
	.changed_cb = changed_cb,
	.restart_cb = restart_cb,
	.fatal_cb = fatal_cb,
	.remap_cb = remap_cb,
};

/* ---- the key-holder's messages ---------------------------------------------------------- */

/* The generations and the order of a key set's messages are the table's flags
 * (ipc-messages.h): ipc_dispatch has checked them before these run. */

static int on_key_public(void *ctx, struct ipc_msg *msg)
{
	struct parent *d = ctx;
	struct ipc_key_public m;
	struct config_key ck;
	char name[PROTO_NAME_MAX + 1];

	memcpy(&m, msg->body, sizeof(m));
	/* The first key of a new key set: 1 at start, the one after the last on reload. */
	if (d->next.pub == NULL) {
		if (keytab_alloc(&d->next, CONFIG_KEYS_MAX) != 0)
			return IPC_ERR_CONTENT;
		d->next.n = 0;
		d->next_gen = m.generation;
	}
	if (m.generation != d->next_gen || m.index != d->next.n || m.index >= CONFIG_KEYS_MAX ||
	    m.name_len == 0 || m.name_len > PROTO_NAME_MAX || p256_point_check(m.point) != 0 ||
	    m.allow.nusers > POLICY_IDS_MAX || m.allow.ngroups > POLICY_IDS_MAX ||
	    m.purpose > POLICY_PURPOSE_AUDIT || m.max_signatures_per_second > CONFIG_RATE_MAX)
		return IPC_ERR_FIELD;
	memcpy(name, m.name, m.name_len);
	name[m.name_len] = '\0';
	ck = (struct config_key){ .name = name, .nonce = (enum p256_nonce)m.nonce,
		.verify_after_sign = m.verify_after_sign, .purpose = (enum policy_purpose)m.purpose,
		.allow = m.allow, .max_signatures_per_second = m.max_signatures_per_second };
	if (keytab_set_public(&d->next.pub[d->next.n], &ck, m.point) != 0)
		return IPC_ERR_CONTENT;
	d->next.pub[d->next.n].cert_not_after = m.cert_not_after;
	d->next.n++;
	return 0;
}

/* The certificate of the key just announced (its index the last IPC_KEY_PUBLIC's), once. */
static int on_key_cert(void *ctx, struct ipc_msg *msg)
{
	struct parent *d = ctx;
	struct ipc_key_cert m;
	size_t len = msg->h.len - sizeof(m);

	memcpy(&m, msg->body, sizeof(m));
	if (d->next.pub == NULL || m.generation != d->next_gen || d->next.n == 0 ||
	    m.index != d->next.n - 1 || len == 0 || d->next.pub[m.index].cert != NULL)
		return IPC_ERR_FIELD;
	if (key_public_set_cert(&d->next.pub[m.index], msg->body + sizeof(m), len) != 0)
		return IPC_ERR_CONTENT;
	return 0;
}

/* How many keys of the key set being started have a certificate. */
static uint32_t next_certs(const struct parent *d)
{
	uint32_t n = 0;

	for (size_t i = 0; i < d->next.n; i++)
		n += d->next.pub[i].cert != NULL;
	return n;
}

static int on_keys_ready(void *ctx, struct ipc_msg *msg)
{
	struct parent *d = ctx;
	struct ipc_keys_ready m;

	memcpy(&m, msg->body, sizeof(m));
	if (m.nkeys != d->next.n || m.nsigners != d->signers.want || m.ncerts != next_certs(d))
		return IPC_ERR_FIELD;
	signers_expect(&d->signers, m.generation);
	return 0;
}

static int on_signer_fd(void *ctx, struct ipc_msg *msg)
{
	struct parent *d = ctx;
	struct ipc_signer m;
	int r;

	memcpy(&m, msg->body, sizeof(m));
	/* A signer the set cannot take is killed and replaced: not a fault of the key-holder. */
	r = signers_add(&d->signers, m.generation, m.signer, (pid_t)m.pid, msg->fd);
	msg->fd = -1;	/* the set's now, or closed */
	if (r != 0)
		restart_cb(d, m.signer);
	return 0;
}

static int on_signer_exit(void *ctx, struct ipc_msg *msg)
{
	struct parent *d = ctx;
	struct ipc_signer_exit m;

	memcpy(&m, msg->body, sizeof(m));
	signers_exited(&d->signers, m.signer, m.status);
	return 0;
}

static int on_audit_sealed(void *ctx, struct ipc_msg *msg)
{
	struct parent *d = ctx;
	struct ipc_audit_sealed m;

	memcpy(&m, msg->body, sizeof(m));
	audit_sealed(&d->audit, &m);
	return 0;
}

static int on_reload_failed(void *ctx, struct ipc_msg *msg)
{
	struct parent *d = ctx;

	log_error("reload refused, the keys in use stay: %.*s", (int)msg->h.len,
	    (const char *)msg->body);
	keytab_free(&d->next);
	d->next_gen = 0;
	d->reloading = 0;
	notify_ready(d->status);
	return 0;
}

/* The parent's handlers of the key-holder's messages. */
static const ipc_handler keyholder_handlers[IPC_TYPE_MAX] = {
	[IPC_KEY_PUBLIC] = on_key_public,
	[IPC_KEYS_READY] = on_keys_ready,
	[IPC_SIGNER_FD] = on_signer_fd,
	[IPC_SIGNER_EXIT] = on_signer_exit,
	[IPC_RELOAD_FAILED] = on_reload_failed,
	[IPC_AUDIT_SEALED] = on_audit_sealed,
	[IPC_KEY_CERT] = on_key_cert,
};

/* The one descriptor passed with a record, or -1; more than one is a fault (all closed). */
static int passed_fd(struct msghdr *msg, int *fd)
{
	*fd = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c != NULL; c = CMSG_NXTHDR(msg, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd >= 0) {
				close(f);
				continue;
			}
			*fd = f;
		}
		if (n > 1 || (msg->msg_flags & MSG_CTRUNC))
			return -1;
	}
	return msg->msg_flags & (MSG_CTRUNC | MSG_TRUNC) ? -1 : 0;
}

/* Handles one record and the descriptor that came with it (closed unless a handler took it):
 * 0, or a negative enum ipc_err when the key-holder broke the protocol. A record holds whole
 * messages only. */
static int keyholder_record(struct parent *d, const uint8_t *buf, size_t n, int fd)
{
	size_t used;
	int r = ipc_dispatch(&d->kh_peer, buf, n, SIZE_MAX, &fd, &used);

	if (r == 0 && used != n)
		r = IPC_ERR_LENGTH;
	if (r == 0 && fd >= 0)
		r = IPC_ERR_FD;		/* no message took it */
	if (fd >= 0)
		close(fd);
	return r;
}

static void keyholder_read_cb(evutil_socket_t sock, short what, void *arg)
{
	struct parent *d = arg;
	uint8_t buf[IPC_MSG_MAX];
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.space,
		.msg_controllen = sizeof(ctl.space) };
	ssize_t n = recvmsg(d->kh.fd, &msg, MSG_CMSG_CLOEXEC);
	int fd = -1, bad, r;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		fail(d, n == 0 ? "the key-holder exited" : "the key-holder's channel failed");
		return;
	}
	bad = passed_fd(&msg, &fd) != 0;
	if (bad) {
		if (fd >= 0)
			close(fd);
		fail(d, "the key-holder sent a message the table refuses");
	} else if ((r = keyholder_record(d, buf, (size_t)n, fd)) != 0) {
		log_error("the key-holder %s", ipc_err_text(r));
		fail(d, "the key-holder broke the protocol");
	}
}

static void keyholder_write_cb(evutil_socket_t sock, short what, void *arg)
{
	struct parent *d = arg;

	if (chan_flush(&d->kh) < 0)
		fail(d, "cannot write to the key-holder");
}

/* ---- start-up and exit ------------------------------------------------------------------ */

/* Enough descriptors for max_connections and the signers, within the hard limit. */
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

/* Forks the key-holder, before any key is read: the parent never opens a key file. */
static int start_keyholder(struct parent *d, const struct proc_user *signer_user)
{
	int fd;

	if ((d->kh_pid = proc_fork(PROC_KEYHOLDER, SOCK_SEQPACKET, &fd)) < 0)
		return -1;
	if (d->kh_pid == 0) {
		/* The child has only its channel: the listening socket is not the key-holder's. */
		d->ls.fd = -1;
		keyholder_main(PROC_CHANNEL_FD, &d->cfg, signer_user);
	}
	ipc_peer_init(&d->kh_peer, PROC_KEYHOLDER, PROC_PARENT, keyholder_handlers, d);
	if (chan_open(&d->kh, d->base, fd, keyholder_read_cb, keyholder_write_cb, d) != 0) {
		close(fd);
		log_error("cannot watch the key-holder");
		return -1;
	}
	return 0;
}

/* What OpenSSL and jansson load on first use (configuration, algorithms, a hash seed read
 * from /dev/urandom) is loaded now, while the sandbox still allows opening files. Audit times are
 * written by arithmetic (audit-time.h), so no time zone file is read. */
static int warm_up(void)
{
	json_object_seed(0);
	return selftest_public() == 0 ? 0 : -1;
}

/* The directory of path (NULL: none) in buf, for the sandbox; NULL when there is none or it is
 * too long (then nothing is granted for it, and writing there fails: logged when it does). */
static const char *dir_of(const char *path, char buf[PATH_MAX])
{
	if (path == NULL || snprintf(buf, PATH_MAX, "%s", path) >= PATH_MAX)
		return NULL;
	return dirname(buf);
}

/* The layers that answer clients: the audit gate, requests, and the transport on the listening
 * socket (which it owns from now). 0 or -1 (logged). */
static int serve_clients(struct parent *d)
{
	struct server_callbacks cb = { .frame = request_handle, .frame_fault = request_frame_fault,
		.refused = request_refused, .before_write = request_before_write };
	int fd = d->ls.fd;

	d->ls.fd = -1;
	if ((d->usage = calloc(CONFIG_KEYS_MAX, sizeof(*d->usage))) == NULL ||
	    (d->replies = replies_new(&d->audit, &d->kt, d->usage)) == NULL) {
		close(fd);
		log_error("out of memory");
		return -1;
	}
	d->requests = requests_new(d->base, &(struct requests_deps){ .cfg = &d->cfg, .kt = &d->kt,
		.usage = d->usage, .signers = &d->signers, .audit = &d->audit,
		.replies = d->replies });
	if (d->requests == NULL) {
		close(fd);
		return -1;
	}
	cb.arg = d->requests;
	return (d->srv = server_new(d->base, &d->cfg, fd, &cb)) == NULL ? -1 : 0;
}

/* The event loop and its signals and timers (the timers are armed once the daemon is ready). */
static int setup_events(struct parent *d)
{
	if ((d->base = event_base_new()) == NULL ||
	    (d->sig_term = evsignal_new(d->base, SIGTERM, stop_cb, d)) == NULL ||
	    (d->sig_int = evsignal_new(d->base, SIGINT, stop_cb, d)) == NULL ||
	    (d->sig_hup = evsignal_new(d->base, SIGHUP, hup_cb, d)) == NULL ||
	    (d->sig_chld = evsignal_new(d->base, SIGCHLD, chld_cb, d)) == NULL ||
	    (d->watchdog_ev = event_new(d->base, -1, EV_PERSIST, watchdog_cb, d)) == NULL ||
	    (d->status_ev = evtimer_new(d->base, status_cb, d)) == NULL ||
	    event_add(d->sig_term, NULL) != 0 || event_add(d->sig_int, NULL) != 0 ||
	    event_add(d->sig_hup, NULL) != 0 || event_add(d->sig_chld, NULL) != 0) {
		log_error("cannot set up the event loop");
		return -1;
	}
	return 0;
}

/* The parent's own privileges dropped: to `user`, into its sandbox. The audit file is opened
 * again beneath its directory after a rotation; a socket the daemon made is removed at exit. */
static int drop_parent(struct parent *d, const struct proc_user *user)
{
	char audit_dir[PATH_MAX], socket_dir[PATH_MAX];
	struct proc_paths paths = { NULL, NULL, NULL };

	paths.audit_dir = dir_of(d->cfg.audit.file, audit_dir);
	paths.socket_dir = d->ls.activated ? NULL : dir_of(d->cfg.socket, socket_dir);
	if (proc_drop(PROC_PARENT, user, &paths) != 0)
		return -1;
	requests_start(d->requests, d->srv, geteuid());	/* may use keys with no "allow" */
	if (user->set)
		log_info("running as user %s (uid %u, gid %u)", user->name, (unsigned)user->uid,
		    (unsigned)user->gid);
	return 0;
}

static int start(struct parent *d, const char *path)
{
	char err[512];
	struct proc_user user, signer_user;

	if (config_load(path, &d->cfg, err, sizeof(err)) != 0) {
		log_error("%s", err);
		return -1;
	}
	/* The audit file is opened, and its chain read back, while the parent may still read. */
	if (audit_init(&d->audit, &d->cfg.audit, err, sizeof(err)) != 0) {
		log_error("%s", err);
		return -1;
	}
	if (proc_user_lookup(d->cfg.user, &user) != 0 ||
	    proc_user_lookup(d->cfg.signer_user, &signer_user) != 0)
		return -1;
	raise_fd_limit(d->cfg.limits.max_connections + 2 * d->cfg.workers + 64);
	d->watchdog_usec = notify_watchdog_usec();
	d->notify = notify_enabled();
	if (listen_open(&d->cfg, &d->ls) != 0)
		return -1;
	if (setup_events(d) != 0)
		return -1;
	if (signers_init(&d->signers, d->base, d->cfg.workers, d->cfg.limits.max_inflight,
		d->cfg.limits.worker_timeout_ms, &signers_cbs, d) != 0 ||
	    start_keyholder(d, &signer_user) != 0)
		return -1;
	if (serve_clients(d) != 0)
		return -1;
	if (warm_up() != 0) {
		log_error("the parent's self-test failed");
		return -1;
	}
	return drop_parent(d, &user);
}

/*
 * Waits for the key-holder, whose channel is closed (it waits for its signers), at most
 * KEYHOLDER_EXIT_WAIT_MS, then kills it: a stopped role must not keep the daemon from exiting.
 */
static void wait_keyholder(struct parent *d)
{
	uint64_t deadline = clock_now_us() + KEYHOLDER_EXIT_WAIT_MS * 1000ULL;
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	while (d->kh_pid > 0) {
		pid_t r = waitpid(d->kh_pid, NULL, WNOHANG);

		if (r == d->kh_pid || (r < 0 && errno != EINTR)) {
			d->kh_pid = -1;
			break;
		}
		if (clock_now_us() >= deadline)
			kill(d->kh_pid, SIGKILL);
		nanosleep(&tick, NULL);
	}
}

/*
 * Once the loop is left, a second SIGTERM (systemd, an impatient operator) must not end the
 * daemon by the signal: freeing the signal events puts back the default action, which would
 * kill it with its audit stop checkpoint unwritten and the exit status lost. Blocked, the
 * signals stay pending and die with the process.
 */
static void block_stop_signals(void)
{
	sigset_t set;

	if (sigemptyset(&set) != 0 || sigaddset(&set, SIGTERM) != 0 || sigaddset(&set, SIGINT) != 0 ||
	    sigaddset(&set, SIGHUP) != 0 || sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		log_error("cannot block the stop signals during the stop: %s", strerror(errno));
}

static void finish(struct parent *d)
{
	struct event *evs[] = { d->sig_term, d->sig_int, d->sig_hup, d->sig_chld, d->watchdog_ev,
		d->status_ev };

	block_stop_signals();
	if (d->base != NULL) {
		signers_cancel(&d->signers, PROTO_E_SHUTTING_DOWN);
		replies_drop_held(d->replies);	/* for connections that go now */
		/* No STATUS= from here: the key-holder's messages read while the stop checkpoint is
		 * awaited (a reload's signers) must not build it from the server freed now. */
		d->ready = 0;
		server_free(d->srv);
		d->srv = NULL;	/* the stop's waits below may still report signers (status_text) */
		audit_stop(&d->audit);	/* the last records, and the stop checkpoint awaited */
	}
	audit_free(&d->audit);
	/* The key-holder's channel first: once it has seen its end, it no longer replaces (or
	 * reports) the signers that their closed channels then make leave. */
	chan_close(&d->kh);
	signers_close(&d->signers);
	wait_keyholder(d);
	listen_cleanup(&d->cfg, &d->ls);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		if (evs[i] != NULL)
			event_free(evs[i]);
	requests_free(d->requests);	/* its timer, before the event base */
	if (d->base != NULL)
		event_base_free(d->base);
	replies_free(d->replies);
	free(d->usage);
	keytab_free(&d->kt);
	keytab_free(&d->next);
	keytab_free(&d->prev);
	config_free(&d->cfg);
}

/* After work: status updates resume, once a second while the status changes. */
static void worked(void *arg)
{
	struct parent *d = arg;
	struct timeval tv = { .tv_sec = STATUS_EVERY_MS / 1000 };

	if (d->ready && d->notify && !evtimer_pending(d->status_ev, NULL) &&
	    evtimer_add(d->status_ev, &tv) != 0)
		log_error("cannot arm the status updates");
}

/* busypoll's hint: a signer's answer due soon is worth polling for. */
static uint64_t answer_due(void *arg, uint64_t now)
{
	struct parent *d = arg;

	return signers_answer_due_us(&d->signers, now);
}

/* busypoll's other hint: signers with work queued answer without being polled for. */
static int saturated(void *arg)
{
	struct parent *d = arg;

	return signers_saturated(&d->signers);
}

int parent_main(const char *config_path)
{
	static struct parent d;

	d.ls.fd = -1;
	d.kh.fd = -1;
	d.audit.fd = -1;
	if (start(&d, config_path) != 0)
		d.failed = 1;
	else if (busypoll_loop(d.base, d.cfg.busy_poll_us, server_activity(d.srv),
	    &(struct busypoll_hooks){ .due = answer_due, .saturated = saturated, .worked = worked,
	    .arg = &d }) != 0) {
		log_error("event loop failed");
		d.failed = 1;
	}
	if (!d.failed)
		log_info("stopped after %llu requests", (unsigned long long)replies_requests(d.replies));
	finish(&d);
	return d.failed ? 1 : 0;
}
