// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_names - libFuzzer harness for the dev= device-list parser
 * (src/names.c, compiled unchanged against the shims in include/linux/,
 * whose dev_valid_name() has the kernel's v6.1 rules).
 *
 * The input, up to its first NUL byte (a module parameter is a C string),
 * is the list. The module's parser is compared with a reference model
 * written from the documented rules (docs/usage.md, docs/bad-input.md
 * rows P01-P20 and R08-R10), entry by entry:
 *
 *   the empty text is the empty list; otherwise the entries are what lies
 *   between commas, in order. An entry whose first ':' is not followed by
 *   exactly "guard" refuses the list (a bad mode); an entry ending in
 *   ":guard" is its name asked in guard mode, the name being what comes
 *   before. The first entry whose name is empty, 16 bytes or longer, "."
 *   or "..", or holds '/' or white space (the kernel's isspace(): also
 *   0xa0), or equals an earlier one's name, or would be the 33rd, refuses
 *   the whole list with EINVAL, with that reason, pointing at that entry.
 *   Otherwise the list is the names, in order, each with its mode.
 *
 * Also checked: a refused list leaves no names; a list printed back as
 * dev= prints it (names joined by commas, ":guard" after those asked in
 * guard mode) parses to itself. Any
 * difference aborts (a finding); AddressSanitizer catches any access
 * outside the text (its NUL included), UBSan any overflow.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

static size_t text_len;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz_names: FAIL: %s: ", #cond); \
			fprintf(stderr, __VA_ARGS__);			\
			fprintf(stderr, " (%zu bytes of text)\n", text_len); \
			abort();					\
		}							\
	} while (0)

struct model {
	unsigned int nr;
	size_t start[XPS_STEER_MAX_DEVS], len[XPS_STEER_MAX_DEVS];
	bool guard[XPS_STEER_MAX_DEVS];
	enum xps_steer_names_fault fault;
	size_t bad;		/* offset of the bad entry */
};

static int bad_char(unsigned char c)
{
	return c == '/' || c == ':' || c == ' ' || (c >= '\t' && c <= '\r') ||
	       c == 0xa0;
}

static const char guard_suffix[] = ":guard";

/*
 * The entry at start, len bytes long; its name's length in *name_len and
 * its mode in *guard.
 */
static enum xps_steer_names_fault model_entry(const char *text, size_t start,
					      size_t len, const struct model *m,
					      size_t *name_len, bool *guard)
{
	const char *p = text + start;
	const char *colon = memchr(p, ':', len);
	unsigned int i;
	size_t k;

	*guard = false;
	if (colon) {
		size_t rest = len - (size_t)(colon - p);

		if (rest != sizeof(guard_suffix) - 1 ||
		    memcmp(colon, guard_suffix, rest))
			return XPS_STEER_NAMES_BAD_MODE;
		len = (size_t)(colon - p);
		*guard = true;
	}
	*name_len = len;
	if (!len)
		return XPS_STEER_NAMES_EMPTY;
	if (len >= 16)
		return XPS_STEER_NAMES_TOO_LONG;
	if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
		return XPS_STEER_NAMES_INVALID;
	for (k = 0; k < len; k++)
		if (bad_char((unsigned char)p[k]))
			return XPS_STEER_NAMES_INVALID;
	for (i = 0; i < m->nr; i++)
		if (m->len[i] == len && !memcmp(text + m->start[i], p, len))
			return XPS_STEER_NAMES_TWICE;
	if (m->nr == XPS_STEER_MAX_DEVS)
		return XPS_STEER_NAMES_TOO_MANY;
	return XPS_STEER_NAMES_OK;
}

static void model_parse(const char *text, struct model *m)
{
	size_t start = 0, end, name_len;
	bool guard;

	memset(m, 0, sizeof(*m));
	if (!*text)
		return;
	for (;;) {
		for (end = start; text[end] && text[end] != ','; end++)
			;
		m->fault = model_entry(text, start, end - start, m, &name_len,
				       &guard);
		if (m->fault != XPS_STEER_NAMES_OK) {
			m->bad = start;
			m->nr = 0;
			return;
		}
		m->start[m->nr] = start;
		m->guard[m->nr] = guard;
		m->len[m->nr++] = name_len;
		if (!text[end])
			return;
		start = end + 1;
	}
}

/* The module's parser on a fresh, exactly sized copy of text. */
static int parse(const char *text, struct xps_steer_names *list,
		 struct xps_steer_names_err *err, char **copy)
{
	*copy = strdup(text);
	CHECK(*copy, "out of memory");
	memset(list, 0x5a, sizeof(*list));	/* no stale names may pass */
	return xps_steer_names_parse(list, *copy, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct xps_steer_names list, again;
	struct xps_steer_names_err err, err2;
	char *text, *copy, *copy2, *printed;
	struct model m;
	unsigned int i;
	size_t at = 0;
	int ret;

	text_len = strnlen((const char *)data, size > 4096 ? 4096 : size);
	text = malloc(text_len + 1);
	CHECK(text, "out of memory");
	memcpy(text, data, text_len);
	text[text_len] = '\0';

	model_parse(text, &m);
	ret = parse(text, &list, &err, &copy);
	CHECK(ret == (m.fault == XPS_STEER_NAMES_OK ? 0 : -EINVAL),
	      "returned %d, the model's fault is %d", ret, m.fault);
	CHECK(err.fault == m.fault, "fault %d, the model's %d", err.fault, m.fault);
	if (m.fault != XPS_STEER_NAMES_OK) {
		CHECK(err.entry && (size_t)(err.entry - copy) == m.bad,
		      "bad entry at offset %td, the model's at %zu",
		      err.entry ? err.entry - copy : (ptrdiff_t)-1, m.bad);
		CHECK(list.nr == 0, "a refused list left %u names", list.nr);
		goto out;
	}
	CHECK(list.nr == m.nr, "%u names, the model has %u", list.nr, m.nr);
	for (i = 0; i < m.nr; i++)
		CHECK(strlen(list.name[i]) == m.len[i] &&
		      !memcmp(list.name[i], text + m.start[i], m.len[i]),
		      "name %u is '%s', the model's '%.*s'", i, list.name[i],
		      (int)m.len[i], text + m.start[i]);
	for (i = 0; i < m.nr; i++)
		CHECK(list.guard[i] == m.guard[i], "name %u: guard %d, the model's %d",
		      i, list.guard[i], m.guard[i]);

	/* Printed back as reading dev= prints it, it parses to itself. */
	printed = calloc(1, (size_t)XPS_STEER_MAX_DEVS *
			 (IFNAMSIZ + sizeof(guard_suffix)) + 1);
	CHECK(printed, "out of memory");
	for (i = 0; i < list.nr; i++)
		at += (size_t)sprintf(printed + at, "%s%s%s", i ? "," : "",
				      list.name[i],
				      list.guard[i] ? guard_suffix : "");
	CHECK(parse(printed, &again, &err2, &copy2) == 0 && again.nr == list.nr &&
	      !memcmp(again.name, list.name, sizeof(list.name[0]) * list.nr) &&
	      !memcmp(again.guard, list.guard, sizeof(list.guard[0]) * list.nr),
	      "'%s' does not parse back to the same list", printed);
	free(copy2);
	free(printed);
out:
	free(copy);
	free(text);
	return 0;
}
