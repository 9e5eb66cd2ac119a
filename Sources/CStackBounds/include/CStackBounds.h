#ifndef PUSHLIQUID_CSTACKBOUNDS_H
#define PUSHLIQUID_CSTACKBOUNDS_H
#include <stddef.h>
#include <stdint.h>

/// The lowest address of the calling thread's stack, and its size in `*size`; 0 (and a size
/// of 0) when the platform cannot tell.
uintptr_t pl_stack_low(size_t *size);

#endif
