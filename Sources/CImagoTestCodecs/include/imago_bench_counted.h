/* The region whose instructions the bench counts under callgrind (ImagoBench's
 * InstructionCounter): callgrind starts and stops collecting as it enters and leaves this
 * function (--toggle-collect) and writes one dump as it leaves (--dump-after), so each call is
 * one sample. It is C, not Swift, because callgrind matches a symbol name, and a Swift caller
 * would call a Swift function's own entry point rather than an @_cdecl thunk. */
#ifndef IMAGO_BENCH_COUNTED_H
#define IMAGO_BENCH_COUNTED_H

/* Calls body(context) once. Its name is what the counter passes to callgrind: keep the two alike. */
void imago_bench_counted(void (*body)(void *context), void *context);

#endif
