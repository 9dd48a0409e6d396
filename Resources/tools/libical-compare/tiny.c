/*
 * tiny: the smallest program that uses libical, to measure what linking it costs.
 *   cc tiny.c -o tiny-plain                       (TINY_LIBICAL undefined: libc only)
 *   cc -DTINY_LIBICAL tiny.c -o tiny-linked -lical (libical + ICU at start-up)
 *   cc -DTINY_DLOPEN tiny.c -o tiny-dlopen -ldl    (libc at start; "tiny-dlopen load" dlopens
 *                                                  libical.so.3 the way appt loads libpq)
 * Each makes and frees one VEVENT (or, plain, does nothing) and exits 0.
 */
#include <stdio.h>
#include <string.h>
#if defined(TINY_LIBICAL)
#include <libical/ical.h>
#elif defined(TINY_DLOPEN)
#include <dlfcn.h>
#endif

int main(int argc, char **argv)
{
#if defined(TINY_LIBICAL)
    (void)argc;
    (void)argv;
    icalcomponent *c = icalcomponent_new(ICAL_VEVENT_COMPONENT);
    icalcomponent_free(c);
#elif defined(TINY_DLOPEN)
    if (argc > 1 && strcmp(argv[1], "load") == 0) {
        void *lib = dlopen("libical.so.3", RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) {
            fprintf(stderr, "%s\n", dlerror());
            return 1;
        }
        void *(*make)(int) = (void *(*)(int))dlsym(lib, "icalcomponent_new");
        void (*release)(void *) = (void (*)(void *))dlsym(lib, "icalcomponent_free");
        if (make == NULL || release == NULL)
            return 1;
        release(make(1 /* ICAL_VEVENT_COMPONENT */));
    }
#else
    (void)argc;
    (void)argv;
#endif
    return 0;
}
