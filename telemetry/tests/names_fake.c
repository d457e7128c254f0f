// SPDX-License-Identifier: MIT
/*
 * names_fake - `saccctl names --json` for test_names.py, from hw/names.c
 * built with SACC_HW_NAMES_TEST: the table holds one more opcode, which
 * the Python tools must then name without being told anywhere else.
 */
#include "sacc_hw_names.h"

int main(void)
{
	return sacc_hw_names_json(stdout) ? 1 : 0;
}
