#ifndef APPT_CMALLOC_SHIM_H
#define APPT_CMALLOC_SHIM_H
// glibc's malloc tuning (mallopt), which Glibc's Swift module does not include: appt sets the
// number of malloc arenas before its threads start (Sources/appt/Main.swift).
#include <malloc.h>
#endif
