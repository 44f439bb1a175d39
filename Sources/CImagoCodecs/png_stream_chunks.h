#ifndef IMAGO_PNG_STREAM_CHUNKS_H
#define IMAGO_PNG_STREAM_CHUNKS_H
/* PNG chunk framing in front of libpng's progressive reader, which buffers every non-IDAT chunk
 * whole (and grows that buffer by a few hundred bytes at a time). The framer reads each chunk
 * header itself, across pushes, and gives libpng:
 *   - the signature, IDAT, the other critical chunks and a tRNS of at most 256 bytes, unchanged;
 *   - for every other ancillary chunk, a zero-length chunk of the same type (with its CRC) in its
 *     place, skipping the data and CRC as they arrive. libpng's order and mode checks ("missing
 *     IHDR", a chunk between IDATs, ...) still see it; its content, which only fills info fields
 *     this decoder never reads, is dropped. An ancillary chunk's damage is a warning in libpng
 *     by default, and an oversized tRNS is ignored ("invalid") whatever its length, so errors
 *     and pixels stay those of the pull decoder (png_decode.c);
 *   - a header only, for a chunk declaring over 2^31-1 bytes (libpng fails on that header), or
 *     a kept non-IDAT chunk over IMAGO_PNG_KEPT_CHUNK_MAX, which is then refused as corrupt
 *     (IHDR has 13 bytes, PLTE at most 768, IEND none; an unknown critical chunk fails anyway).
 * The framer holds at most one 12-byte header. */
#include <png.h>
#include <stddef.h>
#include <stdint.h>

#define IMAGO_PNG_KEPT_CHUNK_MAX (1u << 20)

typedef struct imago_png_chunks {
    uint32_t signature_left;   /* signature bytes still to pass */
    uint8_t head[12];          /* a chunk header being gathered, then what stands for it */
    uint32_t head_have;        /* bytes of head gathered */
    uint32_t head_fed;         /* of head_size, bytes libpng took */
    uint32_t head_size;        /* 0: gathering; else bytes of head to give libpng */
    uint64_t pass_left;        /* data + CRC of a passed chunk still to give libpng */
    uint64_t skip_left;        /* data + CRC of a dropped chunk still to skip */
    int refuse;                /* once head is fed, the chunk is refused */
} imago_png_chunks;

/* Gives libpng bytes: returns how many it took; sets *stop when the caller's push must end
 * here (libpng paused, a preview is due, the image is complete). May longjmp. */
typedef size_t (*imago_png_sink)(void *ctx, const uint8_t *data, size_t size, int *stop);

void imago_png_chunks_init(imago_png_chunks *f);
/* Frames data, feeding sink; returns how many bytes of data were taken (all of them unless the
 * sink stopped). Bytes skipped or held in head count as taken. A refused chunk is png_error'd
 * on png (the caller armed png_jmpbuf). */
size_t imago_png_chunks_feed(imago_png_chunks *f, const uint8_t *data, size_t size, imago_png_sink sink, void *ctx,
                             png_structp png);

#endif
