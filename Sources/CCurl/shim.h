#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// libcurl is opened on the first transfer, not linked: linked, its thirty
// libraries (TLS, Kerberos, LDAP, IDN...) added ~6 ms to the start of every
// command, though only fetch and pull use the network. The headers come from
// libcurl4-openssl-dev, and libcurl.so.4 from the same package.
//
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
// call; the typed wrappers below are the rest of the shim.

struct stationdb_curl_api {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    const char *error;
};

// State lives in function-local statics: Swift's importer emits the inline
// functions of a header but not its global variables.
static inline struct stationdb_curl_api *stationdb_curl_api(void) {
    static struct stationdb_curl_api api;
    return &api;
}

static inline void stationdb_curl_load(void) {
    struct stationdb_curl_api *a = stationdb_curl_api();
    void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) { a->error = dlerror(); return; }
    a->global_init = (CURLcode (*)(long))dlsym(h, "curl_global_init");
    a->easy_init = (CURL *(*)(void))dlsym(h, "curl_easy_init");
    a->easy_cleanup = (void (*)(CURL *))dlsym(h, "curl_easy_cleanup");
    a->easy_perform = (CURLcode (*)(CURL *))dlsym(h, "curl_easy_perform");
    a->easy_strerror = (const char *(*)(CURLcode))dlsym(h, "curl_easy_strerror");
    a->easy_setopt = (CURLcode (*)(CURL *, CURLoption, ...))dlsym(h, "curl_easy_setopt");
    a->easy_getinfo = (CURLcode (*)(CURL *, CURLINFO, ...))dlsym(h, "curl_easy_getinfo");
    a->slist_append = (struct curl_slist *(*)(struct curl_slist *, const char *))dlsym(h, "curl_slist_append");
    a->slist_free_all = (void (*)(struct curl_slist *))dlsym(h, "curl_slist_free_all");
    if (!a->global_init || !a->easy_init || !a->easy_cleanup || !a->easy_perform || !a->easy_strerror ||
        !a->easy_setopt || !a->easy_getinfo || !a->slist_append || !a->slist_free_all) {
        a->error = "libcurl.so.4 lacks a function stationdb needs";
        a->easy_init = NULL;
        return;
    }
    a->global_init(CURL_GLOBAL_DEFAULT);
}

/// NULL when libcurl is loaded and initialised, else why not.
static inline const char *stationdb_curl_open(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, stationdb_curl_load);
    struct stationdb_curl_api *a = stationdb_curl_api();
    return a->easy_init ? NULL : (a->error ? a->error : "libcurl.so.4 could not be loaded");
}

static inline CURL *stationdb_curl_easy_init(void) { return stationdb_curl_api()->easy_init(); }
static inline void stationdb_curl_easy_cleanup(CURL *h) { stationdb_curl_api()->easy_cleanup(h); }
static inline CURLcode stationdb_curl_easy_perform(CURL *h) { return stationdb_curl_api()->easy_perform(h); }
static inline const char *stationdb_curl_easy_strerror(CURLcode c) { return stationdb_curl_api()->easy_strerror(c); }
static inline struct curl_slist *stationdb_curl_slist_append(struct curl_slist *l, const char *s) { return stationdb_curl_api()->slist_append(l, s); }
static inline void stationdb_curl_slist_free_all(struct curl_slist *l) { stationdb_curl_api()->slist_free_all(l); }

static inline CURLcode stationdb_curl_setopt_long(CURL *h, CURLoption o, long v) { return stationdb_curl_api()->easy_setopt(h, o, v); }
static inline CURLcode stationdb_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return stationdb_curl_api()->easy_setopt(h, o, v); }
static inline CURLcode stationdb_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return stationdb_curl_api()->easy_setopt(h, o, v); }
static inline CURLcode stationdb_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return stationdb_curl_api()->easy_setopt(h, o, v); }
static inline CURLcode stationdb_curl_setopt_write(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return stationdb_curl_api()->easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode stationdb_curl_setopt_header(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return stationdb_curl_api()->easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
static inline CURLcode stationdb_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return stationdb_curl_api()->easy_getinfo(h, i, v); }
