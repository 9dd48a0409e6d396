// libcurl, loaded when a CalDAV request is first made instead of when a process starts: like
// libpq (LibPQLoader), linking it would map OpenSSL, Kerberos, LDAP and more into every process.
// And CURLOPT_CAINFO is the only way to trust a private CA (an account's ca_file): Foundation's
// URLSession on Linux offers no hook for it.

#include "curl_loader.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
  CURLcode (*global_init)(long flags);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
  CURLcode (*easy_perform)(CURL *curl);
  CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
  void (*easy_cleanup)(CURL *curl);
  const char *(*easy_strerror)(CURLcode code);
  struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
  void (*slist_free_all)(struct curl_slist *list);
} curl;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_loaded;
static char curl_error[512];

static void load_curl(void) {
  void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(curl_error, sizeof curl_error, "cannot load libcurl (Debian package libcurl4): %s", dlerror());
    return;
  }
#define APPT_RESOLVE(field, symbol)                                                   \
  *(void **)(&curl.field) = dlsym(library, #symbol);                                 \
  if (!curl.field) {                                                                 \
    snprintf(curl_error, sizeof curl_error, "libcurl has no %s (too old?)", #symbol); \
    return;                                                                          \
  }
  APPT_RESOLVE(global_init, curl_global_init)
  APPT_RESOLVE(easy_init, curl_easy_init)
  APPT_RESOLVE(easy_setopt, curl_easy_setopt)
  APPT_RESOLVE(easy_perform, curl_easy_perform)
  APPT_RESOLVE(easy_getinfo, curl_easy_getinfo)
  APPT_RESOLVE(easy_cleanup, curl_easy_cleanup)
  APPT_RESOLVE(easy_strerror, curl_easy_strerror)
  APPT_RESOLVE(slist_append, curl_slist_append)
  APPT_RESOLVE(slist_free_all, curl_slist_free_all)
  // Not thread-safe in old libcurls: here, once, under pthread_once.
  if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    snprintf(curl_error, sizeof curl_error, "curl_global_init failed");
    return;
  }
  curl_loaded = 1;
}

int appt_curl_load(const char **error) {
  pthread_once(&curl_once, load_curl);
  if (!curl_loaded && error) *error = curl_error;
  return curl_loaded;
}

// An answer larger than this is refused rather than held in memory (a multiget of 100 events
// is well under 1 MiB; a server sending without end must not take the machine's memory).
#define APPT_CURL_MAX_ANSWER ((size_t)256 << 20)

typedef struct {
  char *data;
  size_t length;
  size_t capacity;
  int failed;     // out of memory
  int too_large;  // over APPT_CURL_MAX_ANSWER
} buffer;

static size_t append(buffer *into, const char *data, size_t length) {
  if (into->length + length > APPT_CURL_MAX_ANSWER) {
    into->too_large = 1;
    return 0;  // curl stops the transfer (CURLE_WRITE_ERROR)
  }
  if (into->length + length + 1 > into->capacity) {
    size_t capacity = into->capacity ? into->capacity : 16384;
    while (capacity < into->length + length + 1) capacity *= 2;
    char *grown = realloc(into->data, capacity);
    if (!grown) {
      into->failed = 1;
      return 0;  // curl stops the transfer (CURLE_WRITE_ERROR)
    }
    into->data = grown;
    into->capacity = capacity;
  }
  memcpy(into->data + into->length, data, length);
  into->length += length;
  into->data[into->length] = 0;
  return length;
}

static size_t write_body(char *data, size_t size, size_t count, void *user) {
  return append(user, data, size * count);
}

static size_t write_header(char *data, size_t size, size_t count, void *user) {
  return append(user, data, size * count);
}

static appt_curl_outcome outcome_of(CURLcode code) {
  switch (code) {
    case CURLE_OK: return APPT_CURL_OK;
    case CURLE_OPERATION_TIMEDOUT: return APPT_CURL_TIMED_OUT;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS: return APPT_CURL_CERTIFICATE;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_OUT_OF_MEMORY:
    case CURLE_BAD_FUNCTION_ARGUMENT: return APPT_CURL_INVALID;
    default: return APPT_CURL_UNREACHABLE;
  }
}

