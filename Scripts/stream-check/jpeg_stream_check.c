/* Checks the push JPEG decoder (jpeg_stream.c) against the pull decoder (jpeg_decode.c).
 * Build and run: see README in this directory. Exit status 0 when every check passed. */
#include "imago_decode.h"
#include "imago_stream.h"
#include "jpeg_stream.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures, checks;
#define CHECK(cond, ...) do { checks++; if (!(cond)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
    printf(__VA_ARGS__); printf("\n"); } } while (0)

typedef struct blob { uint8_t *data; size_t size; char name[512]; } blob;

static int load(const char *path, blob *b) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b->data = malloc(n > 0 ? (size_t)n : 1);
    b->size = fread(b->data, 1, (size_t)n, f);
    fclose(f);
    const char *slash = strrchr(path, '/');
    snprintf(b->name, sizeof b->name, "%s", slash ? slash + 1 : path);
    return 1;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Pull decode: status; *pixels malloc'd on success. */
static int pull(const blob *b, uint32_t w, uint32_t h, uint8_t **pixels, imago_image_info *info, imago_error *err) {
    imago_input in = {b->data, b->size, -1};
    imago_image_info local;
    *pixels = NULL;
    imago_jpeg_decoder *d = imago_jpeg_open(&in, info ? info : &local, err);
    if (!d) return err->status;
    if (w == 0) { w = (info ? info : &local)->width; h = (info ? info : &local)->height; }
    *pixels = malloc((size_t)w * h * 4);
    int st = imago_jpeg_decode(d, *pixels, (size_t)w * 4, w, h, NULL, err);
    imago_jpeg_close(d);
    if (st) { free(*pixels); *pixels = NULL; }
    return st;
}

typedef struct opts {
    size_t chunk;          /* 0: random sizes */
    unsigned seed;
    int previews;
    uint32_t w, h;         /* 0: full size */
    size_t limit;          /* push only this many bytes (prefix); SIZE_MAX for all */
    int cancel_at;         /* -1: never; else raise the flag once this many bytes were pushed */
    const blob *garbage;   /* pushed after the image */
} opts;

/* Linked with -Wl,--wrap=calloc (see README), the codec's callocs go through here, so a check can
 * make the preview resizer's allocation fail. Without it __real_calloc stays null (weak). */
extern void *__real_calloc(size_t, size_t) __attribute__((weak));
static int fail_calloc, preview_nomem, preview_nomem_seen;
void *__wrap_calloc(size_t n, size_t k) { return fail_calloc ? NULL : __real_calloc(n, k); }

typedef struct result {
    int status;            /* first error or finish's status */
    int where;             /* 0 push, 1 finish, 2 start */
    uint8_t *pixels;
    imago_image_info info;
    int previews, detail_ok;
    double first_mae, last_mae;
    size_t kept, allocated, pushes, pos;
    int64_t rows;
} result;

static double render_seconds;

static double mae(const uint8_t *a, const uint8_t *b, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += abs((int)a[i] - (int)b[i]);
    return n ? s / n : 0;
}

static size_t next_chunk(const opts *o, unsigned *rng) {
    if (o->chunk) return o->chunk;
    *rng = *rng * 1103515245u + 12345u;
    return 1 + (*rng >> 8) % 20000;
}

