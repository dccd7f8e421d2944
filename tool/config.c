// SPDX-License-Identifier: GPL-2.0
/*
 * Read /etc/xps-steer.conf and /etc/xps-steer.d/<name>.conf
 * (or --config FILE) with inih, and find the rule for a device.
 *
 * inih's handler gets no line numbers (INI_HANDLER_LINENO is off in the
 * packaged library, and turning it on in our build would change the
 * handler's ABI), and it is not called for [section] lines. So we feed
 * inih through our own line reader (ini_parse_stream): it counts lines,
 * so the handler, which inih calls right after each line is read, knows
 * its line, and it notes section headers itself.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <ini.h>

#include "common.h"
#include "config.h"
#include "cpumask.h"

/*
 * Debian's libinih has run-time options (INI_RUNTIME_OPTIONS), among them
 * the line length, 200 by default: too short for the CPU lists of a big
 * machine (a map file line may be 4 KiB). Other builds lack the symbol.
 */
extern int ini_max_line __attribute__((weak));
#define CONF_MAX_LINE 4200

/* Keys a section may hold once each; tx-<n> lines are counted apart. */
enum {
	KEY_NAME = 1 << 0,
	KEY_MAC = 1 << 1,
	KEY_DRIVER = 1 << 2,
	KEY_PATH = 1 << 3,
	KEY_POLICY = 1 << 4,
	KEY_BACKEND = 1 << 5,
};

struct conf_error {
	int line;
	char *what;
};

/* One file being parsed. */
struct parse_ctx {
	struct config *conf;
	const char *shown;		/* the file's name in messages */
	FILE *file;
	char *buf;			/* getline's buffer */
	size_t cap;
	int line;			/* of the line inih is handling */
	long cur;			/* the section's index in conf; -1 */
	bool in_bad_section;		/* after a broken [ line */
	unsigned int seen;		/* KEY_* given in this section */
	int policy_line, map_line;	/* first policy / tx-<n> line; 0 */
	struct conf_error *errs;
	size_t nerrs;
};

