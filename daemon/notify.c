/* SPDX-License-Identifier: ISC */
/* sd_notify messages (notify.h). */
#include "notify.h"

#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "log.h"

/* A failed notification is logged once: the daemon serves on without systemd listening. */
static void report(int r)
{
	static int reported;

	if (r < 0 && !reported) {
		reported = 1;
		log_error("sd_notify: %s (further failures not logged)", strerror(-r));
	}
}

static void send_state(const char *state)
{
	report(sd_notify(0, state));
}

void notify_ready(const char *status)
{
	report(sd_notifyf(0, "READY=1\nSTATUS=%s", status));
}

void notify_status(const char *status)
{
	report(sd_notifyf(0, "STATUS=%s", status));
}

void notify_reloading(void)
{
	send_state("RELOADING=1");
}

void notify_stopping(void)
{
	send_state("STOPPING=1");
}

void notify_watchdog(void)
{
	send_state("WATCHDOG=1");
}

uint64_t notify_watchdog_usec(void)
{
	uint64_t usec = 0;

	return sd_watchdog_enabled(0, &usec) > 0 ? usec : 0;
}

int notify_enabled(void)
{
	const char *s = getenv("NOTIFY_SOCKET");

	return s != NULL && s[0] != '\0';
}
