#ifndef IMAGO_COMMON_H
#define IMAGO_COMMON_H
/* Shared vocabulary of the C boundary. Every function Swift calls is prefixed imago_*;
 * setjmp/longjmp never leave the C function that set them up; there is no global mutable
 * state, so any function may run on many threads at once on distinct contexts. */
#include <stddef.h>
#include <stdint.h>

typedef enum imago_status {
    IMAGO_OK = 0,
    IMAGO_ERR_UNSUPPORTED = 1,   /* a format or feature this build cannot decode */
    IMAGO_ERR_CORRUPT = 2,       /* the codec rejected the data; message says why */
    IMAGO_ERR_TRUNCATED = 3,     /* the data ended before the image did */
    IMAGO_ERR_TOO_LARGE = 4,     /* header dimensions exceed the caller's pixel limit */
    IMAGO_ERR_CANCELLED = 5,     /* the cancel flag was raised between row batches */
    IMAGO_ERR_IO = 6,            /* read(2)/write(2) failed; message carries strerror */
    IMAGO_ERR_NO_MEMORY = 7,
    IMAGO_ERR_EMPTY = 8,         /* zero bytes of input */
    IMAGO_ERR_INVALID_ARGUMENT = 9
} imago_status;

#define IMAGO_MESSAGE_CAPACITY 200

/* Error detail filled by every fallible call. */
typedef struct imago_error {
    int32_t status;                        /* an imago_status */
    char message[IMAGO_MESSAGE_CAPACITY];  /* NUL-terminated, codec's own words when it has some */
} imago_error;

/* Where encoded bytes come from: memory when data != NULL, otherwise the file descriptor,
 * read sequentially from its current offset in small chunks (the whole file is never held). */
typedef struct imago_input {
    const uint8_t *data;
    size_t size;
    int32_t fd;
} imago_input;

/* One decode's shared state with Swift, which allocates it: a cancel request Swift raises and
 * C polls between row batches, and the rows decoded so far, which C publishes. Both fields are
 * accessed only through these functions (relaxed atomics); every function accepts NULL. */
typedef struct imago_decode_control {
    int32_t cancelled;
    int32_t reserved;
    int64_t rows;
} imago_decode_control;

void imago_control_cancel(imago_decode_control *control);
int32_t imago_control_cancelled(const imago_decode_control *control);
void imago_control_set_rows(imago_decode_control *control, int64_t rows);
int64_t imago_control_rows(const imago_decode_control *control);

void imago_error_set(imago_error *err, imago_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
