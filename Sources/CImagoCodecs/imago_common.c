#include "imago_common.h"

#include <stdarg.h>
#include <stdio.h>

void imago_cancel_request(int32_t *flag) {
    __atomic_store_n(flag, 1, __ATOMIC_RELAXED);
}

int32_t imago_cancel_requested(const int32_t *flag) {
    return flag != NULL && __atomic_load_n(flag, __ATOMIC_RELAXED) != 0;
}

void imago_error_set(imago_error *err, imago_status status, const char *fmt, ...) {
    if (err == NULL) return;
    err->status = (int32_t)status;
    va_list args;
    va_start(args, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, args);
    va_end(args);
}
