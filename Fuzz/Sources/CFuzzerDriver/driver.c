// The declaration in include/CFuzzerDriver.h is all this target provides: libFuzzer itself is
// linked by -sanitize=fuzzer.
#include "CFuzzerDriver.h"
