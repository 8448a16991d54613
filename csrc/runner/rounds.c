/* rounds.c: the C runner's table of rounds (see rounds.h). */
#include "rounds.h"

const rbc_round rbc_rounds[] = {
    {"loop", rbc_run_loop},
    {"ffi", rbc_run_ffi},
    /* --- round chain (issue 5) --- */
    {"chain", rbc_run_chain},
    /* --- end round chain --- */
    {NULL, NULL},
};
