/* SPDX-License-Identifier: ISC */
/* The key-holder role (keyholder.h). */
#include "keyholder.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit-seal.h"
#include "audit-time.h"
#include "clock.h"
#include "ipc.h"
#include "keyset.h"
#include "log.h"
#include "signer.h"

/* After the parent has gone, how long the key-holder waits for its signers to leave before it
 * exits and the kernel kills them (PR_SET_PDEATHSIG); below the parent's own wait for it. */
#define SIGNERS_EXIT_WAIT_MS 2000

/* A signer this key-holder started and has not yet reaped. */
struct child {
	uint32_t id;
	pid_t pid;
	uint32_t generation;
};

struct keyholder {
	int fd;				/* the channel to the parent */
	int sigfd;			/* SIGCHLD, as a signalfd */
	struct config *cfg;
	struct keyset ks;		/* the current generation's keys */
	uint32_t generation;
	struct child *children;
	size_t nchildren, cap;
	uint32_t next_id;
	int parent_gone;		/* its channel ended: the daemon is stopping, or died */
	struct ipc_peer peer;		/* the parent's messages and their handlers */
};

/* Sends one message (and a descriptor when passfd >= 0) as one record. 0 or -1 (logged). */
static int send_msg(struct keyholder *k, uint16_t type, const void *body, size_t len, int passfd)
{
	uint8_t buf[IPC_MSG_MAX];
	size_t fill = 0;
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (ipc_put(buf, sizeof(buf), &fill, type, 0, body, len) != 0) {
		log_error("keyholder: cannot frame a %s message", ipc_type_name(type));
		return -1;
	}
	iov = (struct iovec){ .iov_base = buf, .iov_len = fill };
	if (passfd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.space;
		msg.msg_controllen = sizeof(ctl.space);
		ctl.h.cmsg_level = SOL_SOCKET;
		ctl.h.cmsg_type = SCM_RIGHTS;
		ctl.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&ctl.h), &passfd, sizeof(int));
	}
	do
		n = sendmsg(k->fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
		k->parent_gone = 1;	/* not an error of ours: serve() winds down */
		return -1;
	}
	if (n != (ssize_t)fill) {
		log_error("keyholder: sending a %s message: %s", ipc_type_name(type),
		    n < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

/* IPC_KEY_CERT: the certificate of key i, right after its IPC_KEY_PUBLIC. 0 or -1 (logged). */
static int send_cert(struct keyholder *k, size_t i)
{
	const struct key_public *kp = &k->ks.pub[i];
	struct ipc_key_cert m = { .generation = k->generation, .index = (uint32_t)i };
	uint8_t body[sizeof(m) + IPC_CERT_MAX];

	if (kp->cert_len > IPC_CERT_MAX)
		return -1;	/* keyset_load refused it already */
	memcpy(body, &m, sizeof(m));
	memcpy(body + sizeof(m), kp->cert, kp->cert_len);
	return send_msg(k, IPC_KEY_CERT, body, sizeof(m) + kp->cert_len, -1);
}

/* IPC_KEY_PUBLIC for every key of the current generation, each with its IPC_KEY_CERT when it has
 * a certificate, then IPC_KEYS_READY. */
static int send_keys(struct keyholder *k)
{
	struct ipc_keys_ready ready = { .generation = k->generation, .nkeys = (uint32_t)k->ks.n,
		.nsigners = k->cfg->workers };

	for (size_t i = 0; i < k->ks.n; i++) {
		const struct key_public *kp = &k->ks.pub[i];
		struct ipc_key_public m = { .generation = k->generation, .index = (uint32_t)i,
			.cert_not_after = kp->cert_not_after,
			.max_signatures_per_second = kp->max_signatures_per_second,
			.nonce = (uint8_t)kp->nonce, .verify_after_sign = (uint8_t)kp->verify_after_sign,
			.purpose = (uint8_t)kp->purpose, .name_len = (uint8_t)strlen(kp->name),
			.allow = kp->allow };

		memcpy(m.name, kp->name, m.name_len);
		memcpy(m.point, kp->point, sizeof(m.point));
		if (send_msg(k, IPC_KEY_PUBLIC, &m, sizeof(m), -1) != 0 ||
		    (kp->cert != NULL && send_cert(k, i) != 0))
			return -1;
		ready.ncerts += kp->cert != NULL;
	}
	return send_msg(k, IPC_KEYS_READY, &ready, sizeof(ready), -1);
}

/* Forks one signer of the current generation and hands its channel to the parent. 0 or -1. */
static int start_signer(struct keyholder *k)
{
	struct ipc_signer m = { .generation = k->generation, .signer = ++k->next_id };
	int fd, r;
	pid_t pid;

	if (k->nchildren == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 8;
		struct child *c = realloc(k->children, cap * sizeof(*c));

		if (c == NULL) {
			log_error("keyholder: out of memory");
			return -1;
		}
		k->children = c;
		k->cap = cap;
	}
	if ((pid = proc_fork(PROC_SIGNER, SOCK_STREAM, &fd)) < 0)
		return -1;
	if (pid == 0)
		signer_main(PROC_CHANNEL_FD, &k->ks, k->cfg->busy_poll_us);
	k->children[k->nchildren++] = (struct child){ m.signer, pid, k->generation };
	m.pid = (int32_t)pid;
	r = send_msg(k, IPC_SIGNER_FD, &m, sizeof(m), fd);
	close(fd);
	return r;
}

/* Reaps every signer that exited: reported to the parent, and replaced when it belongs to the
 * current generation (one of an older generation is leaving after a reload); once the parent
 * has gone, only taken off the table. 0 or -1. */
static int reap(struct keyholder *k)
{
	struct signalfd_siginfo si;
	pid_t pid;
	int status;

	while (read(k->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		;	/* drained: waitpid below finds every exited child, however many signals merged */
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (size_t i = 0; i < k->nchildren; i++) {
			struct child c = k->children[i];
			struct ipc_signer_exit m = { .signer = c.id, .pid = (int32_t)pid,
				.status = status };

			if (c.pid != pid)
				continue;
			k->children[i] = k->children[--k->nchildren];
			if (k->parent_gone)
				break;
			if (send_msg(k, IPC_SIGNER_EXIT, &m, sizeof(m), -1) != 0 ||
			    (c.generation == k->generation && start_signer(k) != 0))
				return -1;
			break;
		}
	}
	return 0;
}

static int restart_signer(void *ctx, struct ipc_msg *msg)
{
	struct keyholder *k = ctx;
	struct ipc_signer m;

	memcpy(&m, msg->body, sizeof(m));
	for (size_t i = 0; i < k->nchildren; i++)
		if (k->children[i].id == m.signer && kill(k->children[i].pid, SIGKILL) != 0)
			log_error("keyholder: kill of signer %d: %s", (int)k->children[i].pid,
			    strerror(errno));
	return 0;	/* its exit, reaped, starts the replacement */
}

/* The index of the audit key (config "audit.key", purpose audit) in ks, or -1. */
static int audit_key(const struct config *cfg, const struct keyset *ks)
{
	for (size_t i = 0; cfg->audit.key != NULL && i < ks->n; i++)
		if (strcmp(ks->pub[i].name, cfg->audit.key) == 0 &&
		    ks->pub[i].purpose == POLICY_PURPOSE_AUDIT)
			return (int)i;
	return -1;
}

/* IPC_AUDIT_SEAL: the seal digest is built here from the hash and the number, the reason named
 * from its number and the time read from this process's clock (the audit key signs checkpoints
 * and nothing the parent chooses, and a parent cannot date one), then signed with a hedged
 * nonce, s in its low form. */
static int audit_seal(void *ctx, struct ipc_msg *msg)
{
	struct keyholder *k = ctx;
	struct ipc_audit_seal m;
	struct ipc_audit_sealed out = { .result = P256_ERR_INTERNAL };
	uint8_t digest[P256_DIGEST_LEN];
	int key = audit_key(k->cfg, &k->ks);
	const char *reason;

	memcpy(&m, msg->body, sizeof(m));
	if (key >= 0 && (reason = audit_seal_reason_name(m.reason)) != NULL &&
	    audit_time_now(out.time) == 0 &&
	    audit_seal_digest(m.covers_hash, m.covers_seq, out.time, reason, digest) == 0)
		out.result = p256_sign(k->ks.priv[key].d, digest, P256_NONCE_HEDGED, NULL, 0, out.sig);
	/* Low s (docs/audit.md): n - s would verify too, and a seal must have one form only. */
	if (out.result == 0)
		out.result = p256_normalize_s(out.sig);
	if (out.result != 0) {
		memset(out.time, 0, sizeof(out.time));
		memset(out.sig, 0, sizeof(out.sig));
	}
	return send_msg(k, IPC_AUDIT_SEALED, &out, sizeof(out), -1) == 0 ? 0 : IPC_ERR_CONTENT;
}

/* A reload keeps the audit key: the open records and checkpoints of a chain name one key. */
static int audit_key_kept(const struct keyholder *k, const struct keyset *ks)
{
	int old = audit_key(k->cfg, &k->ks), now = audit_key(k->cfg, ks);

	if (old < 0)
		return 1;
	return now >= 0 && memcmp(k->ks.pub[old].point, ks->pub[now].point, P256_POINT_LEN) == 0;
}

/* The configuration's key set, read and checked as at start-up. 0, or -1 with err set. */
static int load_again(const struct keyholder *k, struct config *cfg, struct keyset *ks,
	char *err, size_t errlen)
{
	if (config_load(k->cfg->path, cfg, err, errlen) != 0 ||
	    keyset_load(cfg, ks, err, errlen) != 0)
		return -1;
	if (keyset_lock(ks) != 0) {
		snprintf(err, errlen, "cannot lock the keys in memory: %s", strerror(errno));
		return -1;
	}
	if (!audit_key_kept(k, ks)) {
		snprintf(err, errlen, "audit.key: the audit key %s must stay the same key on reload "
		    "(a new audit key needs a restart)", k->cfg->audit.key);
		return -1;
	}
	return 0;
}

/* Reads the key set of the configuration again; on success a new generation of signers takes
 * over, on failure the old one goes on and the parent is told why. 0, or -1 when the new
 * signers cannot be started. */
static int reload(void *ctx, struct ipc_msg *msg)
{
	struct keyholder *k = ctx;
	struct config cfg;
	struct keyset ks = { 0 };
	char err[IPC_TEXT_MAX];
	int r = 0;

	if (load_again(k, &cfg, &ks, err, sizeof(err)) != 0) {
		keyset_free(&ks);
		config_free(&cfg);
		return send_msg(k, IPC_RELOAD_FAILED, err, strlen(err), -1) == 0 ? 0 :
		    IPC_ERR_CONTENT;
	}
	keyset_free(&k->ks);
	k->ks = ks;
	k->generation++;
	r = send_keys(k);
	for (unsigned i = 0; r == 0 && i < k->cfg->workers; i++)
		r = start_signer(k);
	config_free(&cfg);
	return r == 0 ? 0 : IPC_ERR_CONTENT;
}

/* The key-holder's handlers of the parent's messages. */
static const ipc_handler handlers[IPC_TYPE_MAX] = {
	[IPC_SIGNER_RESTART] = restart_signer,
	[IPC_RELOAD] = reload,
	[IPC_AUDIT_SEAL] = audit_seal,
};

/* One record from the parent: 0, 1 when the parent has gone, -1 on a fault. */
static int from_parent(struct keyholder *k)
{
	uint8_t buf[IPC_MSG_MAX];
	size_t used;
	ssize_t n;
	int r;

	if ((n = recv(k->fd, buf, sizeof(buf), 0)) == 0 || (n < 0 && errno == ECONNRESET))
		return 1;
	if (n < 0)
		return errno == EINTR ? 0 : -1;
	if ((r = ipc_dispatch(&k->peer, buf, (size_t)n, SIZE_MAX, NULL, &used)) == 0 &&
	    used != (size_t)n)
		r = IPC_ERR_LENGTH;	/* a record holds whole messages only */
	if (r != 0) {
		/* A failed send has logged, or found the parent gone: serve() tells which. */
		if (r != IPC_ERR_CONTENT)
			log_error("keyholder: the parent %s", ipc_err_text(r));
		return -1;
	}
	return 0;
}

/*
 * The parent has gone: the daemon is stopping (it closes this channel before the signers') or
 * died. No signer is replaced or reported from now on; the signers leave when their channels
 * close, after wiping their keys, and this waits for them (SIGNERS_EXIT_WAIT_MS at most). 0.
 */
static int wait_for_signers(struct keyholder *k)
{
	uint64_t deadline = clock_now_us() + SIGNERS_EXIT_WAIT_MS * 1000ULL;

	k->parent_gone = 1;
	for (;;) {
		struct pollfd p = { .fd = k->sigfd, .events = POLLIN };
		uint64_t now;

		(void)reap(k);		/* cannot fail: nothing is sent once the parent has gone */
		if (k->nchildren == 0)
			return 0;
		if ((now = clock_now_us()) >= deadline)
			break;
		if (poll(&p, 1, (int)((deadline - now + 999) / 1000)) < 0 && errno != EINTR)
			break;
	}
	log_error("keyholder: %zu signer(s) still running %d ms after the parent's end: they are "
	    "killed", k->nchildren, SIGNERS_EXIT_WAIT_MS);
	return 0;
}

/* Serves the parent until it goes: 0 then, -1 on a fault. Its channel is looked at first, so
 * that the exits of signers it has just closed are not reported to a parent that has gone. */
static int serve(struct keyholder *k)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = k->fd, .events = POLLIN },
			{ .fd = k->sigfd, .events = POLLIN } };
		int r = 0;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_error("keyholder: poll: %s", strerror(errno));
			return -1;
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
			r = from_parent(k);
		if (r == 0 && (p[1].revents & POLLIN))
			r = reap(k);
		if (r > 0 || (r != 0 && k->parent_gone))
			return wait_for_signers(k);
		if (r != 0)
			return -1;
	}
}

