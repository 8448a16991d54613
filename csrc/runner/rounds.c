/* rounds.c: the C runner's table of rounds (see rounds.h). */
#include "rounds.h"

const rbc_round rbc_rounds[] = {
    {"loop", rbc_run_loop},
    {"ffi", rbc_run_ffi},
    /* round http */
    {"http-serve", rbc_run_http_serve},
    {"http-parse", rbc_run_http_parse},
    {NULL, NULL},
};
