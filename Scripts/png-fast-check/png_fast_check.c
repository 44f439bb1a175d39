/* The PNG fast path against libpng, byte for byte (issue 27). Plain C, no Swift build:
 *
 *   make png-fast-check        (or build as in the Makefile target, then)
 *   png_fast_check CORPUS_DIR [MORE_DIRS...]
 *
 * Every file in CORPUS_DIR/png and CORPUS_DIR/invalid (and in each extra directory, e.g. a
 * PngSuite checkout), then synthesised files written by libpng: 8-bit RGB and RGBA, widths 1-67
 * and 1000, every filter type forced and libpng's adaptive choice, zlib windows of 256 B-32 KiB,
 * IDATs of 1 chunk or many; each also mutated (a payload byte flipped with its CRC fixed or not,
 * truncations, an unknown critical chunk, tRNS, an ancillary chunk after or inside the IDAT run,
 * bytes after IEND). Each case goes through png_fast_diff_one (png_fast_diff.h). Exit status 0
 * when nothing differs. `png_fast_check --seeds DIR` writes small synthesised files instead
 * (the differential fuzzer's seeds). */
#include "png_fast_diff.h"

#include <dirent.h>
#include <png.h>
#include <zlib.h>

typedef struct buffer { uint8_t *data; size_t size, capacity; } buffer;

static void buffer_write(png_structp png, png_bytep data, size_t length) {
    buffer *b = png_get_io_ptr(png);
    if (b->size + length > b->capacity) {
        b->capacity = (b->size + length) * 2;
        b->data = realloc(b->data, b->capacity);
    }
    memcpy(b->data + b->size, data, length);
    b->size += length;
}

static void buffer_flush(png_structp png) { (void)png; }

/* A w x h image of channels 3/4 with smooth areas and noise (so every filter is worth choosing). */
static buffer encode(uint32_t w, uint32_t h, int channels, int filters, int window_bits, size_t idat_size, unsigned seed) {
    buffer b = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) { fprintf(stderr, "encode failed\n"); exit(2); }
    png_set_write_fn(png, &b, buffer_write, buffer_flush);
    png_set_IHDR(png, info, w, h, 8, channels == 4 ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_filter(png, 0, filters);
    png_set_compression_window_bits(png, window_bits);
    png_set_compression_buffer_size(png, idat_size);
    png_write_info(png, info);
    uint8_t *row = malloc((size_t)w * channels);
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w * (uint32_t)channels; x++) {
            seed = seed * 1103515245u + 12345u;
            row[x] = (uint8_t)((x * 7 + y * 3) + ((seed >> 16) % 9));
            if ((seed >> 8) % 17 == 0) row[x] = (uint8_t)(seed >> 24);
        }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    return b;
}

static void put32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = (uint8_t)v; }

/* Offset of the first chunk of this type, or 0. */
static size_t find_chunk(const uint8_t *d, size_t n, const char *type) {
    for (size_t pos = 8; pos + 12 <= n; pos += 12 + png_fast_diff_be32(d + pos)) {
        if (memcmp(d + pos + 4, type, 4) == 0) return pos;
    }
    return 0;
}

/* d with a chunk (type, payload) inserted at offset at. */
static buffer insert_chunk(const buffer *src, size_t at, const char *type, const uint8_t *payload, uint32_t length) {
    buffer b = {malloc(src->size + 12 + length), src->size + 12 + length, 0};
    memcpy(b.data, src->data, at);
    uint8_t *c = b.data + at;
    put32(c, length);
    memcpy(c + 4, type, 4);
    if (length) memcpy(c + 8, payload, length);
    put32(c + 8 + length, (uint32_t)crc32(0, c + 4, length + 4));
    memcpy(c + 12 + length, src->data + at, src->size - at);
    return b;
}

