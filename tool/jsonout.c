// SPDX-License-Identifier: GPL-2.0
/* --json output helpers over json-c. */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "cpumask.h"
#include "jsonout.h"

void json_emit(struct json_object *obj)
{
	puts(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_SPACED |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(obj);
}

struct json_object *json_cpulist(hwloc_const_bitmap_t set)
{
	char *list = cpulist_format(set);
	struct json_object *s = json_object_new_string(list);

	free(list);
	return s;
}

struct json_object *json_cpu_array(hwloc_const_bitmap_t set)
{
	struct json_object *arr = json_object_new_array();
	int cpu;

	hwloc_bitmap_foreach_begin(cpu, set)
		json_object_array_add(arr, json_object_new_int(cpu));
	hwloc_bitmap_foreach_end();
	return arr;
}
