#include "imago_common.h"

#include <stdarg.h>
#include <stdio.h>

void imago_control_cancel(imago_decode_control *control) {
    if (control != NULL) __atomic_store_n(&control->cancelled, 1, __ATOMIC_RELAXED);
}

int32_t imago_control_cancelled(const imago_decode_control *control) {
    return control != NULL && __atomic_load_n(&control->cancelled, __ATOMIC_RELAXED) != 0;
}

void imago_control_set_rows(imago_decode_control *control, int64_t rows) {
    if (control != NULL) __atomic_store_n(&control->rows, rows, __ATOMIC_RELAXED);
}

int64_t imago_control_rows(const imago_decode_control *control) {
    return control == NULL ? 0 : __atomic_load_n(&control->rows, __ATOMIC_RELAXED);
}

void imago_error_set(imago_error *err, imago_status status, const char *fmt, ...) {
    if (err == NULL) return;
    err->status = (int32_t)status;
    va_list args;
    va_start(args, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, args);
    va_end(args);
}