void appt_curl_perform(const appt_curl_request *request, appt_curl_response *response) {
  memset(response, 0, sizeof *response);
  const char *error = NULL;
  if (!appt_curl_load(&error)) {
    response->outcome = APPT_CURL_UNAVAILABLE;
    snprintf(response->message, sizeof response->message, "%s", error);
    return;
  }
  CURL *handle = curl.easy_init();
  if (!handle) {
    response->outcome = APPT_CURL_INVALID;
    snprintf(response->message, sizeof response->message, "curl_easy_init failed");
    return;
  }
  char error_buffer[CURL_ERROR_SIZE] = {0};
  buffer body = {0}, headers = {0};
  struct curl_slist *list = NULL;
  int list_failed = 0;
  for (size_t i = 0; i < request->header_count; i++) {
    struct curl_slist *grown = curl.slist_append(list, request->headers[i]);
    if (!grown) { list_failed = 1; break; }
    list = grown;
  }
  // No "Expect: 100-continue" round trip before a large body.
  if (!list_failed) {
    struct curl_slist *grown = curl.slist_append(list, "Expect:");
    if (grown) list = grown; else list_failed = 1;
  }

  CURLcode code = list_failed ? CURLE_OUT_OF_MEMORY : CURLE_OK;
#define APPT_SET(option, value) \
  if (code == CURLE_OK) code = curl.easy_setopt(handle, option, value)
  APPT_SET(CURLOPT_URL, request->url);
  APPT_SET(CURLOPT_CUSTOMREQUEST, request->method);
  APPT_SET(CURLOPT_HTTPHEADER, list);
  APPT_SET(CURLOPT_ERRORBUFFER, error_buffer);
  APPT_SET(CURLOPT_NOSIGNAL, 1L);
  APPT_SET(CURLOPT_FOLLOWLOCATION, 0L);
  APPT_SET(CURLOPT_PROTOCOLS_STR, "http,https");
  APPT_SET(CURLOPT_SSL_VERIFYPEER, 1L);
  APPT_SET(CURLOPT_SSL_VERIFYHOST, 2L);
  if (request->ca_file) APPT_SET(CURLOPT_CAINFO, request->ca_file);
  APPT_SET(CURLOPT_TIMEOUT_MS, request->timeout_ms);
  APPT_SET(CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
  APPT_SET(CURLOPT_ACCEPT_ENCODING, "");
  APPT_SET(CURLOPT_USERAGENT, "appt (CalDAV)");
  APPT_SET(CURLOPT_WRITEFUNCTION, write_body);
  APPT_SET(CURLOPT_WRITEDATA, &body);
  APPT_SET(CURLOPT_HEADERFUNCTION, write_header);
  APPT_SET(CURLOPT_HEADERDATA, &headers);
  if (request->body) {
    APPT_SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->body_length);
    APPT_SET(CURLOPT_POSTFIELDS, request->body);
  }
#undef APPT_SET
  if (code == CURLE_OK) code = curl.easy_perform(handle);
  if (code == CURLE_OK) {
    long status = 0;
    curl.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    response->status = status;
  }
  if (body.failed || headers.failed) code = CURLE_OUT_OF_MEMORY;
  response->outcome = outcome_of(code);
  if (body.too_large || headers.too_large) {
    response->outcome = APPT_CURL_TOO_LARGE;
    snprintf(response->message, sizeof response->message, "the answer is larger than %zu MiB",
             APPT_CURL_MAX_ANSWER >> 20);
  } else if (code != CURLE_OK) {
    snprintf(response->message, sizeof response->message, "%s",
             error_buffer[0] ? error_buffer : curl.easy_strerror(code));
  }
  if (code != CURLE_OK || body.too_large || headers.too_large) {
    free(body.data);
    free(headers.data);
  } else {
    response->body = body.data;
    response->body_length = body.length;
    response->header_block = headers.data;
    response->header_length = headers.length;
  }
  curl.slist_free_all(list);
  curl.easy_cleanup(handle);
}

void appt_curl_response_free(appt_curl_response *response) {
  free(response->body);
  free(response->header_block);
  response->body = NULL;
  response->header_block = NULL;
}
