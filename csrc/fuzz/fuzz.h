/* fuzz.h: what the libFuzzer targets of csrc/fuzz/ share.
 *
 * Each target is built with clang's libFuzzer, AddressSanitizer and
 * UndefinedBehaviorSanitizer (`make fuzz`, Makefile "Fuzzing"). A target
 * checks the invariants of the parser it drives and calls FUZZ_CHECK,
 * which prints what broke and aborts: libFuzzer then saves the input as a
 * crash file, and `make test` fails on it once it is in the corpus. */
#ifndef RB_FUZZ_H
#define RB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant broken: ", __FILE__, __LINE__);                      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* A small deterministic generator (splitmix64) for the choices a target
 * derives from the input's first bytes (split points, piece counts): the
 * same input always makes the same choices, so a saved crash replays. */
static inline uint64_t fuzz_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* A copy of data[0, n) in a heap block of exactly n bytes (at least one
 * byte is allocated, never read when n == 0): AddressSanitizer's red zone
 * begins right at data + n, so a read past the end is caught. */
static inline uint8_t *fuzz_exact_copy(const uint8_t *data, size_t n, size_t offset)
{
    uint8_t *block = malloc(offset + n ? offset + n : 1);
    if (!block)
        abort();
    for (size_t i = 0; i < n; i++)
        block[offset + i] = data[i];
    return block;
}

#endif