static void stream(const blob *b, const opts *o, const uint8_t *reference, result *r) {
    memset(r, 0, sizeof *r);
    r->detail_ok = 1;
    r->first_mae = r->last_mae = -1;
    imago_error err = {0};
    imago_decode_control control = {0};
    imago_jpeg_stream *s = imago_jpeg_stream_create(&err);
    if (!s) { r->status = err.status; return; }
    size_t size = b->size < o->limit ? b->size : o->limit, pos = 0;
    unsigned rng = o->seed;
    imago_stream_state state = IMAGO_STREAM_NEEDS_INPUT;
    int started = 0, last_detail = 0, guard = 0;
    uint32_t w = 0, h = 0;
    uint8_t *preview = NULL, *small = NULL;
    while (state != IMAGO_STREAM_COMPLETE) {
        if (o->cancel_at >= 0 && pos >= (size_t)o->cancel_at) imago_control_cancel(&control);
        size_t n = next_chunk(o, &rng);
        if (n > size - pos) n = size - pos;
        size_t consumed = 99999999;
        int st = imago_jpeg_stream_push(s, b->data + pos, n, &consumed, &state, &control, &err);
        r->pushes++;
        if (st) { r->status = st; r->where = 0; r->pos = pos; goto done; }
        CHECK(consumed <= n, "%s: consumed %zu of %zu", b->name, consumed, n);
        if (state == IMAGO_STREAM_NEEDS_INPUT) CHECK(consumed == n, "%s: NEEDS_INPUT took %zu of %zu", b->name, consumed, n);
        pos += consumed;
        if (state == IMAGO_STREAM_HEADER_READY && !started) {
            CHECK(imago_jpeg_stream_info(s, &r->info) == IMAGO_OK, "%s: info", b->name);
            w = o->w ? o->w : r->info.width;
            h = o->h ? o->h : r->info.height;
            r->pixels = calloc((size_t)w * h, 4);
            preview = calloc((size_t)w * h, 4);
            small = calloc((size_t)(w / 2 + 1) * (h / 2 + 1), 4);
            int32_t detail;
            CHECK(imago_jpeg_stream_render_preview(s, preview, (size_t)w * 4, w, h, &detail, NULL, &err) == IMAGO_ERR_INVALID_ARGUMENT,
                  "%s: preview before start", b->name);
            st = imago_jpeg_stream_start(s, r->pixels, (size_t)w * 4, w, h, o->previews, &err);
            if (st) { r->status = st; r->where = 2; goto done; }
            started = 1;
            /* a second push before more input must not redo the header */
        } else if (state == IMAGO_STREAM_PREVIEW_READY) {
            int32_t detail = 0, detail2 = 0;
            double t0 = now();
            /* in the cancel checks the renders do not see the flag: push itself must notice it */
            imago_decode_control *render_control = o->cancel_at >= 0 ? NULL : &control;
            if (preview_nomem && w > 1) {   /* a preview that cannot be allocated leaves the decode going */
                fail_calloc = 1;
                st = imago_jpeg_stream_render_preview(s, small, (size_t)w / 2 * 4, w / 2, 1, &detail, render_control, &err);
                fail_calloc = 0;
                CHECK(st == IMAGO_ERR_NO_MEMORY, "%s: preview without memory: %d", b->name, st);
                preview_nomem_seen++;
            }
            st = imago_jpeg_stream_render_preview(s, preview, (size_t)w * 4, w, h, &detail, render_control, &err);
            if (st) { r->status = st; r->where = 0; goto done; }
            uint32_t sw = w > 1 ? w / 2 : 1, sh = h > 2 ? h / 3 : 1;
            st = imago_jpeg_stream_render_preview(s, small, (size_t)sw * 4, sw, sh, &detail2, render_control, &err);
            if (st) { r->status = st; r->where = 0; goto done; }
            render_seconds += now() - t0;
            if (detail <= last_detail || detail2 != detail) r->detail_ok = 0;
            last_detail = detail;
            r->previews++;
            if (reference) {
                double m = mae(preview, reference, (size_t)w * h * 4);
                if (r->first_mae < 0) r->first_mae = m;
                r->last_mae = m;
            }
        } else if (state == IMAGO_STREAM_NEEDS_INPUT && pos == size) {
            break;
        }
        if (++guard > 50000000) { CHECK(0, "%s: push loop does not progress", b->name); break; }
    }
    if (state == IMAGO_STREAM_COMPLETE) {
        CHECK(pos <= b->size, "pos");
        int32_t detail;
        CHECK(imago_jpeg_stream_render_preview(s, preview, (size_t)w * 4, w, h, &detail, NULL, &err) == IMAGO_ERR_INVALID_ARGUMENT,
              "%s: preview after COMPLETE", b->name);
        if (o->garbage) {
            size_t consumed = 0;
            int st = imago_jpeg_stream_push(s, o->garbage->data, o->garbage->size, &consumed, &state, NULL, &err);
            CHECK(st == 0 && consumed == o->garbage->size && state == IMAGO_STREAM_COMPLETE, "%s: garbage after COMPLETE", b->name);
        }
    }
    r->status = imago_jpeg_stream_finish(s, &err);
    r->where = 1;
done:
    r->rows = imago_control_rows(&control);
    imago_jpeg_stream_input_peaks(s, &r->kept, &r->allocated);
    imago_jpeg_stream_destroy(s);
    free(preview);
    free(small);
    if (r->status) { free(r->pixels); r->pixels = NULL; }
}

