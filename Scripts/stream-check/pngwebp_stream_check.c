/* Checks the PNG and WebP push decoders (imago_stream.h) against the pull decoders, byte for
 * byte, on the corpus. Plain C, no Swift build: Scripts/stream-check/build.sh, then
 *
 *   /tmp/pngwebp_stream_check CORPUS_DIR [BIG_FILE...]
 *
 * CORPUS_DIR holds png/, webp/ and invalid/. BIG_FILEs (12 MP .png/.webp) are decoded full size
 * and at a third in 64 KiB pieces, timed against the pull decoder; the bytes a stream holds
 * beyond the output are sampled with mallinfo2 after every push (meaningful without the
 * sanitizer). PNG also gets crafted chunk files (skipped ancillary chunks against the pull
 * decoder's status and pixels, huge kept chunks refused) and 8/64 MiB private chunks pushed in
 * 16 KiB pieces (ONLY=chunks runs just these). Exit status 0 when every check passed. */
#include "imago_stream.h"
#include "imago_decode.h"

#include <glob.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

typedef struct codec {
    const char *name;
    void *(*create)(imago_error *);
    imago_status (*push)(void *, const uint8_t *, size_t, size_t *, imago_stream_state *, imago_decode_control *, imago_error *);
    imago_status (*info)(const void *, imago_image_info *);
    imago_status (*start)(void *, uint8_t *, size_t, uint32_t, uint32_t, int32_t, imago_error *);
    imago_status (*render)(void *, uint8_t *, size_t, uint32_t, uint32_t, int32_t *, imago_decode_control *, imago_error *);
    imago_status (*finish)(void *, imago_error *);
    void (*destroy)(void *);
    void *(*open)(const imago_input *, imago_image_info *, imago_error *);
    imago_status (*decode)(void *, uint8_t *, size_t, uint32_t, uint32_t, imago_decode_control *, imago_error *);
    void (*close)(void *);
} codec;

#define WRAP(P)                                                                                                    \
    static void *P##_create(imago_error *e) { return imago_##P##_stream_create(e); }                                \
    static imago_status P##_push(void *s, const uint8_t *d, size_t n, size_t *c, imago_stream_state *st,             \
                                 imago_decode_control *k, imago_error *e) {                                        \
        return imago_##P##_stream_push(s, d, n, c, st, k, e);                                                       \
    }                                                                                                              \
    static imago_status P##_info(const void *s, imago_image_info *i) { return imago_##P##_stream_info(s, i); }      \
    static imago_status P##_start(void *s, uint8_t *o, size_t st, uint32_t w, uint32_t h, int32_t p, imago_error *e) { \
        return imago_##P##_stream_start(s, o, st, w, h, p, e);                                                      \
    }                                                                                                              \
    static imago_status P##_render(void *s, uint8_t *o, size_t st, uint32_t w, uint32_t h, int32_t *d,             \
                                   imago_decode_control *k, imago_error *e) {                                      \
        return imago_##P##_stream_render_preview(s, o, st, w, h, d, k, e);                                          \
    }                                                                                                              \
    static imago_status P##_finish(void *s, imago_error *e) { return imago_##P##_stream_finish(s, e); }             \
    static void P##_destroy(void *s) { imago_##P##_stream_destroy(s); }                                             \
    static void *P##_open(const imago_input *in, imago_image_info *i, imago_error *e) { return imago_##P##_open(in, i, e); } \
    static imago_status P##_decode(void *d, uint8_t *o, size_t st, uint32_t w, uint32_t h, imago_decode_control *k, \
                                   imago_error *e) {                                                               \
        return imago_##P##_decode(d, o, st, w, h, k, e);                                                            \
    }                                                                                                              \
    static void P##_close(void *d) { imago_##P##_close(d); }                                                        \
    static const codec P##_codec = {#P, P##_create, P##_push, P##_info, P##_start, P##_render, P##_finish,         \
                                    P##_destroy, P##_open, P##_decode, P##_close};

WRAP(png)
WRAP(webp)

