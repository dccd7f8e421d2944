// SPDX-License-Identifier: GPL-2.0
/*
 * The device list of dev=: comma-separated interface names, each a name
 * the kernel would accept for a device (dev_valid_name()), none twice,
 * at most XPS_STEER_MAX_DEVS, each optionally followed by ":guard". The
 * empty string is the empty list.
 */
#include <linux/errno.h>
#include <linux/string.h>

#include "names.h"

static int find(const struct xps_steer_names *list, const char *name)
{
	unsigned int i;

	for (i = 0; i < list->nr; i++)
		if (!strcmp(list->name[i], name))
			return i;
	return -1;
}

bool xps_steer_names_has(const struct xps_steer_names *list,
			 const char *name)
{
	return find(list, name) >= 0;
}

/* Whether name is listed and was asked for in guard mode. */
bool xps_steer_names_guard(const struct xps_steer_names *list,
			   const char *name)
{
	int i = find(list, name);

	return i >= 0 && list->guard[i];
}

/* An entry, its suffix cut off in place once it is known to be valid. */
static enum xps_steer_names_fault add(struct xps_steer_names *list,
				      char *name)
{
	char *colon = strchr(name, ':');
	size_t len = colon ? (size_t)(colon - name) : strlen(name);
	bool guard = false;

	if (colon) {
		if (strcmp(colon, XPS_STEER_GUARD_SUFFIX))
			return XPS_STEER_NAMES_BAD_MODE;
		*colon = '\0';
		guard = true;
	}
	if (!len)
		return XPS_STEER_NAMES_EMPTY;
	if (len >= IFNAMSIZ)
		return XPS_STEER_NAMES_TOO_LONG;
	if (!dev_valid_name(name))
		return XPS_STEER_NAMES_INVALID;
	if (xps_steer_names_has(list, name))
		return XPS_STEER_NAMES_TWICE;
	if (list->nr == XPS_STEER_MAX_DEVS)
		return XPS_STEER_NAMES_TOO_MANY;
	list->guard[list->nr] = guard;
	memcpy(list->name[list->nr++], name, len + 1);
	return XPS_STEER_NAMES_OK;
}

/*
 * Parse text (cut at its commas and colons in place) into list, all or
 * nothing: EINVAL, with err naming the first bad entry, leaves list empty.
 */
int xps_steer_names_parse(struct xps_steer_names *list, char *text,
			  struct xps_steer_names_err *err)
{
	char *name;

	list->nr = 0;
	err->fault = XPS_STEER_NAMES_OK;
	err->entry = NULL;
	if (!*text)
		return 0;
	while ((name = strsep(&text, ","))) {
		err->fault = add(list, name);
		if (err->fault != XPS_STEER_NAMES_OK) {
			err->entry = name;
			list->nr = 0;
			return -EINVAL;
		}
	}
	return 0;
}