static size_t eoi_end(const blob *b) {
    for (size_t i = b->size; i >= 2; i--) if (b->data[i - 2] == 0xFF && b->data[i - 1] == 0xD9) return i;
    return b->size;
}

/* Every chunking, size and preview setting gives the pull decoder's pixels. */
static void check_equivalence(const blob *b, int thorough) {
    imago_image_info info;
    imago_error err;
    uint8_t *full;
    if (pull(b, 0, 0, &full, &info, &err)) { CHECK(0, "%s: pull decode failed: %s", b->name, err.message); return; }
    uint32_t sizes[5][2] = {{info.width, info.height}, {(info.width + 1) / 2, (info.height + 1) / 2},
                            {(info.width + 2) / 3, (info.height + 2) / 3}, {0, 0}, {0, 0}};
    int nsizes = 3;
    if (info.width >= 100) {
        uint32_t h = (uint32_t)((uint64_t)info.height * 100 / info.width);
        sizes[nsizes][0] = 100; sizes[nsizes][1] = h ? h : 1; nsizes++;
    }
    if (info.width > 7 && info.height > 5) { sizes[nsizes][0] = info.width - 7; sizes[nsizes][1] = info.height - 5; nsizes++; }
    size_t chunks[] = {1, 7, 4096, 65536, 0, SIZE_MAX};
    int progressive_previews = 0;
    for (int si = 0; si < nsizes; si++) {
        uint32_t w = sizes[si][0], h = sizes[si][1];
        uint8_t *expected = full;
        if (si > 0 && pull(b, w, h, &expected, NULL, &err)) { CHECK(0, "%s: pull %ux%u: %s", b->name, w, h, err.message); continue; }
        for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++) {
            if (chunks[ci] == 1 && (b->size > (thorough ? 400000u : 20000u) || si > 1)) continue;
            for (int previews = 0; previews <= 1; previews++) {
                opts o = {chunks[ci], 1234u + (unsigned)si * 7 + (unsigned)ci, previews, w, h, SIZE_MAX, -1, NULL};
                result r;
                stream(b, &o, expected, &r);
                CHECK(r.status == 0, "%s %ux%u chunk %zu previews %d: status %d at %d", b->name, w, h, chunks[ci], previews, r.status, r.where);
                if (r.status) continue;
                CHECK(memcmp(r.pixels, expected, (size_t)w * h * 4) == 0, "%s %ux%u chunk %zu previews %d: pixels differ",
                      b->name, w, h, chunks[ci], previews);
                CHECK(memcmp(&r.info, &info, sizeof info) == 0, "%s: info differs", b->name);
                if (previews && info.progressive) {
                    CHECK(r.previews > 0 && r.detail_ok, "%s chunk %zu: %d previews, detail ok %d", b->name, chunks[ci], r.previews, r.detail_ok);
                    CHECK(r.last_mae <= r.first_mae, "%s: previews lose detail (%.2f -> %.2f)", b->name, r.first_mae, r.last_mae);
                    progressive_previews = r.previews;
                    if (si == 0 && ci == 2) printf("  %s: %d previews, error vs final %.2f -> %.2f\n", b->name, r.previews, r.first_mae, r.last_mae);
                } else {
                    CHECK(r.previews == 0, "%s: %d previews for a baseline image or previews off", b->name, r.previews);
                    CHECK(r.rows > 0, "%s: no rows published", b->name);
                }
                free(r.pixels);
            }
        }
        if (expected != full) free(expected);
    }
    (void)progressive_previews;
    free(full);
}

