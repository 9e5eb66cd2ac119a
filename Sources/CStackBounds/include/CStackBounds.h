#ifndef PUSHLIQUID_CSTACKBOUNDS_H
#define PUSHLIQUID_CSTACKBOUNDS_H
#include <stddef.h>
#include <stdint.h>

/// The lowest address of the calling thread's stack, and its size in `*size`; 0 (and a size
/// of 0) when the platform cannot tell.
uintptr_t pl_stack_low(size_t *size);

/// An address in the caller's stack frame: the real stack, also under AddressSanitizer (whose
/// "fake stacks" may put a function's locals on the heap).
static inline __attribute__((always_inline)) uintptr_t pl_stack_address(void) {
    return (uintptr_t)__builtin_frame_address(0);
}

#endif
