/* rounds.c: the C runner's table of rounds (see rounds.h). */
#include "rounds.h"

const rbc_round rbc_rounds[] = {
    {"loop", rbc_run_loop},
    {"ffi", rbc_run_ffi},
    /* issue 5: sleep, cores */
    {"sleep", rbc_run_sleep},
    {"cores", rbc_run_cores},
    {NULL, NULL},
};