/* Every prefix (or a sample for larger files) ends in TRUNCATED, or EMPTY for none. */
static void check_prefixes(const blob *b) {
    size_t end = eoi_end(b), step = b->size <= 9000 ? 1 : b->size / 400;
    for (size_t len = 0; len <= b->size; len += (len < 700 ? 1 : step)) {
        opts o = {len % 3 == 0 ? SIZE_MAX : 7, (unsigned)len, (int)(len & 1), 0, 0, len, -1, NULL};
        result r;
        stream(b, &o, NULL, &r);
        int expected = len == 0 ? IMAGO_ERR_EMPTY : len < end ? IMAGO_ERR_TRUNCATED : IMAGO_OK;
        CHECK(r.status == expected && r.where == 1, "%s prefix %zu/%zu: status %d at %d, expected %d at finish",
              b->name, len, b->size, r.status, r.where, expected);
        free(r.pixels);
    }
}

static void check_garbage(const blob *b) {
    blob g = {0};
    g.size = b->size + 5000;
    g.data = malloc(g.size);
    memcpy(g.data, b->data, b->size);
    unsigned rng = 99;
    for (size_t i = b->size; i < g.size; i++) { rng = rng * 1103515245u + 12345u; g.data[i] = (uint8_t)(rng >> 16); }
    memcpy(g.data + b->size + 10, "\xFF\xD8\xFF\xD9\xFF\xDA", 6);
    snprintf(g.name, sizeof g.name, "%s+garbage", b->name);
    uint8_t *expected;
    imago_error err;
    CHECK(pull(b, 0, 0, &expected, NULL, &err) == 0, "pull");
    size_t chunks[] = {7, 4096, SIZE_MAX};
    for (int i = 0; i < 3; i++) {
        opts o = {chunks[i], 5, i & 1, 0, 0, SIZE_MAX, -1, &g};
        result r;
        stream(&g, &o, NULL, &r);
        CHECK(r.status == 0 && r.pixels && memcmp(r.pixels, expected, (size_t)r.info.width * r.info.height * 4) == 0,
              "%s chunk %zu: status %d", g.name, chunks[i], r.status);
        free(r.pixels);
    }
    free(expected);
    free(g.data);
}

/* Marker segments libjpeg skips (COM, APP2) longer than a push: the skip is owed to later pushes. */
static void check_skipped_segments(const blob *b) {
    blob g = {0};
    size_t extra = 2 * (4 + 3000) + 4 + 65533;
    g.size = b->size + extra;
    g.data = malloc(g.size);
    uint8_t *p = g.data;
    memcpy(p, b->data, 2); p += 2;                       /* SOI */
    for (int k = 0; k < 2; k++) {                        /* COM, then APP2, of 3000 bytes */
        *p++ = 0xFF; *p++ = k ? 0xE2 : 0xFE; *p++ = 3002 >> 8; *p++ = 3002 & 0xFF;
        for (int i = 0; i < 3000; i++) *p++ = (uint8_t)(i * 7 + 0xFF * (i % 5 == 0));
    }
    *p++ = 0xFF; *p++ = 0xED; *p++ = 0xFF; *p++ = 0xFF;    /* APP13, the longest segment */
    memset(p, 0xFF, 65533); p += 65533;
    memcpy(p, b->data + 2, b->size - 2);
    snprintf(g.name, sizeof g.name, "%s+segments", b->name);
    uint8_t *expected;
    imago_error err;
    CHECK(pull(b, 0, 0, &expected, NULL, &err) == 0, "pull");
    size_t chunks[] = {1, 7, 4096, 65536, 0, SIZE_MAX};
    for (int i = 0; i < 6; i++) {
        opts o = {chunks[i], 17, i & 1, 0, 0, SIZE_MAX, -1, NULL};
        result r;
        stream(&g, &o, NULL, &r);
        CHECK(r.status == 0 && r.pixels && memcmp(r.pixels, expected, (size_t)r.info.width * r.info.height * 4) == 0,
              "%s chunk %zu: status %d", g.name, chunks[i], r.status);
        if (chunks[i] == 7) CHECK(r.kept < 4096, "%s: %zu bytes kept while skipping", g.name, r.kept);
        free(r.pixels);
    }
    free(expected);
    free(g.data);
}

