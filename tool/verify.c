// SPDX-License-Identifier: GPL-2.0
/*
 * `xps-steer verify`: which CPU sent how many packets on which
 * queue, live, and whether that matches the map.
 *
 * The kernel's net/net_dev_start_xmit tracepoint records every packet
 * handed to a driver with the CPU that sent it and its queue, the same
 * oracle the test suite uses. It is recorded in a trace instance of our
 * own, so a tracer someone else runs is not disturbed, filtered to the
 * device. The module's counters over the same window tell how many packets
 * were left off the map on purpose (a socket keeping its queue, ...).
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "common.h"
#include "cpumask.h"
#include "device.h"
#include "jsonout.h"
#include "table.h"

struct capture {
	unsigned int ncpus, nqueues;
	unsigned long long *count;	/* ncpus * nqueues */
	unsigned long long total, lost;
};

static const char *tracefs_dir(void)
{
	if (path_exists("/sys/kernel/tracing/events/net/net_dev_start_xmit"))
		return "/sys/kernel/tracing";
	if (path_exists("/sys/kernel/debug/tracing/events/net/net_dev_start_xmit"))
		return "/sys/kernel/debug/tracing";
	return NULL;
}

/* Lines: "<task>-<pid> [<cpu>] <flags> <ts>: net_dev_start_xmit: dev=<if> queue_mapping=<q> ..." */
static void parse_trace(const char *text, const char *ifname,
			struct capture *cap)
{
	char *copy = xstrdup(text), *line, *save = NULL;
	char *want = xasprintf(" dev=%s ", ifname);

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long in_buf, written;
		unsigned int cpu, q;
		char *p, *ev;

		if (line[0] == '#') {
			p = strstr(line, "entries-in-buffer/entries-written:");
			if (p && sscanf(p, "entries-in-buffer/entries-written: %llu/%llu",
					&in_buf, &written) == 2 && written > in_buf)
				cap->lost += written - in_buf;
			continue;
		}
		/*
		 * The task name comes first and may hold anything ("[3]",
		 * "queue_mapping=2"): the CPU is the last [N] before the
		 * event's name, the fields come after it.
		 */
		ev = strstr(line, ": net_dev_start_xmit: ");
		if (!ev)
			continue;
		*ev = '\0';
		ev += strlen(": net_dev_start_xmit:");
		p = strrchr(line, '[');
		if (!p || sscanf(p, "[%u]", &cpu) != 1)
			continue;
		if (!strstr(ev, want))
			continue;
		p = strstr(ev, " queue_mapping=");
		if (!p || sscanf(p, " queue_mapping=%u", &q) != 1)
			continue;
		if (cpu >= cap->ncpus || q >= cap->nqueues)
			continue;
		cap->count[cpu * cap->nqueues + q]++;
		cap->total++;
	}
	free(want);
	free(copy);
}

static int tr_write(const char *dir, const char *file, const char *text)
{
	char *path = xasprintf("%s/%s", dir, file);
	int ret = write_text(path, text);

	free(path);
	return ret;
}

/*
 * The signal that interrupted the capture; 0: none. Set by the handler:
 * a lock-free atomic, which a handler may store to.
 */
static atomic_int caught;

static void on_signal(int sig)
{
	caught = sig;
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

/* Not sigabbrev_np(): glibc 2.32, and bullseye has 2.31. */
static const char *stop_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/*
 * Our PID namespace, in instance names: a PID says whether a verify is
 * still running only in the namespace it was taken in. This process's
 * own (/proc/self, not below a fake root, as kill() is not).
 */
static unsigned long pid_ns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) ? 0 : (unsigned long)st.st_ino;
}

/*
 * Instances a verify of this PID namespace left behind when it was
 * killed (SIGKILL, a crash: nothing ran to remove them), while the
 * tracepoint stays enabled in them: its PID is gone. Others are not ours
 * to judge.
 */
static void remove_stale_instances(const char *tr)
{
	char *dir = xasprintf("%s/instances", tr), *full = root_path(dir);
	char *prefix = xasprintf("xps-steer-verify-%lu-", pid_ns());
	struct dirent *de;
	DIR *d = opendir(full);

	while (d && (de = readdir(d))) {
		char *end, *path;
		long pid;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		pid = strtol(de->d_name + strlen(prefix), &end, 10);
		if (*end || pid <= 0 || pid == getpid() ||
		    !kill(pid, 0) || errno != ESRCH)
			continue;
		path = xasprintf("%s/%s", full, de->d_name);
		if (rmdir(path))
			warn_msg("cannot remove stale trace instance %s/%s (%s)",
				 dir, de->d_name, strerror(errno));
		else
			warn_msg("removed trace instance %s: its verify (PID %ld) was killed before it could",
				 de->d_name, pid);
		free(path);
	}
	if (d)
		closedir(d);
	free(prefix);
	free(full);
	free(dir);
}

