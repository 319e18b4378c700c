/* SPDX-License-Identifier: ISC */
/* p256signd --check-config (checkconfig.h). */
#include "checkconfig.h"

#include <stdio.h>

#include "config.h"
#include "keyset.h"

int check_config(const char *path)
{
	struct config cfg;
	struct keyset ks = { 0 };
	char err[512];
	int r = 1;

	if (config_load(path, &cfg, err, sizeof(err)) != 0 ||
	    keyset_load(&cfg, &ks, err, sizeof(err)) != 0) {
		fprintf(stderr, "p256signd: %s\n", err);
		goto out;
	}
	for (size_t i = 0; i < ks.n; i++)
		printf("%s %s\n", ks.pub[i].name, ks.pub[i].id_hex);
	printf("%s: ok\n", path);
	r = 0;
out:
	keyset_free(&ks);
	config_free(&cfg);
	return r;
}