static void check_cancel(const blob *b) {
    for (int previews = 0; previews <= 1; previews++) {
        int points[] = {0, (int)(b->size / 2)};
        for (int p = 0; p < 2; p++) {
            opts o = {p ? 512 : SIZE_MAX, 3, previews, 0, 0, SIZE_MAX, points[p], NULL};
            result r;
            stream(b, &o, NULL, &r);
            CHECK(r.status == IMAGO_ERR_CANCELLED && r.where == 0, "%s cancel at %d previews %d: status %d at %d",
                  b->name, points[p], previews, r.status, r.where);
            /* noticed at the next row batch, not only once the whole image is in */
            if (p == 1 && b->size > 2000)
                CHECK(r.pos < b->size - 512, "%s cancel at %d previews %d: noticed only at byte %zu of %zu", b->name,
                      points[p], previews, r.pos, b->size);
            free(r.pixels);
        }
    }
}

/* Pull and push statuses for damaged or foreign input. */
static void check_invalid(const blob *b) {
    uint8_t *pixels;
    imago_error err = {0};
    int pulled = pull(b, 0, 0, &pixels, NULL, &err);
    free(pixels);
    size_t chunks[] = {1, 7, 4096, SIZE_MAX};
    for (int i = 0; i < 4; i++) {
        for (int previews = 0; previews <= 1; previews++) {
            opts o = {chunks[i], 11, previews, 0, 0, SIZE_MAX, -1, NULL};
            result r;
            stream(b, &o, NULL, &r);
            CHECK(r.status != 0 && r.status == pulled, "%s chunk %zu previews %d: push %d at %s, pull %d (%s)", b->name,
                  chunks[i], previews, r.status, r.where ? "finish" : "push", pulled, err.message);
            if (i == 2 && previews == 0)
                printf("  %-45s pull %d, push %d at %s\n", b->name, pulled, r.status, r.where ? "finish" : "push");
            free(r.pixels);
        }
    }
}