static void add_error(struct parse_ctx *ctx, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_error(struct parse_ctx *ctx, int line, const char *fmt, ...)
{
	struct conf_error *e;
	va_list ap;

	ctx->errs = xrealloc(ctx->errs, (ctx->nerrs + 1) * sizeof(*ctx->errs));
	e = &ctx->errs[ctx->nerrs++];
	e->line = line;
	va_start(ap, fmt);
	if (vasprintf(&e->what, fmt, ap) < 0)
		e->what = xstrdup("out of memory");
	va_end(ap);
}

static bool has_error_at(const struct parse_ctx *ctx, int line)
{
	for (size_t i = 0; i < ctx->nerrs; i++)
		if (ctx->errs[i].line == line)
			return true;
	return false;
}

static int cmp_error(const void *a, const void *b)
{
	const struct conf_error *x = a, *y = b;

	return x->line - y->line;
}

/* Report in file order: inih's syntax error is known only at the end. */
static void report_errors(struct parse_ctx *ctx)
{
	qsort(ctx->errs, ctx->nerrs, sizeof(*ctx->errs), cmp_error);
	for (size_t i = 0; i < ctx->nerrs; i++) {
		err_msg("%s:%d: %s", ctx->shown, ctx->errs[i].line,
			ctx->errs[i].what);
		free(ctx->errs[i].what);
	}
	free(ctx->errs);
	ctx->errs = NULL;
	ctx->nerrs = 0;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[\\");
}

/* A section ends: check that it says how to steer. */
static void finish_section(struct parse_ctx *ctx)
{
	struct conf_device *d;

	if (ctx->cur < 0)
		return;
	d = &ctx->conf->devs[ctx->cur];
	/* A bad policy or tx-<n> line has had its message already. */
	if (!ctx->policy_line && !ctx->map_line)
		add_error(ctx, d->line,
			  "[%s]: neither a policy nor tx-<n> lines: say how to steer (policy = cache, or tx-0 = 0-3 ...)",
			  d->section);
	/* A name without a pattern goes into dev=: one bad entry fails it all. */
	if (d->match_name && !has_glob(d->match_name) &&
	    !valid_ifname(d->match_name))
		add_error(ctx, d->line,
			  "[%s]: name = %s is not an interface name (" IFNAME_RULE ")",
			  d->section, d->match_name);
	if (!d->match_name && !d->match_mac && !d->match_driver &&
	    !d->match_bus_id) {
		/* The name is the interface name: catch [eth*] and typos early. */
		if (has_glob(d->section))
			add_error(ctx, d->line,
				  "[%s]: without name, mac, driver or path the section name is an interface name, taken literally; for a pattern write name = %s",
				  d->section, d->section);
		else if (!valid_ifname(d->section))
			add_error(ctx, d->line,
				  "[%s]: without name, mac, driver or path the section name is the interface name, and this is not one ("
				  IFNAME_RULE ")", d->section);
	}
	ctx->cur = -1;
}

static void start_section(struct parse_ctx *ctx, const char *name, size_t len)
{
	struct config *conf = ctx->conf;
	struct conf_device *d;

	finish_section(ctx);
	ctx->in_bad_section = false;
	ctx->seen = 0;
	ctx->policy_line = 0;
	ctx->map_line = 0;
	while (len && isspace((unsigned char)*name)) {
		name++;
		len--;
	}
	while (len && isspace((unsigned char)name[len - 1]))
		len--;
	if (!len) {
		add_error(ctx, ctx->line, "empty section name");
		ctx->in_bad_section = true;
		return;
	}
	conf->devs = xrealloc(conf->devs, (conf->n + 1) * sizeof(*conf->devs));
	d = &conf->devs[conf->n];
	memset(d, 0, sizeof(*d));
	d->section = xasprintf("%.*s", (int)len, name);
	d->file = xstrdup(ctx->shown);
	d->line = ctx->line;
	d->backend = PREF_AUTO;
	ctx->cur = conf->n++;
}

/*
 * inih's line reader. Leading blanks are dropped: inih would take an
 * indented line for the continuation of the previous value (multi-line
 * values, on in the packaged library), and an indented "tx-1 = 2" read
 * as part of "tx-0"'s list is a trap.
 */
static char *read_config_line(char *str, int num, void *stream)
{
	struct parse_ctx *ctx = stream;
	ssize_t len = getline(&ctx->buf, &ctx->cap, ctx->file);
	char *line = ctx->buf;

	if (len < 0)
		return NULL;
	ctx->line++;
	if (ctx->line == 1 && !strncmp(line, "\xef\xbb\xbf", 3))
		line += 3;	/* a UTF-8 byte order mark */
	while (*line && *line != '\n' && isspace((unsigned char)*line))
		line++;
	if (*line == '[') {
		char *end = strchr(line, ']');

		if (end) {
			start_section(ctx, line + 1, end - line - 1);
		} else {
			/* inih reports only its first syntax error: say it here. */
			add_error(ctx, ctx->line, "'[' without ']'");
			finish_section(ctx);
			ctx->in_bad_section = true;
		}
	}
	/* inih's buffer has a fixed size; a longer line would be split. */
	if (strlen(line) >= (size_t)num) {
		add_error(ctx, ctx->line, "line longer than %d characters",
			  num - 2);
		str[0] = '\0';
		return str;
	}
	strcpy(str, line);
	return str;
}

/* fnmatch patterns and names: no blanks (and so no "# comment"). */
static bool check_word(struct parse_ctx *ctx, const char *key,
		       const char *value)
{
	if (!*value) {
		add_error(ctx, ctx->line, "%s: empty value", key);
		return false;
	}
	for (const char *c = value; *c; c++) {
		if (isspace((unsigned char)*c)) {
			add_error(ctx, ctx->line, "%s: '%s' has blanks%s", key,
				  value, strchr(value, '#') ?
				  " (a comment after a value starts with ' ;')" : "");
			return false;
		}
	}
	return true;
}

/* xx:xx:...: hex byte pairs, as /sys/class/net/<dev>/address shows. */
static bool valid_mac(const char *s)
{
	for (;;) {
		if (!isxdigit((unsigned char)s[0]) ||
		    !isxdigit((unsigned char)s[1]))
			return false;
		s += 2;
		if (!*s)
			return true;
		if (*s++ != ':')
			return false;
	}
}

/* "tx-<n>": decimal, no leading zero, as the module spells it. */
static bool parse_tx_key(const char *key, unsigned int *index)
{
	unsigned long n;
	char *end;

	if (strncasecmp(key, "tx-", 3) || !isdigit((unsigned char)key[3]) ||
	    (key[3] == '0' && key[4]))
		return false;
	n = strtoul(key + 3, &end, 10);
	if (*end || n > 65535)
		return false;
	*index = n;
	return true;
}

static void set_once(struct parse_ctx *ctx, unsigned int bit, const char *key,
		     char **field, const char *value)
{
	if (ctx->seen & bit) {
		add_error(ctx, ctx->line, "%s given twice in this section", key);
		return;
	}
	ctx->seen |= bit;
	if (check_word(ctx, key, value))
		*field = xstrdup(value);
}

static void add_map_line(struct parse_ctx *ctx, struct conf_device *d,
			 unsigned int index, const char *value)
{
	hwloc_bitmap_t cpus;

	for (size_t i = 0; i < d->nmap; i++) {
		if (d->map[i].index == index) {
			add_error(ctx, ctx->line,
				  "tx-%u given twice in this section", index);
			return;
		}
	}
	cpus = hwloc_bitmap_alloc();
	if (cpulist_parse(strcasecmp(value, "none") ? value : "", cpus)) {
		add_error(ctx, ctx->line,
			  "tx-%u: '%s' is not a CPU list (like 0-3,8; none for no CPU)",
			  index, value);
		hwloc_bitmap_free(cpus);
		return;
	}
	d->map = xrealloc(d->map, (d->nmap + 1) * sizeof(*d->map));
	d->map[d->nmap].index = index;
	d->map[d->nmap++].cpus = cpus;
}

static void set_policy(struct parse_ctx *ctx, struct conf_device *d,
		       const char *value)
{
	if (ctx->seen & KEY_POLICY) {
		add_error(ctx, ctx->line, "policy given twice in this section");
		return;
	}
	ctx->seen |= KEY_POLICY;
	if (policy_parse(value, &d->policy)) {
		add_error(ctx, ctx->line,
			  "policy: '%s' is not one of one-to-one, cache, numa, irq",
			  value);
		return;
	}
	d->has_policy = true;
}

static void set_backend(struct parse_ctx *ctx, struct conf_device *d,
			const char *value)
{
	if (ctx->seen & KEY_BACKEND) {
		add_error(ctx, ctx->line, "backend given twice in this section");
		return;
	}
	ctx->seen |= KEY_BACKEND;
	if (!strcmp(value, "auto"))
		d->backend = PREF_AUTO;
	else if (!strcmp(value, "module"))
		d->backend = PREF_MODULE;
	else if (!strcmp(value, "kernel"))
		d->backend = PREF_KERNEL;
	else
		add_error(ctx, ctx->line,
			  "backend: '%s' is not one of auto, module, kernel",
			  value);
}

/* Errors are collected, not returned: inih would only keep the first. */
static int handle_key(void *user, const char *section, const char *key,
		      const char *value)
{
	struct parse_ctx *ctx = user;
	struct conf_device *d;
	unsigned int index;

	(void)section;	/* ours is ctx->cur: inih cuts names at 50 bytes */
	if (ctx->in_bad_section)
		return 1;
	if (ctx->cur < 0) {
		add_error(ctx, ctx->line,
			  "%s: outside a section ([name] first)", key);
		return 1;
	}
	d = &ctx->conf->devs[ctx->cur];
	if (!strcasecmp(key, "name")) {
		set_once(ctx, KEY_NAME, "name", &d->match_name, value);
	} else if (!strcasecmp(key, "mac")) {
		set_once(ctx, KEY_MAC, "mac", &d->match_mac, value);
		if (d->match_mac && !valid_mac(d->match_mac)) {
			add_error(ctx, ctx->line,
				  "mac: '%s' is not an address like 52:54:00:12:34:56",
				  value);
			free(d->match_mac);
			d->match_mac = NULL;
		}
	} else if (!strcasecmp(key, "driver")) {
		set_once(ctx, KEY_DRIVER, "driver", &d->match_driver, value);
	} else if (!strcasecmp(key, "path")) {
		set_once(ctx, KEY_PATH, "path", &d->match_bus_id, value);
	} else if (!strcasecmp(key, "backend")) {
		set_backend(ctx, d, value);
	} else if (!strcasecmp(key, "policy")) {
		if (ctx->map_line)
			add_error(ctx, ctx->line,
				  "policy and tx-<n> lines cannot be mixed (tx-<n> at line %d)",
				  ctx->map_line);
		else
			set_policy(ctx, d, value);
		if (!ctx->policy_line)
			ctx->policy_line = ctx->line;
	} else if (parse_tx_key(key, &index)) {
		if (ctx->policy_line)
			add_error(ctx, ctx->line,
				  "policy and tx-<n> lines cannot be mixed (policy at line %d)",
				  ctx->policy_line);
		else
			add_map_line(ctx, d, index, value);
		if (!ctx->map_line)
			ctx->map_line = ctx->line;
	} else if (!strncasecmp(key, "tx-", 3)) {
		add_error(ctx, ctx->line,
			  "'%s' is not a queue (tx-<n>: n in decimal, no leading zero, at most 65535)",
			  key);
	} else {
		add_error(ctx, ctx->line,
			  "unknown key '%s' (name, mac, driver, path, policy, backend, tx-<n>)",
			  key);
	}
	return 1;
}

/*
 * Parse one file into conf. path is opened as given (full: below the
 * root already, or a --config argument); shown names it in messages.
 * 0, -EINVAL after reporting errors, or -errno when it cannot be read.
 */
static int parse_file(struct config *conf, const char *path,
		      const char *shown, bool must_exist)
{
	struct parse_ctx ctx = {
		.conf = conf, .shown = shown, .cur = -1,
	};
	int ret;

	ctx.file = fopen(path, "re");
	if (!ctx.file) {
		ret = -errno;
		if (ret == -ENOENT && !must_exist)
			return 0;
		err_msg("%s: cannot read (%s)", shown, strerror(-ret));
		return ret;
	}
	ret = ini_parse_stream(read_config_line, &ctx, handle_key, &ctx);
	if (ferror(ctx.file)) {
		ret = -errno;
		err_msg("%s: cannot read (%s)", shown, strerror(-ret));
	}
	finish_section(&ctx);
	/* inih's own finding: a line neither [section] nor key = value. */
	if (ret > 0 && !has_error_at(&ctx, ret))
		add_error(&ctx, ret, "syntax error: expected [section] or key = value");
	else if (ret == -2)
		add_error(&ctx, ctx.line, "out of memory");
	free(ctx.buf);
	fclose(ctx.file);
	if (ctx.nerrs) {
		report_errors(&ctx);
		return -EINVAL;
	}
	return ret < 0 ? ret : 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* XS_CONF_DIR/<name>.conf in name order (strcmp: no locale surprises). */
static int parse_dir(struct config *conf)
{
	char *dir = root_path(XS_CONF_DIR), **names = NULL;
	size_t n = 0, len;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d) {
		ret = errno == ENOENT ? 0 : -errno;
		if (ret)
			err_msg("%s: cannot read (%s)", XS_CONF_DIR,
				strerror(-ret));
		free(dir);
		return ret;
	}
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		/* Dot files are editors' and package managers' leftovers. */
		if (de->d_name[0] == '.' || len <= 5 ||
		    strcmp(de->d_name + len - 5, ".conf"))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);
		char *shown = xasprintf(XS_CONF_DIR "/%s", names[i]);
		struct stat st;
		int err;

		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			warn_msg("%s: not a regular file, skipped", shown);
			err = 0;
		} else {
			err = parse_file(conf, path, shown, true);
		}
		/* Go on: every file's errors are reported at once. */
		if (err && !ret)
			ret = err;
		free(shown);
		free(path);
		free(names[i]);
	}
	free(names);
	free(dir);
	return ret;
}

