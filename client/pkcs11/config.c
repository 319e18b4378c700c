/* SPDX-License-Identifier: ISC */
/*
 * The module's settings: words `socket=PATH` (one slot per socket, in order, at most
 * P11_MAX_SLOTS) and `timeout_ms=N` (every request's deadline), separated by white space, with
 * `#` starting a comment to the end of the line. Read from C_Initialize's pReserved string (p11-kit
 * passes a module's `x-init-reserved:` there) and then from the file $P256SIGN_PKCS11_CONFIG
 * names (ignored in set-uid programs). With no socket named, one slot on libp256sign's default
 * socket ($P256SIGN_SOCKET, else P256SIGN_SOCKET_DEFAULT).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "p11.h"

#define CONFIG_ENV "P256SIGN_PKCS11_CONFIG"
#define CONFIG_FILE_MAX 65536

static int add_slot(struct p11_module *m, const char *path, size_t len)
{
	struct p11_slot *s;

	if (m->nslots == P11_MAX_SLOTS || len >= P11_SOCKET_MAX)
		return -1;
	s = &m->slots[m->nslots];
	memset(s, 0, sizeof(*s));
	memcpy(s->socket, path, len);
	s->socket[len] = '\0';
	if (m->nslots == 0)
		snprintf(s->label, sizeof(s->label), "%s", P11_LABEL);
	else
		snprintf(s->label, sizeof(s->label), "%s-%zu", P11_LABEL, m->nslots);
	if (pthread_mutex_init(&s->handle_lock, NULL) != 0)
		return -1;
	m->nslots++;
	return 0;
}

/* One word; unknown words are refused so that a typo does not go unnoticed. */
static int apply_word(struct p11_module *m, const char *w, size_t len)
{
	char num[16];
	char *end;
	long v;

	if (len > 7 && memcmp(w, "socket=", 7) == 0)
		return add_slot(m, w + 7, len - 7);
	if (len > 11 && len - 11 < sizeof(num) && memcmp(w, "timeout_ms=", 11) == 0) {
		memcpy(num, w + 11, len - 11);
		num[len - 11] = '\0';
		errno = 0;
		v = strtol(num, &end, 10);
		if (errno != 0 || *end != '\0' || v < 1 || v > 600000)
			return -1;
		m->timeout_ms = (int)v;
		return 0;
	}
	return -1;
}

int p11_config_text(struct p11_module *m, const char *text, size_t len)
{
	size_t i = 0, start;

	while (i < len) {
		if (text[i] == '#') {
			while (i < len && text[i] != '\n')
				i++;
			continue;
		}
		if (isspace((unsigned char)text[i]) || text[i] == '\0') {
			i++;
			continue;
		}
		start = i;
		while (i < len && text[i] != '\0' && !isspace((unsigned char)text[i]))
			i++;
		if (apply_word(m, text + start, i - start) != 0)
			return -1;
	}
	return 0;
}

static int read_file(struct p11_module *m, const char *path)
{
	char *buf = NULL;
	size_t len;
	FILE *f;
	int r = -1;

	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if ((buf = malloc(CONFIG_FILE_MAX)) == NULL)
		goto out;
	len = fread(buf, 1, CONFIG_FILE_MAX, f);
	if (ferror(f) || len == CONFIG_FILE_MAX)
		goto out;
	r = p11_config_text(m, buf, len);
out:
	free(buf);
	fclose(f);
	return r;
}

int p11_config(struct p11_module *m, const char *reserved)
{
	const char *file = getauxval(AT_SECURE) ? NULL : getenv(CONFIG_ENV);
	size_t i;

	m->timeout_ms = P256SIGN_TIMEOUT_DEFAULT;
	if (reserved != NULL && p11_config_text(m, reserved, strnlen(reserved, CONFIG_FILE_MAX)) != 0)
		return -1;
	if (file != NULL && file[0] != '\0' && read_file(m, file) != 0)
		return -1;
	if (m->nslots == 0 && add_slot(m, "", 0) != 0)
		return -1;
	for (i = 0; i < m->nslots; i++)
		m->slots[i].timeout_ms = m->timeout_ms;
	return 0;
}
