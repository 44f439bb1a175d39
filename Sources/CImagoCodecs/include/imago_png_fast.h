#ifndef IMAGO_PNG_FAST_H
#define IMAGO_PNG_FAST_H
/* The PNG fast paths (issue 27), for 8-bit RGB or RGBA, not interlaced, no tRNS or PLTE: a memory
 * input decoded at full size is inflated whole with libdeflate (imago_png_fast_decode); any other
 * (a file, a reduced size) row by row with ISA-L (imago_png_fast_rows_decode). Both unfilter with
 * SIMD, and both decline anything else and anything they doubt (a bad CRC, an unknown critical
 * chunk, an inflate error, a size mismatch, a filter byte above 4: png_fast_chunks.h);
 * imago_png_decode then decodes with libpng as before, so pixels and error kinds stay libpng's
 * (libpng writes every output row of a non-interlaced image, or fails). Their pixels equal
 * libpng's byte for byte (Scripts/png-fast-check, the fuzzer). */
#include "imago_common.h"

typedef enum imago_png_fast_mode {
    IMAGO_PNG_FAST_OFF = 0,      /* libpng only */
    IMAGO_PNG_FAST_SCALAR = 1,   /* fast path, plain C unfiltering */
    IMAGO_PNG_FAST_SIMD = 2      /* fast path, SSE2/SSE4.1 unfiltering where the CPU has it */
} imago_png_fast_mode;

/* The environment's choice: IMAGO_PNG_FAST=0 -> OFF, =scalar -> SCALAR, unset or anything
 * else -> SIMD (the default). Read on every call, so a process may switch it between decodes. */
imago_png_fast_mode imago_png_fast_mode_from_environment(void);

typedef enum imago_png_fast_result {
    IMAGO_PNG_FAST_DECODED = 0,    /* out holds the whole image */
    IMAGO_PNG_FAST_DECLINED = 1,   /* not handled (or out of memory); out untouched for RGBA,
                                      may hold inflated bytes for RGB (inflated in place) */
    IMAGO_PNG_FAST_CANCELLED = 2   /* control's cancel flag was seen between row batches */
} imago_png_fast_result;

/* Decodes a whole PNG file held in memory into out (width x height RGBA, RGB given alpha 0xff,
 * out_stride >= width * 4). Publishes rows to control (may be NULL). */
imago_png_fast_result imago_png_fast_decode(const uint8_t *data, size_t size, uint8_t *out, size_t out_stride,
                                            imago_png_fast_mode mode, imago_decode_control *control);

/* Bytes the fast path holds beyond the output while it decodes an image of this header read
 * from a memory input of input_size bytes: for RGBA the inflated rows ((1 + width*4) * height;
 * RGB rows are inflated into the output itself), the joined IDAT payloads (at most input_size),
 * a zero row and a copy of the last row. Saturates at UINT64_MAX. */
uint64_t imago_png_fast_working_bytes(uint32_t width, uint32_t height, int channels, size_t input_size);

/* The fast path row by row, for any input (memory, or a file read with pread(2) from the
 * descriptor's offset `start`, which it never moves) and any output size (out_w x out_h at most
 * the image's; a smaller one goes through the area-average resizer as libpng's rows do): the
 * file is read from its signature, its chunks judged as above, its IDAT data inflated with ISA-L
 * as it comes and each row unfiltered as soon as it is whole. It holds a few rows and ISA-L's
 * state (imago_png_fast_rows_working_bytes), never the image. DECLINED may come after rows were
 * written, since a CRC, the stream's Adler-32 and the chunks after the IDATs are seen last: the
 * caller then decodes with libpng, which writes every output row again or fails. */
imago_png_fast_result imago_png_fast_rows_decode(const imago_input *input, uint64_t start, uint8_t *out,
                                                 size_t out_stride, uint32_t out_w, uint32_t out_h,
                                                 imago_png_fast_mode mode, imago_decode_control *control);

/* Bytes imago_png_fast_rows_decode holds for an image `width` pixels wide: ISA-L's inflate state
 * (about 85 KiB), a 64 KiB read buffer for a file input, and four rows. */
uint64_t imago_png_fast_rows_working_bytes(uint32_t width, int input_is_file);

#endif