static int failures, checks;
#define CHECK(cond, ...)                                                                                           \
    do {                                                                                                           \
        checks++;                                                                                                  \
        if (!(cond)) {                                                                                             \
            failures++;                                                                                            \
            if (failures < 60) { printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
        }                                                                                                          \
    } while (0)

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(n > 0 ? (size_t)n + 256 : 256);
    *size = fread(d, 1, (size_t)n, f);
    fclose(f);
    return d;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The pull decode: status, info, and pixels at w x h (out allocated here). */
static imago_status pull(const codec *c, const uint8_t *data, size_t size, uint32_t w, uint32_t h,
                         imago_image_info *info, uint8_t **out, imago_error *err) {
    imago_input in = {data, size, -1};
    *out = NULL;
    void *d = c->open(&in, info, err);
    if (d == NULL) return (imago_status)err->status;
    if (w == 0) { w = info->width; h = info->height; }
    if ((uint64_t)w * h > (64u << 20)) {   /* the caller's pixel limit would refuse it */
        c->close(d);
        imago_error_set(err, IMAGO_ERR_TOO_LARGE, "%ux%u over the check's limit", w, h);
        return IMAGO_ERR_TOO_LARGE;
    }
    *out = malloc((size_t)w * h * 4);
    imago_status st = c->decode(d, *out, (size_t)w * 4, w, h, NULL, err);
    c->close(d);
    return st;
}

typedef struct plan {
    size_t fixed;        /* piece size; 0: random pieces */
    unsigned seed;
    int previews;
    int zero_pushes;     /* interleave zero-length pushes */
    size_t cancel_after; /* raise the cancel flag after this many bytes (0: never) */
    const uint8_t *full; /* the full-size pull decode: previews keep every pixel decoded so far */
} plan;

typedef struct result {
    imago_status status;       /* first error, or finish's status */
    int where;                 /* 0 create, 1 push, 2 start, 3 finish, 4 render */
    imago_image_info info;
    int header_seen, complete_seen, previews, last_detail, detail_ok;
    size_t held_max;           /* mallinfo2 peak above the start, output excluded */
    imago_error err;
} result;

/* Adam7 pass (1...7) that carries pixel (x, y). */
static int adam7_pass(uint32_t x, uint32_t y) {
    if (y % 8 == 0 && x % 8 == 0) return 1;
    if (y % 8 == 0 && x % 8 == 4) return 2;
    if (y % 8 == 4 && x % 4 == 0) return 3;
    if (y % 4 == 0 && x % 4 == 2) return 4;
    if (y % 4 == 2 && x % 2 == 0) return 5;
    if (y % 2 == 0) return 6;
    return 7;
}

static size_t heap_now(void) {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;   /* small blocks and mmapped ones */
}

/* Streams data through c per plan into out (w x h; w == 0: full size, out allocated). */
static void stream(const codec *c, const uint8_t *data, size_t size, const plan *p, uint32_t *w, uint32_t *h,
                   uint8_t **out, result *r) {
    memset(r, 0, sizeof *r);
    r->detail_ok = 1;
    *out = NULL;
    size_t base = heap_now();
    imago_decode_control control = {0};
    void *s = c->create(&r->err);
    if (s == NULL) { r->status = (imago_status)r->err.status; return; }
    unsigned rng = p->seed * 2654435761u + 1;
    size_t off = 0, out_bytes = 0;
    int started = 0;
    uint8_t *dst = NULL;
    for (;;) {
        size_t piece = p->fixed;
        if (piece == 0) { rng = rng * 1103515245u + 12345u; piece = 1 + (rng >> 8) % 9000; }
        if (piece > size - off) piece = size - off;
        if (p->cancel_after && off >= p->cancel_after) imago_control_cancel(&control);
        if (p->zero_pushes) {
            size_t consumed = 99;
            imago_stream_state state;
            imago_status st = c->push(s, data + off, 0, &consumed, &state, &control, &r->err);
            if (st != IMAGO_OK) { r->status = st; r->where = 1; goto done; }
            CHECK(consumed == 0, "%s zero push consumed %zu", c->name, consumed);
        }
        if (piece == 0 && off == size) break;
        size_t consumed = 0;
        imago_stream_state state;
        imago_status st = c->push(s, data + off, piece, &consumed, &state, &control, &r->err);
        if (st != IMAGO_OK) { r->status = st; r->where = 1; goto done; }
        CHECK(consumed <= piece, "%s consumed %zu of %zu", c->name, consumed, piece);
        CHECK(consumed == piece || state == IMAGO_STREAM_HEADER_READY || state == IMAGO_STREAM_PREVIEW_READY,
              "%s short take %zu of %zu in state %d", c->name, consumed, piece, state);
        off += consumed;
        size_t held = heap_now() - base - out_bytes;
        if (held > r->held_max && heap_now() > base + out_bytes) r->held_max = held;
        if (state == IMAGO_STREAM_HEADER_READY) {
            CHECK(!r->header_seen, "%s header twice", c->name);
            r->header_seen = 1;
            CHECK(c->info(s, &r->info) == IMAGO_OK, "%s info after header", c->name);
            if (*w == 0) { *w = r->info.width; *h = r->info.height; }
            if ((uint64_t)*w * *h > (64u << 20)) {
                imago_error_set(&r->err, IMAGO_ERR_TOO_LARGE, "%ux%u over the check's limit", *w, *h);
                r->status = IMAGO_ERR_TOO_LARGE;
                r->where = 2;
                goto done;
            }
            out_bytes = (size_t)*w * *h * 4;
            *out = malloc(out_bytes);
            memset(*out, 0xA5, out_bytes);
            st = c->start(s, *out, (size_t)*w * 4, *w, *h, p->previews, &r->err);
            if (st != IMAGO_OK) { r->status = st; r->where = 2; goto done; }
            started = 1;
            if (p->previews) dst = malloc(out_bytes);   /* not counted as held: previews are off in the bench */
        } else if (state == IMAGO_STREAM_PREVIEW_READY) {
            CHECK(p->previews, "%s preview while previews off", c->name);
            r->previews++;
            int32_t detail = 0;
            st = c->render(s, dst, (size_t)*w * 4, *w, *h, &detail, &control, &r->err);
            CHECK(st == IMAGO_OK, "%s render full: %d %s", c->name, st, r->err.message);
            if (detail <= r->last_detail) r->detail_ok = 0;
            if (st == IMAGO_OK && p->full && *w == r->info.width && *h == r->info.height) {
                size_t lost = 0;
                for (uint32_t y = 0; y < *h; y++)
                    for (uint32_t x = 0; x < *w; x++)
                        if (adam7_pass(x, y) <= detail &&
                            memcmp(dst + ((size_t)y * *w + x) * 4, p->full + ((size_t)y * *w + x) * 4, 4) != 0)
                            lost++;
                CHECK(lost == 0, "%s preview %d: %zu decoded pixels not shown", c->name, detail, lost);
            }
            r->last_detail = detail;
            uint32_t sw = *w > 1 ? *w / 2 : 1, sh = *h > 2 ? *h / 3 : 1;
            int32_t detail2 = 0;
            st = c->render(s, dst, (size_t)*w * 4, sw, sh, &detail2, &control, &r->err);
            CHECK(st == IMAGO_OK && detail2 == detail, "%s render small: %d", c->name, st);
        } else if (state == IMAGO_STREAM_COMPLETE) {
            r->complete_seen = 1;
        }
        if (off == size && state != IMAGO_STREAM_HEADER_READY && state != IMAGO_STREAM_PREVIEW_READY) break;
    }
    (void)started;
    r->status = c->finish(s, &r->err);
    r->where = 3;
    if (r->status == IMAGO_OK && !started) r->status = IMAGO_ERR_INVALID_ARGUMENT;
done:
    c->destroy(s);
    free(dst);
}

static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int same_info(const imago_image_info *a, const imago_image_info *b) {
    return a->width == b->width && a->height == b->height && a->bit_depth == b->bit_depth &&
           a->color_model == b->color_model && a->has_alpha == b->has_alpha && a->orientation == b->orientation &&
           a->progressive == b->progressive && a->lossless == b->lossless && a->animated == b->animated &&
           a->frame_count == b->frame_count && a->working_bytes == b->working_bytes;
}

static void check_valid(const codec *c, const char *path) {
    size_t size;
    uint8_t *data = read_file(path, &size);
    if (!data) { CHECK(0, "cannot read %s", path); return; }
    imago_image_info info;
    imago_error err;
    uint8_t *ref;
    imago_status st = pull(c, data, size, 0, 0, &info, &ref, &err);
    CHECK(st == IMAGO_OK, "%s: pull failed %d %s", path, st, err.message);
    uint8_t *full = ref;
    if (st != IMAGO_OK) { free(full); free(data); return; }
    uint32_t sizes[4][2] = {{info.width, info.height},
                            {(info.width + 1) / 2, (info.height + 1) / 2},
                            {(info.width + 2) / 3, (info.height + 2) / 3},
                            {0, 0}};
    uint32_t tw = info.width < 100 ? info.width : 100;
    uint32_t th = (uint32_t)((uint64_t)info.height * tw / info.width);
    if (th == 0) th = 1;
    if (th > info.height) th = info.height;
    sizes[3][0] = tw; sizes[3][1] = th;
    size_t pieces[] = {1, 7, 4096, 65536, 0, 0, (size_t)-1};
    int total_previews = 0, runs = 0;
    for (int z = 0; z < 4; z++) {
        uint32_t w = sizes[z][0], h = sizes[z][1];
        imago_image_info pinfo;
        st = pull(c, data, size, w, h, &pinfo, &ref, &err);
        CHECK(st == IMAGO_OK, "%s: pull %ux%u failed %d", path, w, h, st);
        if (st != IMAGO_OK) { free(ref); continue; }
        for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
            if (pieces[k] == 1 && size > 40000) continue;
            for (int previews = 0; previews < 2; previews++) {
                plan p = {pieces[k] == (size_t)-1 ? size : pieces[k], (unsigned)(k * 7 + z), previews, k == 5, 0, full};
                uint32_t sw = w, sh = h;
                uint8_t *out;
                result r;
                stream(c, data, size, &p, &sw, &sh, &out, &r);
                runs++;
                CHECK(r.status == IMAGO_OK, "%s: stream %ux%u piece %zu previews %d: status %d at %d (%s)", path, w, h,
                      p.fixed, previews, r.status, r.where, r.err.message);
                if (r.status == IMAGO_OK) {
                    CHECK(same_info(&r.info, &info), "%s: info differs (working %llu vs %llu, frames %d vs %d)", path,
                          (unsigned long long)r.info.working_bytes, (unsigned long long)info.working_bytes,
                          r.info.frame_count, info.frame_count);
                    CHECK(memcmp(out, ref, (size_t)w * h * 4) == 0, "%s: pixels differ %ux%u piece %zu previews %d",
                          path, w, h, p.fixed, previews);
                    CHECK(r.complete_seen || info.animated, "%s: no COMPLETE", path);
                    CHECK(!r.complete_seen || !info.animated, "%s: COMPLETE for an animation", path);
                    CHECK(r.detail_ok, "%s: preview detail not increasing", path);
                    if (!previews || !info.progressive || !strcmp(c->name, "webp")) {
                        CHECK(r.previews == 0, "%s: %d previews unexpected", path, r.previews);
                    }
                    total_previews += r.previews;
                }
                free(out);
            }
        }
        /* trailing garbage is ignored */
        uint8_t *more = malloc(size + 300);
        memcpy(more, data, size);
        for (int i = 0; i < 300; i++) more[size + i] = (uint8_t)(i * 37 + 11);
        plan p = {4096, 3, 1, 0, 0};
        uint32_t sw = w, sh = h;
        uint8_t *out;
        result r;
        stream(c, more, size + 300, &p, &sw, &sh, &out, &r);
        CHECK(r.status == IMAGO_OK && memcmp(out, ref, (size_t)w * h * 4) == 0, "%s: trailing garbage: %d (%s)",
              path, r.status, r.err.message);
        free(out);
        free(more);
        free(ref);
    }
    /* prefixes: truncated (empty for none), never a crash */
    size_t cuts[40];
    int ncuts = 0;
    size_t fixed_cuts[] = {0, 1, 7, 8, 12, 16, 20, 30, 33, 40, 50, 64, 100};
    for (size_t i = 0; i < sizeof fixed_cuts / sizeof fixed_cuts[0]; i++) if (fixed_cuts[i] < size) cuts[ncuts++] = fixed_cuts[i];
    for (int i = 1; i < 20; i++) cuts[ncuts++] = size * i / 20;
    cuts[ncuts++] = size > 0 ? size - 1 : 0;
    if (size > 2) cuts[ncuts++] = size - 2;
    int truncated_ok = 0;
    for (int i = 0; i < ncuts; i++) {
        plan p = {cuts[i] > 2000 ? 997 : 5, 9, i & 1, 0, 0};
        uint32_t sw = info.width, sh = info.height;
        uint8_t *out;
        result r;
        stream(c, data, cuts[i], &p, &sw, &sh, &out, &r);
        imago_status want = cuts[i] == 0 ? IMAGO_ERR_EMPTY : IMAGO_ERR_TRUNCATED;
        /* a WebP cut only in trailing chunks (EXIF, padding) still holds the whole image */
        int ok = r.status == want || (r.status == IMAGO_OK && !strcmp(c->name, "webp") && cuts[i] + 2 >= size);
        CHECK(ok, "%s: prefix %zu/%zu: status %d at %d (%s)", path, cuts[i], size, r.status, r.where, r.err.message);
        truncated_ok += ok;
        free(out);
    }
    /* cancellation: raised before the first byte, and midway */
    for (int midway = 0; midway < 2; midway++) {
        plan p = {midway ? 64 : 4096, 1, 0, 0, midway ? (size / 2 > 0 ? size / 2 : 1) : 0};
        uint32_t sw = info.width, sh = info.height;
        uint8_t *out;
        result r;
        if (!midway) {
            imago_decode_control control = {0};
            imago_control_cancel(&control);
            void *s = c->create(&err);
            size_t consumed;
            imago_stream_state state;
            st = c->push(s, data, size, &consumed, &state, &control, &err);
            if (st == IMAGO_OK && state == IMAGO_STREAM_HEADER_READY) {
                out = malloc((size_t)info.width * info.height * 4);
                c->start(s, out, (size_t)info.width * 4, info.width, info.height, 0, &err);
                st = c->push(s, data + consumed, size - consumed, &consumed, &state, &control, &err);
                free(out);
            }
            c->destroy(s);
            CHECK(st == IMAGO_ERR_CANCELLED, "%s: cancel before start: %d", path, st);
        } else {
            stream(c, data, size, &p, &sw, &sh, &out, &r);
            /* an animation keeps its bytes and decodes at finish: nothing to cancel midway */
            CHECK(r.status == IMAGO_ERR_CANCELLED || (info.animated && r.status == IMAGO_OK) ||
                  (size < 130 && r.status == IMAGO_OK),
                  "%s: cancel midway: %d", path, r.status);
            free(out);
        }
    }
    printf("ok-ish %-5s %-32s %5ux%-5u %7zu B  %3d runs, %3d previews, %d/%d prefixes\n", c->name, base_name(path),
           info.width, info.height, size, runs, total_previews, truncated_ok, ncuts);
    free(full);
    free(data);
}