/* SIGCHLD as a descriptor, so that one poll waits for the parent and the signers alike. */
static int watch_children(void)
{
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, NULL) != 0)
		return -1;
	return signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
}

void keyholder_main(int fd, struct config *cfg, const struct proc_user *user)
{
	struct keyholder k = { .fd = fd, .cfg = cfg, .generation = 1, .sigfd = -1 };
	char err[512], **dirs = NULL;
	uint8_t digest[P256_DIGEST_LEN] = { 0 };
	char now[AUDIT_TIME_LEN];
	int r = -1;

	if (keyset_load(cfg, &k.ks, err, sizeof(err)) != 0) {
		log_error("%s", err);
		goto out;
	}
	if (keyset_lock(&k.ks) != 0) {
		log_error("keyholder: cannot lock the keys in memory: %s", strerror(errno));
		goto out;
	}
	if (keyset_read_paths(cfg, &dirs) != 0) {
		log_error("keyholder: out of memory");
		goto out;
	}
	/* OpenSSL loads its SHA-256 on first use, which the sandbox would refuse later. */
	if (audit_time_now(now) != 0 || audit_seal_digest(digest, 0, now, "", digest) != 0) {
		log_error("keyholder: the clock or SHA-256 is not available");
		goto out;
	}
	ipc_peer_init(&k.peer, PROC_PARENT, PROC_KEYHOLDER, handlers, &k);
	if ((k.sigfd = watch_children()) < 0) {
		log_error("keyholder: signalfd: %s", strerror(errno));
		goto out;
	}
	if (send_keys(&k) != 0 || proc_drop(PROC_KEYHOLDER, user,
	    &(struct proc_paths){ .read = (const char *const *)dirs }) != 0)
		goto out;
	for (unsigned i = 0; i < cfg->workers; i++)
		if (start_signer(&k) != 0)
			goto out;
	r = serve(&k);
out:
	keyset_free(&k.ks);
	if (dirs != NULL) {
		for (size_t i = 0; dirs[i] != NULL; i++)
			free(dirs[i]);
		free(dirs);
	}
	free(k.children);
	exit(r == 0 ? 0 : 1);
}