static void check_variants(const buffer *png, const char *name, png_fast_diff_stats *stats) {
    char label[160];
    png_fast_diff_one(png->data, png->size, name, stats);
    size_t idat = find_chunk(png->data, png->size, "IDAT"), iend = find_chunk(png->data, png->size, "IEND");
    if (!idat || !iend) return;
    uint32_t idat_len = png_fast_diff_be32(png->data + idat);
    buffer m = {malloc(png->size + 64), png->size, 0};
    for (int k = 0; k < 6 && idat_len > 2; k++) {   /* a flipped payload byte, CRC fixed, then not */
        memcpy(m.data, png->data, png->size);
        size_t at = idat + 8 + 2 + (size_t)(k * 7919u) % (idat_len - 2);
        m.data[at] ^= (uint8_t)(1u << k);
        put32(m.data + idat + 8 + idat_len, (uint32_t)crc32(0, m.data + idat + 4, idat_len + 4));
        snprintf(label, sizeof label, "%s flip%d", name, k);
        png_fast_diff_one(m.data, m.size, label, stats);
        m.data[idat + 8 + idat_len] ^= 1;
        snprintf(label, sizeof label, "%s flip%d-badcrc", name, k);
        png_fast_diff_one(m.data, m.size, label, stats);
    }
    size_t cuts[] = {iend, iend + 6, idat + 8 + idat_len / 2, idat + 10, png->size - 1};
    for (int k = 0; k < 5; k++) {
        snprintf(label, sizeof label, "%s cut%zu", name, cuts[k]);
        png_fast_diff_one(png->data, cuts[k], label, stats);
    }
    static const uint8_t text[] = "Comment\0fast path";
    static const uint8_t trns[] = {0, 1, 0, 2, 0, 3};
    struct { const char *type; size_t at; const uint8_t *payload; uint32_t length; } inserts[] = {
        {"cRIT", iend, text, sizeof text}, {"tEXt", iend, text, sizeof text}, {"tRNS", idat, trns, 6},
        {"tEXt", idat + 12 + idat_len, text, sizeof text}, {"PLTE", idat, trns, 6}, {"IHDR", iend, trns, 6},
        {"IEND", iend, text, 4}, {"tEXt", idat, text, sizeof text},
    };
    for (size_t k = 0; k < sizeof inserts / sizeof inserts[0]; k++) {
        buffer v = insert_chunk(png, inserts[k].at, inserts[k].type, inserts[k].payload, inserts[k].length);
        snprintf(label, sizeof label, "%s +%s@%zu", name, inserts[k].type, inserts[k].at);
        png_fast_diff_one(v.data, v.size, label, stats);
        free(v.data);
    }
    memcpy(m.data, png->data, png->size);
    memcpy(m.data + png->size, "trailing garbage", 16);
    snprintf(label, sizeof label, "%s +after-IEND", name);
    png_fast_diff_one(m.data, png->size + 16, label, stats);
    free(m.data);
}

static void check_directory(const char *dir, png_fast_diff_stats *stats) {
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (f == NULL) continue;
        buffer b = {0};
        fseek(f, 0, SEEK_END);
        b.size = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        b.data = malloc(b.size + 64);
        if (fread(b.data, 1, b.size, f) == b.size) check_variants(&b, path, stats);
        fclose(f);
        free(b.data);
    }
    closedir(d);
}

/* --seeds DIR: the synthesised files only, written to DIR (the fuzzer's seeds), no checks. */
static int write_seeds(const char *dir) {
    const int filters[] = {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP, PNG_FILTER_AVG, PNG_FILTER_PAETH, PNG_ALL_FILTERS};
    for (int channels = 3; channels <= 4; channels++)
        for (int f = 0; f < 6; f++)
            for (int split = 0; split < 2; split++) {
                buffer b = encode(5 + (uint32_t)f * 3, 7, channels, filters[f], split ? 8 : 15, split ? 32 : 1 << 20, (unsigned)f);
                char path[4096];
                snprintf(path, sizeof path, "%s/synth-c%d-f%d-%d.png", dir, channels, f, split);
                FILE *out = fopen(path, "wb");
                if (out == NULL || fwrite(b.data, 1, b.size, out) != b.size) return 1;
                fclose(out);
                free(b.data);
            }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--seeds") == 0) return write_seeds(argv[2]);
    if (argc < 2) { fprintf(stderr, "usage: %s CORPUS_DIR [MORE_DIRS...] | --seeds DIR\n", argv[0]); return 2; }
    png_fast_diff_stats stats = {0};
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/png", argv[1]);
    check_directory(dir, &stats);
    snprintf(dir, sizeof dir, "%s/invalid", argv[1]);
    check_directory(dir, &stats);
    for (int i = 2; i < argc; i++) check_directory(argv[i], &stats);
    long corpus_cases = stats.files;
    const int filters[] = {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP, PNG_FILTER_AVG, PNG_FILTER_PAETH, PNG_ALL_FILTERS};
    const uint32_t widths[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 67, 1000};
    unsigned seed = 1;
    for (int channels = 3; channels <= 4; channels++)
        for (size_t f = 0; f < 6; f++)
            for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
                for (int window = 8; window <= 15; window += 7)
                    for (int split = 0; split < 2; split++) {
                        uint32_t w = widths[wi], h = w == 1000 ? 40 : 1 + (w * 5) % 23;
                        buffer b = encode(w, h, channels, filters[f], window, split ? 64 : 1 << 20, seed++);
                        char name[96];
                        snprintf(name, sizeof name, "synth c%d f%zu %ux%u win%d %s", channels, f, w, h, window,
                                 split ? "many-IDAT" : "one-IDAT");
                        check_variants(&b, name, &stats);
                        free(b.data);
                    }
    printf("png-fast-check: %ld cases (%ld from the corpus), libpng decoded %ld, fast path decoded %ld and declined %ld, "
           "row path decoded %ld and declined %ld (called directly at full size; the pull decoder runs it at a third "
           "too); %ld mismatches; known differences: %ld for the fast path (a code-length repeat past HLIT+HDIST), "
           "%ld for the row path (a Huffman code zlib refuses in the header)\n", stats.files, corpus_cases,
           stats.libpng_ok, stats.fast_decoded, stats.fast_declined, stats.rows_decoded, stats.rows_declined,
           stats.mismatches, stats.known_lenient, stats.rows_known_lenient);
    return stats.mismatches == 0 ? 0 : 1;
}