/* Calls out of order are refused, not crashes. */
static void check_misuse(const codec *c, const char *path) {
    size_t size;
    uint8_t *data = read_file(path, &size);
    imago_error err;
    imago_image_info info;
    void *s = c->create(&err);
    uint8_t px[64];
    int32_t detail;
    size_t consumed;
    imago_stream_state state;
    CHECK(c->info(s, &info) == IMAGO_ERR_INVALID_ARGUMENT, "%s: info before the header", c->name);
    CHECK(c->start(s, px, 16, 1, 1, 0, &err) == IMAGO_ERR_INVALID_ARGUMENT, "%s: start before the header", c->name);
    CHECK(c->render(s, px, 16, 1, 1, &detail, NULL, &err) == IMAGO_ERR_INVALID_ARGUMENT, "%s: render before start", c->name);
    CHECK(c->push(s, data, 0, &consumed, &state, NULL, &err) == IMAGO_OK && consumed == 0 && state == IMAGO_STREAM_NEEDS_INPUT,
          "%s: zero push first", c->name);
    CHECK(c->finish(s, &err) == IMAGO_ERR_EMPTY, "%s: finish with no byte", c->name);
    size_t off = 0;
    while (off < size) {
        CHECK(c->push(s, data + off, size - off, &consumed, &state, NULL, &err) == IMAGO_OK, "%s: push", c->name);
        off += consumed;
        if (state == IMAGO_STREAM_HEADER_READY) break;
    }
    CHECK(state == IMAGO_STREAM_HEADER_READY, "%s: no header", c->name);
    CHECK(c->push(s, data + off, size - off, &consumed, &state, NULL, &err) == IMAGO_ERR_INVALID_ARGUMENT,
          "%s: push before start", c->name);
    c->info(s, &info);
    uint8_t *out = malloc((size_t)info.width * info.height * 4);
    CHECK(c->start(s, out, 4, info.width + 1, 1, 0, &err) == IMAGO_ERR_INVALID_ARGUMENT, "%s: start upsampling", c->name);
    CHECK(c->start(s, out, (size_t)info.width * 4, info.width, info.height, 1, &err) == IMAGO_OK, "%s: start", c->name);
    CHECK(c->start(s, out, (size_t)info.width * 4, info.width, info.height, 1, &err) == IMAGO_ERR_INVALID_ARGUMENT,
          "%s: start twice", c->name);
    CHECK(c->render(s, px, 16, 1, 1, &detail, NULL, &err) == IMAGO_ERR_INVALID_ARGUMENT, "%s: render with no preview",
          c->name);
    CHECK(c->finish(s, &err) == IMAGO_ERR_TRUNCATED, "%s: finish before the end", c->name);
    c->destroy(s);
    c->destroy(NULL);
    free(out);
    free(data);
}