/*
 * A fake tree (the tests) is no tracefs: a new instance gets the files
 * tracefs would give it, empty, so that the capture runs there too, and
 * loses them before its rmdir (tracefs removes an instance whole).
 */
static void fake_instance_files(const char *full, bool make)
{
	static const char *const dirs[] = {
		"events", "events/net", "events/net/net_dev_start_xmit",
	};
	static const char *const files[] = {
		"buffer_size_kb", "tracing_on", "trace",
		"events/net/net_dev_start_xmit/filter",
		"events/net/net_dev_start_xmit/enable",
	};
	char *path;

	for (size_t i = 0; make && i < ARRAY_SIZE(dirs); i++) {
		path = xasprintf("%s/%s", full, dirs[i]);
		mkdir(path, 0700);
		free(path);
	}
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		FILE *f;

		path = xasprintf("%s/%s", full, files[i]);
		if (!make) {
			unlink(path);
		} else {
			f = fopen(path, "we");
			if (f)
				fclose(f);
		}
		free(path);
	}
	for (size_t i = ARRAY_SIZE(dirs); !make && i-- > 0;) {
		path = xasprintf("%s/%s", full, dirs[i]);
		rmdir(path);
		free(path);
	}
}

/*
 * Sleep until the deadline or a stop signal. The signals are blocked
 * outside this wait (from before the instance is made until it is
 * removed), so none is lost between a check and the wait: ppoll takes
 * them only while it waits.
 */
static void wait_or_signal(unsigned int seconds, const sigset_t *waitmask)
{
	struct timespec end, now, left;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	while (!caught) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			return;
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		ppoll(NULL, 0, &left, waitmask);
	}
}

/*
 * Record SECONDS of the device's transmits into a trace instance. A
 * SIGINT, SIGTERM or SIGHUP meanwhile ends the recording: the instance
 * is removed here, in the main path (the handler only notes the signal),
 * then the signal is raised again with its default action, so that the
 * caller sees verify die of it. Signals ignored when verify started
 * (nohup) stay ignored.
 */
static int capture_live(const char *ifname, unsigned int seconds, char **trace)
{
	struct sigaction sa = { .sa_handler = on_signal }, old[3];
	const char *tr = tracefs_dir();
	sigset_t block, waitmask;
	char *inst, *full, *filter;
	int ret;

	if (!tr) {
		err_msg("%s: tracefs with net/net_dev_start_xmit not found (mount -t tracefs nodev /sys/kernel/tracing)",
			ifname);
		return -ENOENT;
	}
	sigemptyset(&block);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaddset(&block, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) {
		sigaction(stop_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(stop_signals[i], &sa, NULL);
	}
	remove_stale_instances(tr);
	inst = xasprintf("%s/instances/xps-steer-verify-%lu-%d", tr, pid_ns(),
			 (int)getpid());
	full = root_path(inst);
	if (mkdir(full, 0700)) {
		ret = -errno;
		err_msg("%s: cannot create trace instance %s (%s)", ifname, inst,
			strerror(errno));
		goto out;
	}
	if (fake_root())
		fake_instance_files(full, true);
	filter = xasprintf("name == \"%s\"\n", ifname);
	ret = tr_write(inst, "buffer_size_kb", "4096\n");
	if (!ret)
		ret = tr_write(inst, "events/net/net_dev_start_xmit/filter", filter);
	if (!ret)
		ret = tr_write(inst, "events/net/net_dev_start_xmit/enable", "1\n");
	free(filter);
	if (!ret) {
		fprintf(stderr, "%s: recording transmits for %u s...\n", ifname,
			seconds);
		wait_or_signal(seconds, &waitmask);
		tr_write(inst, "events/net/net_dev_start_xmit/enable", "0\n");
		tr_write(inst, "tracing_on", "0\n");
		if (!caught) {
			char *tpath = xasprintf("%s/trace", inst);

			ret = read_text(tpath, trace);
			free(tpath);
		}
	}
	if (ret)
		err_msg("%s: tracing failed (%s)", ifname, strerror(-ret));
	if (fake_root())
		fake_instance_files(full, false);
	if (rmdir(full))
		warn_msg("cannot remove trace instance %s (%s)", inst, strerror(errno));
	else if (caught)
		err_msg("%s: interrupted by %s: trace instance removed", ifname,
			stop_signal_name(caught));
out:
	free(full);
	free(inst);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &old[i], NULL);
	if (caught) {
		/* Pending while blocked: the default action when unblocked. */
		raise(caught);
		ret = -EINTR;
	}
	sigprocmask(SIG_SETMASK, &waitmask, NULL);
	return ret;
}

