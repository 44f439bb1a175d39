#ifndef IMAGO_READER_H
#define IMAGO_READER_H
/* Sequential reads from an imago_input, memory or file descriptor alike. */
#include "imago_common.h"

typedef struct imago_reader {
    const imago_input *input;
    size_t offset;       /* bytes consumed so far (memory inputs) */
    int io_errno;        /* errno of a failed read(2), 0 otherwise */
} imago_reader;

void imago_reader_init(imago_reader *reader, const imago_input *input);

/* Copies up to n bytes into dst; returns how many (0 at end of input or on an I/O error,
 * which sets io_errno). Retries short reads and EINTR so a return below n means the end. */
size_t imago_reader_read(imago_reader *reader, uint8_t *dst, size_t n);

/* Memory inputs only: the unread bytes without copying. */
const uint8_t *imago_reader_peek(const imago_reader *reader, size_t *available);

int imago_reader_is_memory(const imago_reader *reader);

#endif
