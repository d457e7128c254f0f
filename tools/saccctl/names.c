// SPDX-License-Identifier: MIT
/*
 * saccctl names - the names of the hardware's numbers (hw/names.c):
 * opcodes, completion statuses, ERR_CODE values and fault access codes.
 * --json is what the Python tools read, so they name a number the way
 * the C code does without a table of their own.
 */
#include <getopt.h>
#include <stdbool.h>

#include "sacc_hw_names.h"
#include "saccctl.h"

void usage_names(FILE *f)
{
	fputs("usage: saccctl names [--json]\n"
	      "The names of SACC's numbers: opcodes, completion statuses,\n"
	      "ERR_CODE values, fault access codes (hw/names.c).\n"
	      "  --json   one JSON object (telemetry/tools read it)\n",
	      f);
}

static void row(unsigned int num, const char *name, const char *text,
		void *arg)
{
	printf("  %3u  %-14s %s\n", num, name ? name : "-", text);
}

static void table(const char *title, enum sacc_hw_table which)
{
	printf("%s:\n", title);
	sacc_hw_names_each(which, row, NULL);
}

int cmd_names(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool json = false;
	int ch;

	while ((ch = cmd_getopt(argc, argv, "h", lo, usage_names)) != -1) {
		switch (ch) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage_names(stdout);
			return EXIT_OK;
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return usage_error(usage_names, "names",
				   "unexpected argument '%s'", argv[optind]);
	if (json)
		return sacc_hw_names_json(stdout) ? EXIT_FAIL : EXIT_OK;
	table("opcodes", SACC_HW_OPCODES);
	table("completion statuses", SACC_HW_STATUSES);
	table("ERR_CODE", SACC_HW_ERR_CODES);
	table("fault access codes", SACC_HW_FAULT_ACCESSES);
	return EXIT_OK;
}
