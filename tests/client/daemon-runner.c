/* SPDX-License-Identifier: ISC */
/* Starting and stopping the real p256signd for the library's integration tests. */
#include "daemon-runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "p256sign.h"
#include "scratch-dir.h"

static void spawn(struct daemon_proc *d)
{
	struct p256sign *h;
	char log[160];
	int fd;

	snprintf(log, sizeof(log), "%s/stderr.log", d->dir);
	d->pid = fork();
	CHECK(d->pid >= 0);
	if (d->pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);	/* never outlive a failed test */
		if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0)
			dup2(fd, STDERR_FILENO);
		execl(d->binary, d->binary, "--config", d->config, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 1000; i++) {
		if (p256sign_connect(&h, d->socket) == 0) {
			int r = p256sign_ping(h);

			p256sign_close(h);
			if (r == 0)
				return;
		}
		CHECK(waitpid(d->pid, NULL, WNOHANG) == 0);	/* it must not have exited */
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	fprintf(stderr, "p256signd did not answer within 10 s (log: %s)\n", log);
	exit(1);
}

/*
 * Copies the key file to dst with mode 0600: the daemon refuses a key that group or others may
 * read, and the repository's files are checked out 0644.
 */
static void copy_key(const char *src, const char *dst)
{
	char buf[65536];
	size_t n;
	FILE *in;
	int fd;

	CHECK((in = fopen(src, "rb")) != NULL);
	n = fread(buf, 1, sizeof(buf), in);
	CHECK(ferror(in) == 0 && feof(in) && fclose(in) == 0);
	CHECK((fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0);
	CHECK(write(fd, buf, n) == (ssize_t)n && close(fd) == 0);
}

void daemon_start(struct daemon_proc *d, const char *binary, const struct daemon_config *cfg)
{
	char key[160], cert[160], cert_member[200] = "";
	FILE *f;

	memset(d, 0, sizeof(*d));
	d->binary = binary;
	snprintf(d->dir, sizeof(d->dir), "/tmp/p256sign-client-test-XXXXXX");
	CHECK(scratch_dir(d->dir) == 0);	/* removed at exit too: a failed CHECK exits */
	snprintf(key, sizeof(key), "%s/key", d->dir);
	copy_key(cfg->key_file, key);
	if (cfg->cert_file != NULL) {
		snprintf(cert, sizeof(cert), "%s/cert", d->dir);
		copy_key(cfg->cert_file, cert);
		snprintf(cert_member, sizeof(cert_member), ", \"certificate\": \"%s\"", cert);
	}
	snprintf(d->socket, sizeof(d->socket), "%s/s.sock", d->dir);
	snprintf(d->config, sizeof(d->config), "%s/p256signd.json", d->dir);
	CHECK((f = fopen(d->config, "w")) != NULL);
	/* whatever the umask: the daemon refuses a configuration that group or others may write */
	CHECK(fchmod(fileno(f), 0644) == 0);
	fprintf(f, "{\"socket\": \"%s\", \"workers\": %u,\n"
		" \"limits\": {\"max_inflight_per_connection\": %u, \"idle_timeout_ms\": %u},\n"
		" \"keys\": [{\"name\": \"%s\", \"file\": \"%s\"%s, \"nonce\": \"%s\",\n"
		"   \"verify_after_sign\": %s}]}\n",
		d->socket, cfg->workers, cfg->max_inflight_per_connection,
		cfg->idle_timeout_ms ? cfg->idle_timeout_ms : 60000, cfg->key_name, key,
		cert_member, cfg->nonce, cfg->verify_after_sign ? "true" : "false");
	CHECK(fclose(f) == 0);
	spawn(d);
}

void daemon_signal(struct daemon_proc *d, int sig)
{
	CHECK(kill(d->pid, sig) == 0);
}

void daemon_kill(struct daemon_proc *d)
{
	daemon_signal(d, SIGKILL);
	CHECK(waitpid(d->pid, NULL, 0) == d->pid);
	d->pid = 0;
}

void daemon_restart(struct daemon_proc *d)
{
	spawn(d);
}

void daemon_stop(struct daemon_proc *d)
{
	int status;

	if (d->pid > 0) {
		daemon_signal(d, SIGTERM);
		CHECK(waitpid(d->pid, &status, 0) == d->pid);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK(scratch_dir_remove(d->dir) == 0);
}
