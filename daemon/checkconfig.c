/* SPDX-License-Identifier: ISC */
/* p256signd --check-config (checkconfig.h). */
#include "checkconfig.h"

#include <stdio.h>

#include "config.h"
#include "keys.h"

int check_config(const char *path)
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
