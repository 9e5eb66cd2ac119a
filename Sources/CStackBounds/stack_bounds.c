#ifndef _GNU_SOURCE
#define _GNU_SOURCE  // pthread_getattr_np
#endif
#include "CStackBounds.h"
#include <pthread.h>

uintptr_t pl_stack_low(size_t *size) {
    *size = 0;
#if defined(__APPLE__)
    pthread_t self = pthread_self();
    size_t s = pthread_get_stacksize_np(self);
    uintptr_t high = (uintptr_t)pthread_get_stackaddr_np(self);
    *size = s;
    return high - s;
#elif defined(__linux__)
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return 0;
    void *address = NULL;
    size_t s = 0;
    int failed = pthread_attr_getstack(&attributes, &address, &s);
    pthread_attr_destroy(&attributes);
    if (failed) return 0;
    *size = s;
    return (uintptr_t)address;
#else
    return 0;
#endif
}