int config_load(struct config *conf, const char *path)
{
	int ret, err;

	memset(conf, 0, sizeof(*conf));
	if (&ini_max_line && ini_max_line < CONF_MAX_LINE)
		ini_max_line = CONF_MAX_LINE;
	if (path) {
		ret = parse_file(conf, path, path, true);
	} else {
		char *full = root_path(XS_CONF_FILE);

		ret = parse_file(conf, full, XS_CONF_FILE, false);
		free(full);
		err = parse_dir(conf);
		if (!ret)
			ret = err;
	}
	if (ret)
		config_free(conf);
	return ret;
}

void config_free(struct config *conf)
{
	for (size_t i = 0; i < conf->n; i++) {
		struct conf_device *d = &conf->devs[i];

		free(d->section);
		free(d->file);
		free(d->match_name);
		free(d->match_mac);
		free(d->match_driver);
		free(d->match_bus_id);
		for (size_t q = 0; q < d->nmap; q++)
			hwloc_bitmap_free(d->map[q].cpus);
		free(d->map);
	}
	free(conf->devs);
	memset(conf, 0, sizeof(*conf));
}

static bool rule_matches(const struct conf_device *rule,
			 const struct device *dev)
{
	/* Its name now: a rule follows the interface, not the dev= entry. */
	const char *ifname = dev->ifname ? dev->ifname : dev->name;

	if (!rule->match_name && !rule->match_mac && !rule->match_driver &&
	    !rule->match_bus_id)
		return !strcmp(rule->section, ifname);
	if (rule->match_name && fnmatch(rule->match_name, ifname, 0))
		return false;
	if (rule->match_mac &&
	    (!dev->mac || strcasecmp(rule->match_mac, dev->mac)))
		return false;
	if (rule->match_driver &&
	    (!dev->driver || fnmatch(rule->match_driver, dev->driver, 0)))
		return false;
	if (rule->match_bus_id &&
	    (!dev->bus_id || fnmatch(rule->match_bus_id, dev->bus_id, 0)))
		return false;
	return true;
}

