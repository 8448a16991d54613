/* rounds.c: the C runner's table of rounds (see rounds.h). */
#include "rounds.h"

const rbc_round rbc_rounds[] = {
    {"loop", rbc_run_loop},
    {"ffi", rbc_run_ffi},
    {"startup", rbc_run_startup}, /* round startup */
    {NULL, NULL},
};