static void check_invalid(const codec *c, const char *path) {
    size_t size;
    uint8_t *data = read_file(path, &size);
    imago_image_info info;
    imago_error err = {0};
    uint8_t *ref;
    imago_status pst = pull(c, data, size, 0, 0, &info, &ref, &err);
    free(ref);
    imago_status sst[2];
    char msg[2][IMAGO_MESSAGE_CAPACITY];
    int where[2];
    for (int k = 0; k < 2; k++) {
        plan p = {k ? 7 : size + 1, 0, 1, 0, 0};
        uint32_t w = 0, h = 0;
        uint8_t *out;
        result r;
        stream(c, data, size, &p, &w, &h, &out, &r);
        sst[k] = r.status;
        where[k] = r.where;
        snprintf(msg[k], sizeof msg[k], "%s", r.err.message);
        free(out);
    }
    CHECK(sst[0] != IMAGO_OK && sst[1] != IMAGO_OK, "%s: invalid file accepted", path);
    CHECK(sst[0] == sst[1], "%s: whole %d vs pieces %d", path, sst[0], sst[1]);
    printf("invalid %-5s %-42s pull %d (%s) | stream %d at %s (%s)%s\n", c->name, base_name(path), pst, pst ? err.message : "",
           sst[0], where[0] == 1 ? "push" : where[0] == 3 ? "finish" : "other", msg[0], pst == sst[0] ? "" : "  [class differs]");
    free(data);
}

