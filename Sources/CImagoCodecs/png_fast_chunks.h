#ifndef IMAGO_PNG_FAST_CHUNKS_H
#define IMAGO_PNG_FAST_CHUNKS_H
/* The fast paths' judgement of a PNG's chunks, shared by the whole-buffer walk (png_fast.c) and
 * the row-by-row reader (png_fast_rows.c), so both decline exactly the same files. What libpng
 * 1.6.39 would reject, or read differently, is declined rather than judged:
 * - a chunk type byte outside A-Z/a-z, a length above 2^31 - 1 ("invalid chunk type", range);
 * - a non-IDAT chunk above 8000000 bytes (its PNG_USER_CHUNK_MALLOC_MAX: "chunk data is too
 *   large"), an IDAT above that and above the raw image size (its IDAT limit is larger);
 * - any CRC mismatch (libpng errors on critical chunks and warns on ancillary ones; the callers
 *   check CRCs);
 * - IDATs that are not one consecutive run, any critical chunk but IHDR/IDAT/IEND, tRNS;
 * - an IHDR other than 8-bit RGB or RGBA, deflate, filter method 0, not interlaced;
 * - a zlib window smaller than 32 KiB unless the image fits in it: zlib (libpng's inflater)
 *   rejects a distance beyond the declared window, libdeflate and ISA-L do not look. */
#include <stddef.h>
#include <stdint.h>

#define IMAGO_PNG_CHUNK_MALLOC_MAX 8000000u
#define IMAGO_PNG_UINT31_MAX 0x7fffffffu

typedef struct imago_png_layout {
    uint32_t width, height;
    int channels;        /* 3 (RGB) or 4 (RGBA) */
    uint64_t raw_size;   /* inflated bytes: (1 + width * channels) * height */
    size_t first_idat;   /* offset of the first IDAT chunk (whole-buffer walk only) */
    size_t idat_bytes;   /* payload bytes over all IDATs (whole-buffer walk only) */
    int idat_count;      /* (whole-buffer walk only) */
} imago_png_layout;

typedef enum imago_png_chunk_kind {
    IMAGO_PNG_CHUNK_DECLINE = 0,
    IMAGO_PNG_CHUNK_IHDR,
    IMAGO_PNG_CHUNK_IDAT,
    IMAGO_PNG_CHUNK_ANCILLARY,   /* read past (after its CRC is checked) */
    IMAGO_PNG_CHUNK_IEND
} imago_png_chunk_kind;

/* Where a walk is: how many chunks it has judged and whether it is before, in or after the run
 * of IDATs. Zero-initialise; set raw_size from the IHDR (imago_png_fast_header) before the next
 * chunk is judged. */
typedef struct imago_png_walk {
    int chunks;
    int state;   /* 0 before the IDATs, 1 in them, 2 after */
    uint64_t raw_size;
} imago_png_walk;

uint32_t imago_png_be32(const uint8_t *p);

/* The chunk whose type and length are given, judged from its position in the walk. */
imago_png_chunk_kind imago_png_fast_judge(imago_png_walk *walk, const uint8_t type[4], uint32_t length);

/* IHDR's 13 data bytes into layout (sides, channels, raw_size); 0 when the fast paths do not
 * take the image. */
int imago_png_fast_header(const uint8_t *ihdr, imago_png_layout *layout);

/* The zlib header's first byte as libpng's inflater (zlib 1.2.13, window from the header)
 * would judge it for an image of raw_size inflated bytes, and its second (check bits, no preset
 * dictionary, method deflate). */
int imago_png_fast_zlib_header_ok(const uint8_t zlib[2], uint64_t raw_size);

#endif