static unsigned long long stat_value(const struct device *dev, const char *name)
{
	for (size_t i = 0; i < dev->nstats; i++)
		if (!strcmp(dev->stats[i].name, name))
			return dev->stats[i].value;
	return 0;
}

/* Packets the module leaves off the map on purpose. */
static const char *const excused[] = {
	"kept_socket_queue", "traffic_class", "queue_inactive",
	"subordinate_device",
};

struct verdict {
	unsigned long long offmap;	/* from mapped CPUs, on other queues */
	unsigned long long unmapped;	/* from CPUs in no mask */
	unsigned long long allowed;	/* off the map on purpose (counters) */
};

/* The CPU's queues in the map (active ones). */
static void cpu_queues(const struct device *dev, unsigned int cpu,
		       hwloc_bitmap_t mine)
{
	hwloc_bitmap_zero(mine);
	for (unsigned int q = 0; q < dev->num_queues; q++)
		if (dev->queues[q].active &&
		    hwloc_bitmap_isset(dev->queues[q].cpus, cpu))
			hwloc_bitmap_set(mine, q);
}

/* One table row and one JSON entry per CPU that sent something. */
static void tabulate(const struct device *dev, const struct capture *cap,
		     struct table *t, struct json_object *rows,
		     struct verdict *v)
{
	unsigned int nq = cap->nqueues, ncols = nq + 3;
	char **cells = xcalloc(ncols, sizeof(*cells));
	hwloc_bitmap_t mine = hwloc_bitmap_alloc();

	table_init(t, ncols);
	cells[0] = xstrdup("cpu");
	for (unsigned int q = 0; q < nq; q++)
		cells[q + 1] = xasprintf("tx-%u", q);
	cells[nq + 1] = xstrdup("mapped");
	cells[nq + 2] = xstrdup("off-map");
	table_row(t, (const char *const *)cells);
	for (unsigned int k = 0; k < ncols; k++)
		free(cells[k]);
	for (unsigned int cpu = 0; cpu < cap->ncpus; cpu++) {
		const unsigned long long *count = cap->count + (size_t)cpu * nq;
		unsigned long long sent = 0, off = 0;
		struct json_object *j, *per_q;
		bool mapped;

		cpu_queues(dev, cpu, mine);
		mapped = !hwloc_bitmap_iszero(mine);
		for (unsigned int q = 0; q < nq; q++) {
			sent += count[q];
			if (mapped && !hwloc_bitmap_isset(mine, q))
				off += count[q];
		}
		if (!sent)
			continue;
		if (mapped)
			v->offmap += off;
		else
			v->unmapped += sent;
		per_q = json_object_new_array();
		cells[0] = xasprintf("%u", cpu);
		for (unsigned int q = 0; q < nq; q++) {
			cells[q + 1] = xasprintf("%llu", count[q]);
			json_object_array_add(per_q, json_object_new_uint64(count[q]));
		}
		if (mapped) {
			char *ql = cpulist_format(mine);

			cells[nq + 1] = xasprintf("tx-%s", ql);
			cells[nq + 2] = xasprintf("%llu", off);
			free(ql);
		} else {
			cells[nq + 1] = xstrdup("none");
			cells[nq + 2] = xstrdup("-");
		}
		j = json_object_new_object();
		json_object_object_add(j, "cpu", json_object_new_int(cpu));
		json_object_object_add(j, "packets", per_q);
		json_object_object_add(j, "mapped_queues", json_cpu_array(mine));
		json_object_object_add(j, "off_map", mapped ?
				       json_object_new_uint64(off) : NULL);
		json_object_array_add(rows, j);
		table_row(t, (const char *const *)cells);
		for (unsigned int k = 0; k < ncols; k++)
			free(cells[k]);
	}
	hwloc_bitmap_free(mine);
	free(cells);
}

static int read_trace_file(const char *ifname, const char *file, char **trace)
{
	FILE *f = fopen(file, "r");
	size_t len = 0;
	int err;

	*trace = NULL;
	err = f ? (getdelim(trace, &len, '\0', f) < 0 ? -EIO : 0) : -errno;
	if (f)
		fclose(f);
	if (err)
		err_msg("%s: cannot read %s (%s)", ifname, file, strerror(-err));
	return err;
}