static void bench(const codec *c, const char *path) {
    size_t size;
    uint8_t *data = read_file(path, &size);
    imago_image_info info;
    imago_error err;
    uint8_t *ref;
    size_t h0 = heap_now();
    double t0 = now();
    imago_status st = pull(c, data, size, 0, 0, &info, &ref, &err);
    double t_pull = now() - t0;
    (void)h0;
    CHECK(st == IMAGO_OK, "%s: pull %d", path, st);
    for (int z = 0; z < 2; z++) {
        uint32_t w = z ? info.width / 3 : info.width, h = z ? info.height / 3 : info.height;
        uint8_t *zref = ref;
        if (z) {
            t0 = now();
            pull(c, data, size, w, h, &info, &zref, &err);
            t_pull = now() - t0;
        }
        plan p = {65536, 0, 0, 0, 0};
        uint8_t *out;
        result r;
        t0 = now();
        stream(c, data, size, &p, &w, &h, &out, &r);
        double t_stream = now() - t0;
        CHECK(r.status == IMAGO_OK && memcmp(out, zref, (size_t)w * h * 4) == 0, "%s: big stream %d", path, r.status);
        printf("bench %-5s %-24s %ux%u -> %ux%u (%s%s): pull %.3f s, stream 64 KiB %.3f s; stream held at most %.2f MB "
               "beyond the output (input %.2f MB)\n",
               c->name, base_name(path), info.width, info.height, w, h, !strcmp(c->name, "png") ? (info.progressive ? "Adam7" : "non-interlaced") : info.lossless ? "lossless" : "lossy",
               info.has_alpha ? "+alpha" : "", t_pull, t_stream, r.held_max / 1048576.0, size / 1048576.0);
        free(out);
        if (z) free(zref);
    }
    if (info.progressive) {   /* Adam7 with previews: stops, each rendered full size and smaller */
        uint32_t w = info.width, h = info.height;
        plan p = {65536, 0, 1, 0, 0, NULL};
        uint8_t *out;
        result r;
        t0 = now();
        stream(c, data, size, &p, &w, &h, &out, &r);
        double t_stream = now() - t0;
        CHECK(r.status == IMAGO_OK && memcmp(out, ref, (size_t)w * h * 4) == 0, "%s: big stream previews %d", path,
              r.status);
        printf("bench %-5s %-24s previews on: %d stops (last detail %d), %.3f s with two renders per stop\n", c->name,
               base_name(path), r.previews, r.last_detail, t_stream);
        free(out);
    }
    free(ref);
    free(data);
}

