// libcurl, loaded at run time. Only the parts of its stable C ABI that one request needs are
// declared here (the values are those of curl/curl.h, unchanged since libcurl 7.x), so the
// build needs no libcurl headers and the program no libcurl until its first request.
#include "CLibcurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void CURL;
struct curl_slist;
typedef int CURLcode;

enum {
    CURLE_OK = 0,
    CURLE_WRITE_ERROR = 23,
    CURLE_OPERATION_TIMEDOUT = 28,
    CURL_GLOBAL_ALL = 3,
    CURL_ERROR_SIZE = 256,
};

enum {
    CURLOPT_WRITEDATA = 10001,
    CURLOPT_URL = 10002,
    CURLOPT_ERRORBUFFER = 10010,
    CURLOPT_WRITEFUNCTION = 20011,
    CURLOPT_POSTFIELDS = 10015,
    CURLOPT_HTTPHEADER = 10023,
    CURLOPT_CUSTOMREQUEST = 10036,
    CURLOPT_POST = 47,
    CURLOPT_FOLLOWLOCATION = 52,
    CURLOPT_NOSIGNAL = 99,
    CURLOPT_POSTFIELDSIZE_LARGE = 30120,
    CURLOPT_TIMEOUT_MS = 155,
};

enum {
    CURLINFO_RESPONSE_CODE = 0x200000 + 2,
    CURLINFO_CONTENT_TYPE = 0x100000 + 18,
};

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, int, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, int, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    char failure[256];
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    static const char *const names[] = {
#if defined(__APPLE__)
        "libcurl.4.dylib", "libcurl.dylib",
#else
        "libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4",
#endif
    };
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(curl.failure, sizeof curl.failure, "libcurl is not installed (Debian: apt-get install libcurl4): %s", why ? why : "not found");
        return;
    }
#define SYMBOL(field, name) \
    if (!(*(void **)&curl.field = dlsym(lib, name))) { \
        snprintf(curl.failure, sizeof curl.failure, "libcurl has no %s", name); \
        curl.easy_init = NULL; \
        return; \
    }
    SYMBOL(global_init, "curl_global_init")
    SYMBOL(easy_setopt, "curl_easy_setopt")
    SYMBOL(easy_perform, "curl_easy_perform")
    SYMBOL(easy_getinfo, "curl_easy_getinfo")
    SYMBOL(easy_cleanup, "curl_easy_cleanup")
    SYMBOL(easy_strerror, "curl_easy_strerror")
    SYMBOL(slist_append, "curl_slist_append")
    SYMBOL(slist_free_all, "curl_slist_free_all")
    SYMBOL(easy_init, "curl_easy_init")
#undef SYMBOL
    if (curl.global_init(CURL_GLOBAL_ALL) != CURLE_OK) {
        snprintf(curl.failure, sizeof curl.failure, "libcurl failed to initialize");
        curl.easy_init = NULL;
    }
}

typedef struct {
    unsigned char *bytes;
    size_t length, capacity, limit;
    int too_large;
} sink;

static size_t receive(char *data, size_t size, size_t count, void *context) {
    sink *s = context;
    size_t n = size * count;
    if (s->length + n > s->limit) {
        s->too_large = 1;
        return 0;  // stops the transfer (CURLE_WRITE_ERROR)
    }
    if (s->length + n > s->capacity) {
        size_t capacity = s->capacity ? s->capacity : 16384;
        while (capacity < s->length + n) capacity *= 2;
        unsigned char *grown = realloc(s->bytes, capacity);
        if (!grown) return 0;
        s->bytes = grown;
        s->capacity = capacity;
    }
    memcpy(s->bytes + s->length, data, n);
    s->length += n;
    return n;
}

pl_http_outcome pl_http_perform(const char *url, const char *method,
                                const char *const *headers, size_t header_count,
                                const void *body, size_t body_length, int has_body,
                                long timeout_ms, size_t max_body, pl_http_response *response) {
    memset(response, 0, sizeof *response);
    pthread_once(&load_once, load);
    if (!curl.easy_init) {
        snprintf(response->message, sizeof response->message, "%s", curl.failure);
        return PL_HTTP_UNAVAILABLE;
    }
    CURL *handle = curl.easy_init();
    if (!handle) {
        snprintf(response->message, sizeof response->message, "libcurl could not start a request");
        return PL_HTTP_TRANSPORT;
    }
    struct curl_slist *list = NULL;
    // libcurl would otherwise wait for "100 Continue" before sending a large body.
    list = curl.slist_append(list, "Expect:");
    for (size_t i = 0; i < header_count; i++) list = curl.slist_append(list, headers[i]);

    char error[CURL_ERROR_SIZE] = {0};
    sink received = {NULL, 0, 0, max_body, 0};
    curl.easy_setopt(handle, CURLOPT_URL, url);
    curl.easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
    curl.easy_setopt(handle, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl.easy_setopt(handle, CURLOPT_ERRORBUFFER, error);
    curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, receive);
    curl.easy_setopt(handle, CURLOPT_WRITEDATA, &received);
    curl.easy_setopt(handle, CURLOPT_HTTPHEADER, list);
    int post = has_body || strcmp(method, "POST") == 0;
    if (post) {
        curl.easy_setopt(handle, CURLOPT_POST, 1L);
        curl.easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (long long)body_length);
        curl.easy_setopt(handle, CURLOPT_POSTFIELDS, body_length ? body : "");
    }
    if (strcmp(method, post ? "POST" : "GET") != 0) {
        curl.easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method);
    }

    CURLcode code = curl.easy_perform(handle);
    pl_http_outcome outcome = PL_HTTP_OK;
    if (received.too_large) {
        outcome = PL_HTTP_BODY_TOO_LARGE;
        snprintf(response->message, sizeof response->message, "the body is larger than %zu bytes", max_body);
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
        outcome = PL_HTTP_TIMEOUT;
        snprintf(response->message, sizeof response->message, "no answer within %ld ms", timeout_ms);
    } else if (code != CURLE_OK) {
        outcome = PL_HTTP_TRANSPORT;
        snprintf(response->message, sizeof response->message, "%s", error[0] ? error : curl.easy_strerror(code));
    } else {
        long status = 0;
        const char *type = NULL;
        curl.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
        curl.easy_getinfo(handle, CURLINFO_CONTENT_TYPE, &type);
        response->status = status;
        if (type) response->content_type = strdup(type);
        response->body = received.bytes;
        response->body_length = received.length;
        received.bytes = NULL;
    }
    free(received.bytes);
    curl.slist_free_all(list);
    curl.easy_cleanup(handle);
    return outcome;
}

void pl_http_response_free(pl_http_response *response) {
    free(response->body);
    free(response->content_type);
    response->body = NULL;
    response->content_type = NULL;
}
