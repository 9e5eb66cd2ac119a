#ifndef PUSHLIQUID_CLIBCURL_H
#define PUSHLIQUID_CLIBCURL_H

#include <stddef.h>

/// How a request ended.
typedef enum {
    PL_HTTP_OK = 0,
    /// No complete answer within the time limit.
    PL_HTTP_TIMEOUT = 1,
    /// The body passed `max_body` bytes (the transfer was stopped there).
    PL_HTTP_BODY_TOO_LARGE = 2,
    /// Any other transport failure; `message` says which.
    PL_HTTP_TRANSPORT = 3,
    /// libcurl could not be loaded; `message` says why.
    PL_HTTP_UNAVAILABLE = 4,
} pl_http_outcome;

/// A response (or why there is none). Free with `pl_http_response_free`.
typedef struct {
    long status;
    unsigned char *body;
    size_t body_length;
    /// The Content-Type header, or NULL.
    char *content_type;
    char message[512];
} pl_http_response;

/// Sends one HTTP request with libcurl, which is loaded on first use (`dlopen`, so programs
/// that never make a request do not load it or its dependencies). Redirects are not followed;
/// `headers` are "Name: value" lines; `timeout_ms` bounds the whole exchange. Thread-safe.
pl_http_outcome pl_http_perform(const char *url, const char *method,
                                const char *const *headers, size_t header_count,
                                const void *body, size_t body_length, int has_body,
                                long timeout_ms, size_t max_body, pl_http_response *response);

/// Frees what `pl_http_perform` allocated in `response`.
void pl_http_response_free(pl_http_response *response);

#endif