/* ---- PNG chunk framing (png_stream_chunks.c): ancillary chunks are skipped, not buffered ---- */

typedef struct buf { uint8_t *p; size_t n, cap; } buf;

static void put(buf *b, const void *d, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    if (d) memcpy(b->p + b->n, d, n);
    else for (size_t i = 0; i < n; i++) b->p[b->n + i] = (uint8_t)(i * 131 + 7);   /* includes FF D9, IEND-like bytes */
    b->n += n;
}

static void put32(buf *b, uint32_t v) {
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(b, x, 4);
}

/* A chunk declaring length bytes, of which have are written (data NULL: a pattern), CRC unless short. */
static void put_chunk(buf *b, const char *type, uint32_t length, const uint8_t *data, size_t have, int bad_crc) {
    put32(b, length);
    size_t at = b->n;
    put(b, type, 4);
    put(b, data, have);
    if (have < length) return;
    uint32_t crc = (uint32_t)crc32(0L, b->p + at, (uInt)(4 + have));
    put32(b, bad_crc ? crc ^ 1 : crc);
}

typedef struct extra {
    int where;           /* 0 before IHDR, 1 after IHDR, 2 before the first IDAT, 3 inside the IDATs, 4 before IEND */
    const char *type;
    uint32_t length;
    size_t have;         /* bytes written (== length for a whole chunk) */
    int bad_crc;
} extra;

/* png with extras inserted (where 3 splits the first IDAT in two around them). */
static buf png_with(const uint8_t *png, size_t size, const extra *x, int nx) {
    buf b = {0};
    put(&b, png, 8);
    size_t off = 8;
    int seen_idat = 0;
    for (int w = 0; w < nx; w++) if (x[w].where == 0) put_chunk(&b, x[w].type, x[w].length, NULL, x[w].have, x[w].bad_crc);
    while (off + 12 <= size) {
        uint32_t len = (uint32_t)png[off] << 24 | (uint32_t)png[off + 1] << 16 | (uint32_t)png[off + 2] << 8 | png[off + 3];
        const char *type = (const char *)png + off + 4;
        int idat = !memcmp(type, "IDAT", 4);
        int where = idat && !seen_idat ? 2 : !memcmp(type, "IEND", 4) ? 4 : -1;
        for (int w = 0; w < nx; w++)
            if (x[w].where == where) put_chunk(&b, x[w].type, x[w].length, NULL, x[w].have, x[w].bad_crc);
        if (idat && !seen_idat && len >= 2) {   /* split: IDAT, [where 3], IDAT */
            put_chunk(&b, "IDAT", len / 2, png + off + 8, len / 2, 0);
            for (int w = 0; w < nx; w++) if (x[w].where == 3) put_chunk(&b, x[w].type, x[w].length, NULL, x[w].have, x[w].bad_crc);
            put_chunk(&b, "IDAT", len - len / 2, png + off + 8 + len / 2, len - len / 2, 0);
        } else {
            put(&b, png + off, (size_t)len + 12);
        }
        if (!memcmp(type, "IHDR", 4))
            for (int w = 0; w < nx; w++) if (x[w].where == 1) put_chunk(&b, x[w].type, x[w].length, NULL, x[w].have, x[w].bad_crc);
        seen_idat |= idat;
        off += (size_t)len + 12;
    }
    return b;
}

/* Pull vs stream (pieces of 7, 16 KiB and whole, previews on and off): same status, same pixels. */
static imago_status chunk_parity(const char *name, const uint8_t *data, size_t size, int want) {
    imago_image_info info;
    imago_error err = {0};
    uint8_t *ref;
    imago_status pst = pull(&png_codec, data, size, 0, 0, &info, &ref, &err);
    CHECK(want < 0 || (int)pst == want, "chunks %s: pull %d (%s), expected %d", name, pst, err.message, want);
    size_t pieces[] = {7, 16384, size};
    for (size_t k = 0; k < 3; k++) {
        if (k == 0 && size > 200000) continue;
        for (int previews = 0; previews < 2; previews++) {
            plan p = {pieces[k], 0, previews, 0, 0};
            uint32_t w = 0, h = 0;
            uint8_t *out;
            result r;
            stream(&png_codec, data, size, &p, &w, &h, &out, &r);
            CHECK(r.status == pst, "chunks %s: piece %zu previews %d: stream %d (%s), pull %d (%s)", name, pieces[k],
                  previews, r.status, r.err.message, pst, err.message);
            if (r.status == IMAGO_OK && pst == IMAGO_OK) {
                CHECK(w == info.width && h == info.height && memcmp(out, ref, (size_t)w * h * 4) == 0,
                      "chunks %s: pixels differ (piece %zu)", name, pieces[k]);
            }
            free(out);
        }
    }
    free(ref);
    return pst;
}

