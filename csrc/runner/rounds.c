/* rounds.c: the C runner's table of rounds (see rounds.h). */
#include "rounds.h"

const rbc_round rbc_rounds[] = {
    {"loop", rbc_run_loop},
    {"ffi", rbc_run_ffi},
    /* ---- issue 3 ---- */
    {"matmul", rbc_run_matmul},
    {"temps", rbc_run_temps},
    /* ---- end issue 3 ---- */
    /* round http */
    {"http-serve", rbc_run_http_serve},
    {"http-parse", rbc_run_http_parse},
    /* --- round chain (issue 5) --- */
    {"chain", rbc_run_chain},
    /* --- end round chain --- */
    /* round jsonl */
    {"jsonl", rbc_run_jsonl},
    /* issue 5: sleep, cores */
    {"sleep", rbc_run_sleep},
    {"cores", rbc_run_cores},
    {"startup", rbc_run_startup}, /* round startup */
    {NULL, NULL},
};
