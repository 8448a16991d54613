/* rounds.h: the C runner's table of rounds; each round's glue is
 * csrc/runner/run_<round>.c. Add a round here and in rounds.c. */
#ifndef RBC_ROUNDS_H
#define RBC_ROUNDS_H

#include "harness.h"

int rbc_run_loop(const rbc_args *a);
int rbc_run_ffi(const rbc_args *a);
/* ---- issue 3 ---- */
int rbc_run_matmul(const rbc_args *a);
int rbc_run_temps(const rbc_args *a);
/* ---- end issue 3 ---- */
/* round http (the server the round's driver loads) */
int rbc_run_http_serve(const rbc_args *a);
int rbc_run_http_parse(const rbc_args *a);
/* --- round chain (issue 5) --- */
int rbc_run_chain(const rbc_args *a);
/* --- end round chain --- */
/* round jsonl */
int rbc_run_jsonl(const rbc_args *a);
/* issue 5: sleep, cores */
int rbc_run_sleep(const rbc_args *a);
int rbc_run_cores(const rbc_args *a);
/* round startup (run_startup.c) */
int rbc_run_startup(const rbc_args *a);
/* end round startup */

extern const rbc_round rbc_rounds[];

#endif
