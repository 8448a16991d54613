/* rounds.h: the C runner's table of rounds; each round's glue is
 * csrc/runner/run_<round>.c. Add a round here and in rounds.c. */
#ifndef RBC_ROUNDS_H
#define RBC_ROUNDS_H

#include "harness.h"

int rbc_run_loop(const rbc_args *a);
int rbc_run_ffi(const rbc_args *a);
/* round startup (run_startup.c) */
int rbc_run_startup(const rbc_args *a);
/* end round startup */

extern const rbc_round rbc_rounds[];

#endif
