/*
 * spawn-time N PROGRAM [ARGS...]: runs PROGRAM N times (fork + execv, stdout and stderr to
 * /dev/null), one after another, after 5 unmeasured runs; prints the median, 10th and 90th
 * percentile wall time of one run (fork to reaped exit) in microseconds, the median CPU
 * time of one run (user + system, from wait4's rusage: much less disturbed by other work on
 * the machine than the wall time) and the largest peak RSS of a run (KiB).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: spawn-time N PROGRAM [ARGS...]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    double *t = calloc((size_t)n, sizeof *t);
    double *cpu = calloc((size_t)n, sizeof *cpu);
    long maxrss = 0;
    for (int i = -5; i < n; i++) {
        double start = now_us();
        pid_t pid = fork();
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            execv(argv[2], argv + 2);
            _exit(127);
        }
        int status;
        struct rusage usage;
        wait4(pid, &status, 0, &usage);
        double end = now_us();
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "spawn-time: %s failed\n", argv[2]);
            return 1;
        }
        if (i >= 0) {
            t[i] = end - start;
            cpu[i] = usage.ru_utime.tv_sec * 1e6 + usage.ru_utime.tv_usec + usage.ru_stime.tv_sec * 1e6 +
                     usage.ru_stime.tv_usec;
            if (usage.ru_maxrss > maxrss)
                maxrss = usage.ru_maxrss;
        }
    }
    qsort(t, (size_t)n, sizeof *t, by_value);
    qsort(cpu, (size_t)n, sizeof *cpu, by_value);
    printf("{\"runs\": %d, \"median_us\": %.0f, \"p10_us\": %.0f, \"p90_us\": %.0f, \"cpu_median_us\": %.0f, "
           "\"max_rss_kib\": %ld}\n",
           n, t[n / 2], t[n / 10], t[(n * 9) / 10], cpu[n / 2], maxrss);
    return 0;
}