static void check_chunks(const char *corpus) {
    const char *files[] = {"rgb-8.png", "palette-4-trns-interlaced.png", "gray-8-key.png", "rgba-8-interlaced.png"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/png/%s", corpus, files[f]);
        size_t size;
        uint8_t *png = read_file(path, &size);
        if (!png) { CHECK(0, "cannot read %s", path); continue; }
        struct { const char *name; extra x[3]; int nx; int want; } v[] = {
            {"private 100 KB before and after IDAT", {{2, "prVt", 100000, 100000, 0}, {4, "prVt", 100000, 100000, 0}}, 2, IMAGO_OK},
            {"text, zTXt, iCCP, eXIf (garbage)", {{1, "tEXt", 5000, 5000, 0}, {2, "iCCP", 3000, 3000, 0}, {4, "eXIf", 70000, 70000, 0}}, 3, IMAGO_OK},
            {"zTXt bad CRC", {{2, "zTXt", 4000, 4000, 1}, {4, "tEXt", 10, 10, 1}}, 2, IMAGO_OK},
            {"gAMA before IHDR", {{0, "gAMA", 4, 4, 0}}, 1, IMAGO_ERR_CORRUPT},
            {"private before IHDR", {{0, "prVt", 1000, 1000, 0}}, 1, -1},
            {"private between IDATs", {{3, "prVt", 1000, 1000, 0}}, 1, IMAGO_ERR_CORRUPT},
            {"tRNS of 300 bytes", {{2, "tRNS", 300, 300, 0}}, 1, -1},
            {"ancillary over libpng's 8e6 limit before IDAT", {{2, "prVt", 8000001, 8000001, 0}}, 1, IMAGO_OK},
            {"ancillary over libpng's 8e6 limit after IDAT", {{4, "prVt", 8000001, 8000001, 0}}, 1, IMAGO_OK},
            {"ancillary at libpng's limit", {{2, "prVt", 8000000, 8000000, 0}}, 1, IMAGO_OK},
            {"length over 2^31-1 (ancillary)", {{2, "prVt", 0x80000000u, 100, 0}}, 1, IMAGO_ERR_CORRUPT},
            {"length over 2^31-1 (critical)", {{2, "ZZZZ", 0xfffffff0u, 100, 0}}, 1, IMAGO_ERR_CORRUPT},
            {"unknown critical chunk", {{2, "ZZZZ", 100, 100, 0}}, 1, IMAGO_ERR_CORRUPT},
        };
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
            buf b = png_with(png, size, v[i].x, v[i].nx);
            char name[256];
            snprintf(name, sizeof name, "%s + %s", files[f], v[i].name);
            imago_status pst = chunk_parity(name, b.p, b.n, v[i].want);
            if (f == 0) printf("chunks %-58s pull %d (stream checked equal)\n", v[i].name, pst);
            /* every prefix of a file with skipped chunks is truncated */
            if (i == 0) {
                for (size_t cut = 1; cut < b.n; cut += cut < 64 ? 1 : 997) {
                    plan p = {cut > 5000 ? 4096 : 3, 0, 0, 0, 0};
                    uint32_t w = 0, h = 0;
                    uint8_t *out;
                    result r;
                    stream(&png_codec, b.p, cut, &p, &w, &h, &out, &r);
                    CHECK(r.status == IMAGO_ERR_TRUNCATED, "chunks %s: prefix %zu: %d", name, cut, r.status);
                    free(out);
                }
            }
            free(b.p);
        }
        /* a kept chunk declaring more than the framer passes: corrupt at once, nothing buffered */
        const char *kept[] = {"PLTE", "IHDR", "IEND", "ZZZZ", "IDAx"};
        for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++) {
            extra x = {2, kept[k], 0x7fffffffu, 65536, 0};
            buf b = png_with(png, size, &x, 1);
            plan p = {16384, 0, 0, 0, 0};
            uint32_t w = 0, h = 0;
            uint8_t *out;
            result r;
            stream(&png_codec, b.p, b.n, &p, &w, &h, &out, &r);
            CHECK(r.status == IMAGO_ERR_CORRUPT, "chunks %s + huge %s: %d (%s)", files[f], kept[k], r.status, r.err.message);
            if (f == 0) printf("chunks huge kept %s (2^31-1 declared): stream %d at %s (%s)\n", kept[k], r.status,
                               r.where == 1 ? "push" : "other", r.err.message);
            free(out);
            free(b.p);
        }
        free(png);
    }
}