static void report(const struct device *dev, const struct capture *cap,
		   const struct table *t, struct json_object *rows,
		   const struct verdict *v, int seconds, bool json, int ret,
		   const char *verdict)
{
	struct json_object *root;

	if (!json) {
		printf("%s (backend %s): %llu packets", dev->ifname,
		       dev_backend_name(dev->backend), cap->total);
		if (seconds > 0)
			printf(" in %d s", seconds);
		printf("; packets per CPU and transmit queue:\n");
		if (cap->total)
			table_print(t, stdout, "  ");
		if (cap->lost)
			printf("  %llu events lost (trace buffer full): counts are lower bounds\n",
			       cap->lost);
		printf("off the map: %llu; left off on purpose (module counters: socket kept its queue, traffic class, inactive queue, subordinate device): %llu; from CPUs in no mask (stock selection): %llu\n",
		       v->offmap, v->allowed, v->unmapped);
		printf("%s: %s\n", ret == EXIT_OK ? "ok" : "FAIL", verdict);
		json_object_put(rows);
		return;
	}
	root = json_object_new_object();
	json_object_object_add(root, "device", json_object_new_string(dev->ifname));
	json_object_object_add(root, "backend",
			       json_object_new_string(dev_backend_name(dev->backend)));
	json_object_object_add(root, "seconds", seconds > 0 ?
			       json_object_new_int(seconds) : NULL);
	json_object_object_add(root, "packets", json_object_new_uint64(cap->total));
	json_object_object_add(root, "lost_events", json_object_new_uint64(cap->lost));
	json_object_object_add(root, "off_map", json_object_new_uint64(v->offmap));
	json_object_object_add(root, "off_map_by_counters",
			       json_object_new_uint64(v->allowed));
	json_object_object_add(root, "from_unmapped_cpus",
			       json_object_new_uint64(v->unmapped));
	json_object_object_add(root, "ok", json_object_new_boolean(ret == EXIT_OK));
	json_object_object_add(root, "verdict", json_object_new_string(verdict));
	json_object_object_add(root, "cpus", rows);
	json_emit(root);
}

int cmd_verify(const struct cmd_args *a)
{
	const char *name = a->argv[0], *trace_file = a->trace, *verdict;
	struct device before, after;
	struct capture cap = { 0 };
	struct verdict v = { 0 };
	struct json_object *rows;
	struct table t;
	unsigned int seconds = 5;
	char *trace = NULL, *end;
	int err, ret;

	if (check_ifname(name))
		return EXIT_USAGE;
	if (a->argc == 2) {
		unsigned long s = strtoul(a->argv[1], &end, 10);

		if (*end || !s || s > 3600) {
			err_msg("%s: SECONDS must be 1 to 3600, not '%s'", name,
				a->argv[1]);
			return EXIT_USAGE;
		}
		seconds = s;
	}
	err = device_load(name, &before);
	if (err || before.backend == BACKEND_NONE) {
		err_msg("%s: no such device", name);
		device_free(&before);
		return err && err != -ENODEV ? EXIT_FAIL : EXIT_NODEV;
	}
	if (trace_file)
		err = read_trace_file(before.ifname, trace_file, &trace);
	else
		err = capture_live(before.ifname, seconds, &trace);
	if (err) {
		free(trace);
		device_free(&before);
		return EXIT_FAIL;
	}
	cap.ncpus = possible_cpus();
	cap.nqueues = before.num_queues;
	cap.count = xcalloc((size_t)cap.ncpus * cap.nqueues, sizeof(*cap.count));
	parse_trace(trace, before.ifname, &cap);
	free(trace);

	/* The counters over the window (a saved trace has no window). */
	memset(&after, 0, sizeof(after));
	if (!trace_file && before.backend == BACKEND_MODULE &&
	    !device_load(before.ifname, &after))
		for (size_t i = 0; i < ARRAY_SIZE(excused); i++)
			v.allowed += stat_value(&after, excused[i]) -
				     stat_value(&before, excused[i]);

	rows = json_object_new_array();
	tabulate(&before, &cap, &t, rows, &v);
	if (!cap.total) {
		verdict = "no packets seen: send traffic on the device while verify runs";
		ret = EXIT_VERIFY;
	} else if (v.offmap > v.allowed) {
		verdict = "packets off the map: steering is not in force for them";
		ret = EXIT_VERIFY;
	} else {
		verdict = "each mapped CPU's packets were on its queues, or off on purpose";
		ret = EXIT_OK;
	}
	report(&before, &cap, &t, rows, &v, trace_file ? -1 : (int)seconds,
	       a->json, ret, verdict);
	table_free(&t);
	free(cap.count);
	device_free(&after);
	device_free(&before);
	return ret;
}
