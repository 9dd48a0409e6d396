#ifndef APPT_CURL_LOADER_H
#define APPT_CURL_LOADER_H

#include <stddef.h>

// One HTTP request through libcurl (libcurl.so.4, loaded with dlopen on first use, as libpq
// is: LibPQLoader). The whole exchange happens in `appt_curl_perform`, so Swift needs none of
// curl's variadic functions. TLS verification is always on (peer and host); `ca_file`, when
// not NULL, is the only CA bundle trusted (CURLOPT_CAINFO). Redirects are not followed (the
// caller decides). Only http and https.

typedef struct {
  const char *method;          // "GET", "PROPFIND", ...
  const char *url;             // no user or password in it
  const char *const *headers;  // "Name: value" lines
  size_t header_count;
  const void *body;            // NULL: no body
  size_t body_length;
  const char *ca_file;         // NULL: the system's CA bundle
  long timeout_ms;             // the whole request
  long connect_timeout_ms;
} appt_curl_request;

typedef enum {
  APPT_CURL_OK = 0,
  APPT_CURL_UNAVAILABLE,       // libcurl could not be loaded
  APPT_CURL_UNREACHABLE,       // resolve, connect, send or receive failed
  APPT_CURL_TIMED_OUT,
  APPT_CURL_CERTIFICATE,       // the peer's certificate was refused, or the CA file unusable
  APPT_CURL_INVALID,           // a bad URL or protocol, or out of memory
  APPT_CURL_TOO_LARGE,         // the answer is over 256 MiB (refused, not held)
} appt_curl_outcome;

typedef struct {
  appt_curl_outcome outcome;
  long status;                 // the HTTP status (the last response's)
  char *header_block;          // every header line received, "\r\n"-separated (malloc'd)
  size_t header_length;
  char *body;                  // malloc'd
  size_t body_length;
  char message[512];           // curl's error text when outcome != APPT_CURL_OK
} appt_curl_response;

// Loads libcurl once per process. 1 when loaded, else 0 with *error set.
int appt_curl_load(const char **error);

// Performs `request` into `response` (free it with appt_curl_response_free). Blocks.
void appt_curl_perform(const appt_curl_request *request, appt_curl_response *response);

void appt_curl_response_free(appt_curl_response *response);

#endif
