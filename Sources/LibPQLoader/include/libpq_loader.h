#ifndef APPT_LIBPQ_LOADER_H
#define APPT_LIBPQ_LOADER_H

// Loads libpq (libpq.so.5) on first use, once per process. Returns 1 when it is loaded; else
// 0, with `*error` set to why (dlopen's message). Call it before any other PQ function: the
// PQ functions appt uses are defined in this target and forward to the loaded library.
int appt_libpq_load(const char **error);

#endif
