// libpq, loaded when a PostgreSQL database is first used instead of when appt starts.
//
// Linking libpq brings OpenSSL, Kerberos, LDAP and GnuTLS with it: about 20 shared libraries
// that every appt process (a one-shot `appt list` on an SQLite file included) would map and
// relocate at start, doubling its start-up time and adding 6 MiB (BENCHMARKS.md). So the PQ
// functions appt calls are defined here, as trampolines to the library that
// `appt_libpq_load` opens with dlopen. Swift code calls them by their own names, unchanged.

#include "libpq_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <postgresql/libpq-fe.h>

// Every PQ function appt uses: X(return type, name, parameters, arguments).
#define APPT_LIBPQ_FUNCTIONS(X)                                                                  \
  X(PGconn *, PQconnectdbParams,                                                               \
    (const char *const *keywords, const char *const *values, int expand_dbname),               \
    (keywords, values, expand_dbname))                                                         \
  X(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg)) \
  X(ConnStatusType, PQstatus, (const PGconn *conn), (conn))                                    \
  X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn))                \
  X(char *, PQerrorMessage, (const PGconn *conn), (conn))                                      \
  X(int, PQbackendPID, (const PGconn *conn), (conn))                                           \
  X(int, PQsocket, (const PGconn *conn), (conn))                                               \
  X(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg), \
    (conn, proc, arg))                                                                         \
  X(PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query))                      \
  X(PGresult *, PQprepare,                                                                     \
    (PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes), \
    (conn, stmtName, query, nParams, paramTypes))                                              \
  X(PGresult *, PQexecPrepared,                                                                \
    (PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues,          \
     const int *paramLengths, const int *paramFormats, int resultFormat),                      \
    (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat))          \
  X(int, PQconsumeInput, (PGconn *conn), (conn))                                               \
  X(PGnotify *, PQnotifies, (PGconn *conn), (conn))                                            \
  X(ExecStatusType, PQresultStatus, (const PGresult *res), (res))                              \
  X(char *, PQresultErrorMessage, (const PGresult *res), (res))                                \
  X(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode))        \
  X(int, PQntuples, (const PGresult *res), (res))                                              \
  X(Oid, PQftype, (const PGresult *res, int field_num), (res, field_num))                      \
  X(char *, PQcmdTuples, (PGresult *res), (res))                                               \
  X(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
  X(int, PQgetlength, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
  X(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))

// The ones returning nothing: X(name, parameters, arguments).
#define APPT_LIBPQ_PROCEDURES(X)                                                                 \
  X(PQfinish, (PGconn *conn), (conn))                                                          \
  X(PQconninfoFree, (PQconninfoOption *connOptions), (connOptions))                            \
  X(PQclear, (PGresult *res), (res))                                                           \
  X(PQfreemem, (void *ptr), (ptr))

#define APPT_FIELD(type, name, parameters, arguments) type(*name) parameters;
#define APPT_PROCEDURE_FIELD(name, parameters, arguments) void(*name) parameters;
static struct {
  APPT_LIBPQ_FUNCTIONS(APPT_FIELD)
  APPT_LIBPQ_PROCEDURES(APPT_PROCEDURE_FIELD)
} libpq;

static pthread_once_t libpq_once = PTHREAD_ONCE_INIT;
static int libpq_loaded;
static char libpq_error[512];

static void load_libpq(void) {
  void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(libpq_error, sizeof libpq_error, "cannot load libpq (Debian package libpq5): %s", dlerror());
    return;
  }
#define APPT_RESOLVE(symbol)                                                                      \
  *(void **)(&libpq.symbol) = dlsym(library, #symbol);                                         \
  if (!libpq.symbol) {                                                                         \
    snprintf(libpq_error, sizeof libpq_error, "libpq has no %s (too old?)", #symbol);          \
    return;                                                                                    \
  }
#define APPT_RESOLVE_FUNCTION(type, name, parameters, arguments) APPT_RESOLVE(name)
#define APPT_RESOLVE_PROCEDURE(name, parameters, arguments) APPT_RESOLVE(name)
  APPT_LIBPQ_FUNCTIONS(APPT_RESOLVE_FUNCTION)
  APPT_LIBPQ_PROCEDURES(APPT_RESOLVE_PROCEDURE)
  libpq_loaded = 1;
}

int appt_libpq_load(const char **error) {
  pthread_once(&libpq_once, load_libpq);  // also orders the table's writes before any call
  if (!libpq_loaded && error) *error = libpq_error;
  return libpq_loaded;
}

#define APPT_TRAMPOLINE(type, name, parameters, arguments) \
  type name parameters { return libpq.name arguments; }
#define APPT_PROCEDURE_TRAMPOLINE(name, parameters, arguments) \
  void name parameters { libpq.name arguments; }
APPT_LIBPQ_FUNCTIONS(APPT_TRAMPOLINE)
APPT_LIBPQ_PROCEDURES(APPT_PROCEDURE_TRAMPOLINE)
