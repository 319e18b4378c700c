/* SPDX-License-Identifier: ISC */
/*
 * One entry of `journalctl -o json` as the line of its record (audit-verifier.h): jansson reads
 * the entry, its P256SIGN_* fields give the record's members (audit_record_from_fields), and
 * every one of them must be a member of the record, so that what journalctl shows and queries
 * is what the chain checked. Other fields are journald's, or another program's, and are left;
 * only the host's two (_MACHINE_ID, _HOSTNAME, which journald sets and a sender cannot) are read.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "audit-verifier.h"

#define FIELD_PREFIX "P256SIGN_"
#define SHOWN_FIELD_MAX 40	/* how much of a field's name a message shows */

/* An entry while its record is rebuilt: each field asked for is taken out of obj, so that those
 * left are the ones no member names. */
struct entry {
	json_t *obj;
	uint8_t value[AUDIT_LINE_MAX];	/* the last value asked for (a field is shorter than a line) */
	const char *problem;		/* what was wrong with field `bad`, or NULL */
	char bad[SHOWN_FIELD_MAX + 1];
};

/* A field's name for a message: journald's names are [A-Z0-9_]; anything else is shown as '?'. */
static void shown_field(const char *name, char out[SHOWN_FIELD_MAX + 1])
{
	size_t i;

	for (i = 0; i < SHOWN_FIELD_MAX && name[i] != '\0'; i++)
		out[i] = (name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= '0' && name[i] <= '9') ||
			name[i] == '_' ? name[i] : '?';
	out[i] = '\0';
}

/* journalctl writes a value that is not printable UTF-8 as an array of its bytes, and a field
 * the entry has more than once as an array of its values. 1: v is the first kind. */
static int is_byte_array(json_t *v)
{
	size_t i;
	json_t *b;

	json_array_foreach(v, i, b)
		if (!json_is_integer(b) || json_integer_value(b) < 0 || json_integer_value(b) > 255)
			return 0;
	return 1;
}

static const char *value_bytes(struct entry *e, json_t *v, size_t *len)
{
	size_t i;
	json_t *b;

	if (json_is_string(v)) {
		*len = json_string_length(v);
		if (*len > sizeof(e->value))
			return "longer than a record";
		memcpy(e->value, json_string_value(v), *len);
		return NULL;
	}
	if (json_is_null(v))
		return "shown as null, too large for journalctl's output: give journalctl --all";
	if (!json_is_array(v) || !is_byte_array(v))
		return json_is_array(v) ? "given more than once" : "not a string or bytes";
	if ((*len = json_array_size(v)) > sizeof(e->value))
		return "longer than a record";
	json_array_foreach(v, i, b)
		e->value[i] = (uint8_t)json_integer_value(b);
	return NULL;
}

static const uint8_t *entry_field(void *arg, const char *name, size_t *len)
{
	struct entry *e = arg;
	json_t *v = json_object_get(e->obj, name);
	const char *problem;

	if (v == NULL)
		return NULL;
	problem = value_bytes(e, v, len);
	if (problem != NULL && e->problem == NULL) {
		e->problem = problem;
		shown_field(name, e->bad);
	}
	json_object_del(e->obj, name);
	return problem == NULL ? e->value : NULL;
}

/* journald's field `name` into out when it is printable ASCII that fits, else "?" (no host's). */
static void host_field(json_t *obj, const char *name, char *out, size_t cap)
{
	json_t *v = json_object_get(obj, name);
	const char *s = json_string_value(v);
	size_t len = json_string_length(v);

	out[0] = '\0';
	if (v == NULL)
		return;
	if (s == NULL || len >= cap)
		len = 0;
	for (size_t i = 0; i < len; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f)
			len = 0;
	if (len == 0) {
		snprintf(out, cap, "?");
		return;
	}
	memcpy(out, s, len);
	out[len] = '\0';
}

/* A P256SIGN_ field that no member of the record took. */
static int left_over(json_t *obj, char why[AUDIT_WHY_MAX])
{
	char shown[SHOWN_FIELD_MAX + 1];
	const char *name;
	json_t *v;

	json_object_foreach(obj, name, v)
		if (strncmp(name, FIELD_PREFIX, strlen(FIELD_PREFIX)) == 0) {
			shown_field(name, shown);
			snprintf(why, AUDIT_WHY_MAX, "field %s: not a member of this record", shown);
			return 1;
		}
	return 0;
}

int audit_journal_entry_line(const uint8_t *json, size_t len, struct audit_journal_host *host,
	uint8_t *line, size_t cap, size_t *line_len, char why[AUDIT_WHY_MAX])
{
	static struct entry e;	/* its value buffer is a line's size: not on the stack */
	json_error_t error;
	int r = AUDIT_BROKEN, rebuilt;

	memset(host, 0, sizeof(*host));
	e.problem = NULL;
	e.obj = json_loadb((const char *)json, len, JSON_REJECT_DUPLICATES, &error);
	if (e.obj == NULL || !json_is_object(e.obj)) {
		snprintf(why, AUDIT_WHY_MAX, "not a journal entry of journalctl -o json (a JSON "
			"object on a line)");
		goto out;
	}
	host_field(e.obj, "_MACHINE_ID", host->machine_id, sizeof(host->machine_id));
	host_field(e.obj, "_HOSTNAME", host->hostname, sizeof(host->hostname));
	if (json_object_get(e.obj, FIELD_PREFIX "TYPE") == NULL) {
		r = AUDIT_JOURNAL_OTHER;
		goto out;
	}
	rebuilt = audit_record_from_fields(entry_field, &e, line, cap, line_len, why,
	    AUDIT_WHY_MAX);
	if (e.problem != NULL)
		snprintf(why, AUDIT_WHY_MAX, "field %s: %s", e.bad, e.problem);
	else if (rebuilt == 0 && !left_over(e.obj, why))
		r = 0;
out:
	json_decref(e.obj);
	e.obj = NULL;
	return r;
}
