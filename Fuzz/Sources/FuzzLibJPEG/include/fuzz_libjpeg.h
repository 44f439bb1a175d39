#ifndef FUZZ_LIBJPEG_H
#define FUZZ_LIBJPEG_H
/* The chunked JPEG fuzzer's witness: plain libjpeg-turbo, no Imago code, so that the question
 * "does libjpeg-turbo itself decode this input differently depending on how its input is cut?"
 * is never answered by the code under test. */
#include <stddef.h>
#include <stdint.h>

typedef struct fuzz_libjpeg_result {
    int decoded;             /* 1: output complete; 0: libjpeg failed (an error, not a warning) */
    uint64_t hash;           /* FNV-1a of every output sample (RGB, or CMYK for 4 components) */
    int damage_warnings;     /* libjpeg's corrupt-data warnings (bad Huffman code, extraneous
                              * bytes, premature end of data segment, …) */
    int arithmetic;          /* arithmetic-coded: libjpeg cannot suspend inside its scans */
} fuzz_libjpeg_result;

/* Decodes `data` through a suspending source that reveals it up to each of the `count`
 * increasing offsets in `cuts` in turn, then all of it (count 0: all at once, as from memory). */
fuzz_libjpeg_result fuzz_libjpeg_decode(const uint8_t *data, size_t size, const size_t *cuts, size_t count);

#endif