static void check_api(const blob *b) {
    imago_error err;
    imago_image_info info;
    imago_jpeg_stream_destroy(NULL);
    imago_jpeg_stream *s = imago_jpeg_stream_create(&err);
    CHECK(imago_jpeg_stream_info(s, &info) == IMAGO_ERR_INVALID_ARGUMENT, "info before header");
    CHECK(imago_jpeg_stream_finish(s, &err) == IMAGO_ERR_EMPTY, "finish with nothing");
    size_t consumed;
    imago_stream_state state;
    CHECK(imago_jpeg_stream_push(s, NULL, 0, &consumed, &state, NULL, &err) == 0 && state == IMAGO_STREAM_NEEDS_INPUT, "empty push");
    CHECK(imago_jpeg_stream_finish(s, &err) == IMAGO_ERR_EMPTY, "finish after an empty push");
    uint8_t px[4];
    CHECK(imago_jpeg_stream_start(s, px, 4, 1, 1, 0, &err) == IMAGO_ERR_INVALID_ARGUMENT, "start before header");
    CHECK(imago_jpeg_stream_push(s, b->data, b->size, &consumed, &state, NULL, &err) == 0 && state == IMAGO_STREAM_HEADER_READY &&
          consumed < b->size, "header stop takes the header only (%zu of %zu)", consumed, b->size);
    size_t again;
    CHECK(imago_jpeg_stream_push(s, b->data + consumed, b->size - consumed, &again, &state, NULL, &err) == 0 &&
          state == IMAGO_STREAM_HEADER_READY && again == 0, "push before start takes nothing");
    CHECK(imago_jpeg_stream_info(s, &info) == 0, "info");
    uint8_t *out = malloc((size_t)info.width * info.height * 4);
    CHECK(imago_jpeg_stream_start(s, out, (size_t)info.width * 4, info.width + 1, info.height, 0, &err) == IMAGO_ERR_INVALID_ARGUMENT, "upsample refused");
    CHECK(imago_jpeg_stream_start(s, out, (size_t)info.width * 4 - 1, info.width, info.height, 0, &err) == IMAGO_ERR_INVALID_ARGUMENT, "short stride refused");
    CHECK(imago_jpeg_stream_start(s, out, (size_t)info.width * 4, info.width, info.height, 0, &err) == 0, "start");
    CHECK(imago_jpeg_stream_start(s, out, (size_t)info.width * 4, info.width, info.height, 0, &err) == IMAGO_ERR_INVALID_ARGUMENT, "start twice");
    CHECK(imago_jpeg_stream_finish(s, &err) == IMAGO_ERR_TRUNCATED, "finish before the data");
    imago_jpeg_stream_destroy(s);   /* mid-decode */
    free(out);
    /* an error sticks */
    s = imago_jpeg_stream_create(&err);
    CHECK(imago_jpeg_stream_push(s, (const uint8_t *)"GIF89a", 6, &consumed, &state, NULL, &err) == IMAGO_ERR_CORRUPT, "gif");
    CHECK(imago_jpeg_stream_push(s, b->data, b->size, &consumed, &state, NULL, &err) == IMAGO_ERR_CORRUPT, "error sticks");
    CHECK(imago_jpeg_stream_finish(s, &err) == IMAGO_ERR_CORRUPT, "finish after error");
    imago_jpeg_stream_destroy(s);
}

typedef struct timed { double pull, push, render; result r; } timed;

/* Best of three runs each; render time (previews) is measured apart from push time. */

static void bench(const blob *b) {
    imago_image_info info;
    imago_error err;
    uint8_t *expected = NULL;
    double t_pull = 1e9;
    for (int i = 0; i < 3; i++) {
        free(expected);
        double t0 = now();
        if (pull(b, 0, 0, &expected, &info, &err)) { CHECK(0, "%s: pull %s", b->name, err.message); return; }
        if (now() - t0 < t_pull) t_pull = now() - t0;
    }
    for (int previews = 0; previews <= (info.progressive ? 1 : 0); previews++) {
        double best = 1e9, render = 0;
        result r = {0};
        for (int i = 0; i < 3; i++) {
            free(r.pixels);
            opts o = {65536, 1, previews, 0, 0, SIZE_MAX, -1, NULL};
            render_seconds = 0;
            double t0 = now();
            stream(b, &o, NULL, &r);
            double t = now() - t0 - render_seconds;
            if (t < best) { best = t; render = render_seconds; }
        }
        CHECK(r.status == 0 && memcmp(r.pixels, expected, (size_t)info.width * info.height * 4) == 0, "%s: bench pixels", b->name);
        printf("  %-26s %ux%u %s: pull %.3f s, push 64 KiB %.3f s (previews %s: %d, rendering them %.3f s more), %zu pushes, "
               "tail kept max %zu B, tail buffer max %zu B, libjpeg coefficients %llu B\n",
               b->name, info.width, info.height, info.progressive ? "progressive" : "baseline", t_pull, best,
               previews ? "on" : "off", r.previews, render, r.pushes, r.kept, r.allocated, (unsigned long long)info.working_bytes);
        free(r.pixels);
    }
    /* downsampled to about a quarter (DCT 1/4 then exact resize) */
    uint32_t w = info.width / 4 - 1, h = info.height / 4 - 1;
    uint8_t *small = NULL;
    double t_small = 1e9, t_push = 1e9;
    result r = {0};
    for (int i = 0; i < 3; i++) {
        free(small);
        free(r.pixels);
        double t0 = now();
        pull(b, w, h, &small, NULL, &err);
        if (now() - t0 < t_small) t_small = now() - t0;
        opts o = {65536, 1, 0, w, h, SIZE_MAX, -1, NULL};
        t0 = now();
        stream(b, &o, NULL, &r);
        if (now() - t0 < t_push) t_push = now() - t0;
    }
    CHECK(r.status == 0 && memcmp(r.pixels, small, (size_t)w * h * 4) == 0, "%s: bench small pixels", b->name);
    printf("  %-26s to %ux%u: pull %.3f s, push 64 KiB %.3f s\n", b->name, w, h, t_small, t_push);
    free(r.pixels);
    free(small);
    free(expected);
}

