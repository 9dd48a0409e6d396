#ifndef APPT_CLIBPQ_SHIM_H
#define APPT_CLIBPQ_SHIM_H
// Debian installs libpq's headers under /usr/include/postgresql, which is not on the default
// include path; naming the directory here keeps pkg-config out of the build.
#include <postgresql/libpq-fe.h>

// The PG_DIAG_* field codes are character-literal macros, which Swift cannot import.
static const int appt_pg_diag_sqlstate = PG_DIAG_SQLSTATE;
static const int appt_pg_diag_message_primary = PG_DIAG_MESSAGE_PRIMARY;

#endif
