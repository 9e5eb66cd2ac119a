#ifndef PUSHLIQUID_CFUZZERDRIVER_H
#define PUSHLIQUID_CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs with their own `main` (compiler-rt's FuzzerDriver.cpp).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