const struct conf_device *config_match(const struct config *conf,
				       const struct device *dev)
{
	/* The last match wins: later files and sections override. */
	for (size_t i = conf->n; i-- > 0;)
		if (rule_matches(&conf->devs[i], dev))
			return &conf->devs[i];
	return NULL;
}

const char *conf_fixed_name(const struct conf_device *rule)
{
	if (rule->match_mac || rule->match_driver || rule->match_bus_id)
		return NULL;
	if (!rule->match_name)
		return rule->section;
	return has_glob(rule->match_name) ? NULL : rule->match_name;
}

bool config_pattern_only(const struct config *conf, const char *name)
{
	bool matched = false;

	for (size_t i = 0; i < conf->n; i++) {
		const struct conf_device *rule = &conf->devs[i];
		const char *fixed = conf_fixed_name(rule);

		if (fixed && !strcmp(fixed, name))
			return false;
		if (rule->match_name && has_glob(rule->match_name) &&
		    rule->backend != PREF_KERNEL &&
		    !fnmatch(rule->match_name, name, 0))
			matched = true;
	}
	return matched;
}

size_t config_max_line(void)
{
	/* read_config_line takes strlen(line) < num, newline included. */
	return (&ini_max_line ? (size_t)ini_max_line : INI_MAX_LINE) - 2;
}
