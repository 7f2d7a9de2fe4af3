#include <curl/curl.h>
#include <pthread.h>
#include <stddef.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call: these typed wrappers are the whole shim.

static inline void stationdb_curl_global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

/// Initialises libcurl once per process, before its first request.
static inline void stationdb_curl_open(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, stationdb_curl_global_init);
}

static inline CURL *stationdb_curl_easy_init(void) { return curl_easy_init(); }
static inline void stationdb_curl_easy_cleanup(CURL *h) { curl_easy_cleanup(h); }
static inline CURLcode stationdb_curl_easy_perform(CURL *h) { return curl_easy_perform(h); }
static inline const char *stationdb_curl_easy_strerror(CURLcode c) { return curl_easy_strerror(c); }
static inline struct curl_slist *stationdb_curl_slist_append(struct curl_slist *l, const char *s) { return curl_slist_append(l, s); }
static inline void stationdb_curl_slist_free_all(struct curl_slist *l) { curl_slist_free_all(l); }

static inline CURLcode stationdb_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode stationdb_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode stationdb_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode stationdb_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode stationdb_curl_setopt_write(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode stationdb_curl_setopt_header(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
static inline CURLcode stationdb_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