/* Big private chunks pushed in 16 KiB pieces: time and bytes held (meaningful without sanitizers). */
static void bench_chunks(const char *corpus) {
    char path[4096];
    snprintf(path, sizeof path, "%s/png/rgb-8-interlaced.png", corpus);
    size_t size;
    uint8_t *png = read_file(path, &size);
    if (!png) { CHECK(0, "cannot read %s", path); return; }
    struct { const char *name; int before, after; uint32_t each; imago_status want; } v[] = {
        {"one 7.9 MB chunk before IDAT, one after", 1, 1, 7900000, IMAGO_OK},
        {"four 7.9 MB chunks before IDAT, four after", 4, 4, 7900000, IMAGO_OK},
        {"one 8 MiB chunk before IDAT, one after", 1, 1, 8u << 20, IMAGO_OK},
        {"one 64 MiB chunk before IDAT", 1, 0, 64u << 20, IMAGO_OK},
        {"one 64 MiB chunk after IDAT", 0, 1, 64u << 20, IMAGO_OK},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        extra x[8];
        int nx = 0;
        for (int k = 0; k < v[i].before; k++) x[nx++] = (extra){2, "prVt", v[i].each, v[i].each, 0};
        for (int k = 0; k < v[i].after; k++) x[nx++] = (extra){4, "prVt", v[i].each, v[i].each, 0};
        buf b = png_with(png, size, x, nx);
        imago_image_info info;
        imago_error err = {0};
        uint8_t *ref;
        double t0 = now();
        imago_status pst = pull(&png_codec, b.p, b.n, 0, 0, &info, &ref, &err);
        double t_pull = now() - t0;
        plan p = {16384, 0, 0, 0, 0};
        uint32_t w = 0, h = 0;
        uint8_t *out;
        result r;
        t0 = now();
        stream(&png_codec, b.p, b.n, &p, &w, &h, &out, &r);
        double t_stream = now() - t0;
        CHECK(pst == v[i].want && r.status == pst, "big chunks %s: pull %d, stream %d (%s)", v[i].name, pst, r.status,
              r.err.message);
        if (pst == IMAGO_OK && r.status == IMAGO_OK) CHECK(memcmp(out, ref, (size_t)w * h * 4) == 0, "big chunks %s: pixels", v[i].name);
        CHECK(r.held_max < (1u << 20), "big chunks %s: held %zu bytes", v[i].name, r.held_max);
        printf("bench chunks %-52s %6.1f MB in 16 KiB pushes: pull %d %.3f s, stream %d %.3f s (%.1f ms/MB), held at most %.1f KB\n",
               v[i].name, b.n / 1e6, pst, t_pull, r.status, t_stream, t_stream * 1e3 / (b.n / 1e6), r.held_max / 1024.0);
        free(out);
        free(ref);
        free(b.p);
    }
    free(png);
}

static void each(const char *pattern, const codec *c, void (*fn)(const codec *, const char *)) {
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0) return;
    for (size_t i = 0; i < g.gl_pathc; i++) fn(c, g.gl_pathv[i]);
    globfree(&g);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR [BIG_FILE...]\n", argv[0]);
        return 2;
    }
    char pattern[4096];
    const char *only = getenv("ONLY");   /* png, webp, big */
    if (!only || !strcmp(only, "png")) {
        snprintf(pattern, sizeof pattern, "%s/png/*.png", argv[1]);
        each(pattern, &png_codec, check_valid);
        snprintf(pattern, sizeof pattern, "%s/png/rgb-8-interlaced.png", argv[1]);
        each(pattern, &png_codec, check_misuse);
        snprintf(pattern, sizeof pattern, "%s/invalid/*png*", argv[1]);
        each(pattern, &png_codec, check_invalid);
        snprintf(pattern, sizeof pattern, "%s/invalid/empty.bin", argv[1]);
        each(pattern, &png_codec, check_invalid);
    }
    if (!only || !strcmp(only, "png") || !strcmp(only, "chunks")) {
        check_chunks(argv[1]);
        bench_chunks(argv[1]);
    }
    if (!only || !strcmp(only, "webp")) {
        snprintf(pattern, sizeof pattern, "%s/webp/*.webp", argv[1]);
        each(pattern, &webp_codec, check_valid);
        snprintf(pattern, sizeof pattern, "%s/webp/lossy-q80.webp", argv[1]);
        each(pattern, &webp_codec, check_misuse);
        snprintf(pattern, sizeof pattern, "%s/webp/lossless.webp", argv[1]);
        each(pattern, &webp_codec, check_misuse);
        snprintf(pattern, sizeof pattern, "%s/invalid/*webp*", argv[1]);
        each(pattern, &webp_codec, check_invalid);
        snprintf(pattern, sizeof pattern, "%s/invalid/text.txt", argv[1]);
        each(pattern, &webp_codec, check_invalid);
    }
    for (int i = 2; i < argc; i++) {
        const char *dot = strrchr(argv[i], '.');
        bench(dot && !strcmp(dot, ".webp") ? &webp_codec : &png_codec, argv[i]);
    }
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
