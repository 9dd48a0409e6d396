#ifndef APPT_CLINUXEVENTS_SHIM_H
#define APPT_CLINUXEVENTS_SHIM_H
// Linux's event descriptors, which Glibc's Swift module does not include: the reminder
// daemon sleeps in poll(2) over a timerfd (its next alarm), an inotify watch (the store's
// file) and a self-pipe (signals), so it wakes for nothing else.
#include <sys/timerfd.h>
#include <sys/inotify.h>
#include <sys/file.h>
#include <spawn.h>
#include <signal.h>

// glibc declares pipe2 only under _GNU_SOURCE, which Glibc's Swift module is not built with:
// one pipe with O_CLOEXEC set atomically (no child may inherit it between pipe and fcntl).
extern int pipe2(int pipefd[2], int flags);
#endif