static int load_dir(const char *dir, const char *suffix, blob *out, int max) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return 0;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(d)) != NULL && n < max) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || (suffix && (len < strlen(suffix) || strcmp(e->d_name + len - strlen(suffix), suffix)))) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (load(path, &out[n])) n++;
    }
    closedir(d);
    return n;
}

/* render_preview failing for lack of memory (before its output pass) returns NO_MEMORY, and
 * the decode goes on to the pull decoder's pixels. */
static void check_preview_nomem(const blob *b) {
    imago_image_info info;
    imago_error err;
    uint8_t *full;
    if (pull(b, 0, 0, &full, &info, &err)) return;
    if (info.progressive && __real_calloc != NULL) {
        preview_nomem = 1;
        preview_nomem_seen = 0;
        opts o = {4096, 21, 1, 0, 0, SIZE_MAX, -1, NULL};
        result r;
        stream(b, &o, NULL, &r);
        preview_nomem = 0;
        CHECK(preview_nomem_seen > 0 && r.status == 0 && memcmp(r.pixels, full, (size_t)info.width * info.height * 4) == 0,
              "%s: decode after a failed preview: status %d, %d failed previews", b->name, r.status, preview_nomem_seen);
        free(r.pixels);
    }
    free(full);
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "--bench") == 0) {
        for (int i = 2; i < argc; i++) {
            blob b;
            if (!load(argv[i], &b)) { printf("cannot read %s\n", argv[i]); return 2; }
            bench(&b);
            free(b.data);
        }
    } else {
        const char *corpus = argc >= 2 ? argv[1] : "Corpus";
        int thorough = argc >= 3 && strcmp(argv[2], "--thorough") == 0;
        char dir[1024];
        static blob files[256];
        snprintf(dir, sizeof dir, "%s/jpeg", corpus);
        int n = load_dir(dir, ".jpg", files, 256);
        if (n == 0) { printf("no JPEGs under %s\n", dir); return 2; }
        printf("equivalence, prefixes, trailing garbage, cancellation over %d files in %s\n", n, dir);
        check_api(&files[0]);
        for (int i = 0; i < n; i++) {
            check_equivalence(&files[i], thorough);
            check_prefixes(&files[i]);
            check_garbage(&files[i]);
            check_skipped_segments(&files[i]);
            check_cancel(&files[i]);
            check_preview_nomem(&files[i]);
            free(files[i].data);
        }
        snprintf(dir, sizeof dir, "%s/invalid", corpus);
        n = load_dir(dir, NULL, files, 256);
        if (__real_calloc == NULL) printf("preview without memory: skipped (link with -Wl,--wrap=calloc)\n");
        printf("invalid input (%d files in %s):\n", n, dir);
        for (int i = 0; i < n; i++) { check_invalid(&files[i]); free(files[i].data); }
    }
    printf("%d checks, %d failed\n", checks, failures);
    return failures != 0;
}
