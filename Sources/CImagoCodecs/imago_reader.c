#include "imago_reader.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

void imago_reader_init(imago_reader *reader, const imago_input *input) {
    reader->input = input;
    reader->offset = 0;
    reader->io_errno = 0;
}

int imago_reader_is_memory(const imago_reader *reader) {
    return reader->input->data != NULL;
}

const uint8_t *imago_reader_peek(const imago_reader *reader, size_t *available) {
    *available = reader->input->size - reader->offset;
    return reader->input->data + reader->offset;
}

size_t imago_reader_read(imago_reader *reader, uint8_t *dst, size_t n) {
    if (imago_reader_is_memory(reader)) {
        size_t left = reader->input->size - reader->offset;
        size_t count = n < left ? n : left;
        memcpy(dst, reader->input->data + reader->offset, count);
        reader->offset += count;
        return count;
    }
    size_t total = 0;
    while (total < n) {
        ssize_t got = read(reader->input->fd, dst + total, n - total);
        if (got > 0) {
            total += (size_t)got;
        } else if (got == 0) {
            break;
        } else if (errno != EINTR) {
            reader->io_errno = errno;
            break;
        }
    }
    reader->offset += total;
    return total;
}
