/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every part of xps-steer shares: exit codes, messages,
 * and file access below an optional root directory.
 *
 * Every path the tool reads or writes (/sys, /proc, /etc, /run) is taken
 * below $XPS_STEER_ROOT when it is set, so that the tests can run the tool
 * against a fake tree of files; unset, it is "/".
 */
#ifndef XPS_STEER_COMMON_H
#define XPS_STEER_COMMON_H

#include <stdbool.h>
#include <stddef.h>

/* Exit codes, documented in xps-steer(8). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* the system refused or an operation failed */
	EXIT_USAGE = 2,		/* bad arguments or a bad configuration file */
	EXIT_NODEV = 3,		/* no such device, or not managed */
	EXIT_VERIFY = 4,	/* verify: packets outside the map, or none seen */
};

/* Paths of the module's and the kernel's interfaces, below the root. */
#define XS_SYSFS_DEVS	"/sys/kernel/xps_steer"
#define XS_SYSFS_MOD	"/sys/module/xps_steer"
#define XS_SYSFS_NET	"/sys/class/net"
#define XS_CONF_FILE	"/etc/xps-steer.conf"
#define XS_CONF_DIR	"/etc/xps-steer.d"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

extern const char *prog_name;
/* The command running ("set"), NULL before one is chosen. */
extern const char *cmd_name;

/* "xps-steer: CMD: ...", and "xps-steer: CMD: warning: ...", on stderr. */
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Is $XPS_STEER_ROOT a fake tree (set, and not "/")? */
bool fake_root(void);
/* root_path("/sys/...") - the path below $XPS_STEER_ROOT; free() it. */
char *root_path(const char *path);
char *root_pathf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * read_text(path, &text) - the whole file below the root, NUL-terminated;
 * 0 or -errno (text is NULL then). Paths are absolute ("/sys/...").
 */
int read_text(const char *path, char **text);
/* read_line: the first line of the file, without its newline. */
int read_line(const char *path, char **line);
/* write_text: one write(2) of text; 0 or -errno (the kernel's answer). */
int write_text(const char *path, const char *text);
bool path_exists(const char *path);

/* The rule valid_ifname() checks, for messages. */
#define IFNAME_RULE "1 to 15 characters, not . or .., no '/', ':', ',' or blanks"
/*
 * A name the kernel takes for an interface (its dev_valid_name()), and
 * no ',', which separates the names of the module's dev= list.
 */
bool valid_ifname(const char *name);
/*
 * A command's interface name operand: EXIT_OK, or EXIT_USAGE after
 * saying why not (before anything is read or written for it).
 */
int check_ifname(const char *name);
/* check_ifname() for each of n names; every bad one is reported. */
int check_ifnames(int n, char *const *names);
/* The target of a symlink's last component ("virtio_net"), or NULL. */
char *link_basename(const char *path);

#endif
