// Typed wrappers around libcurl's variadic calls, which Swift cannot call directly.
// Each wrapper fixes the type of the third argument so the compiler checks it.
#ifndef SLUICE_CCURL_SHIM_H
#define SLUICE_CCURL_SHIM_H

#include <curl/curl.h>

static inline CURLcode sluice_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sluice_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sluice_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sluice_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode sluice_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode sluice_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode sluice_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode sluice_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

/// The version information of the linked libcurl (CURLVERSION_NOW is a macro Swift cannot see).
static inline const curl_version_info_data *sluice_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

#endif
