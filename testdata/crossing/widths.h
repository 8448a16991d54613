/* widths.h: a header for roundbench crossing's --header tests
 * (tests/test_crossing_bindings.py). Its type names depend on macros, as
 * zlib's do on zconf.h's: count_t is 32 bits unless the compiler is given
 * -DWIDE_COUNTS, len_t is size_t under a standard C compiler, and the
 * prototypes carry API and CONST, macros of this header. Only the
 * preprocessor can tell what each name is. */
#ifndef WIDTHS_H
#define WIDTHS_H

#include <stddef.h>
#include <stdint.h>

#define API extern
#define CONST const

#ifdef WIDE_COUNTS
typedef uint64_t count_t;
#else
typedef uint32_t count_t;
#endif

#ifdef __STDC__
typedef size_t len_t;
#else
typedef unsigned int len_t;
#endif

typedef unsigned char byte_t;
typedef CONST byte_t *bytes_t;
typedef unsigned int small_len_t;
typedef struct point {
    int x, y;
} point_t;
typedef int (*callback_t)(int);

API count_t widths_sum(CONST byte_t *p, len_t n);

#endif
