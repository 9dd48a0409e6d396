/*
 * parse: an .ics file through libical's icalparser, the way an importer would use it.
 *
 *   parse FILE.ics            read the file, icalparser_parse_string it, walk every VEVENT,
 *                             read DTSTART (resolved to an instant through its TZID: the
 *                             file's VTIMEZONE, else libical's built-in zone) and SUMMARY;
 *                             prints counts and the read/parse/walk times in ms.
 *   parse --errors FILE.ics   parse, then print what libical makes of the input: the
 *                             component tree (VEVENT: UID, DTSTART and its zone, RRULE as
 *                             read back), each X-LIC-ERROR property unfolded, icalerrno.
 *                             When icalparser_parse_string returns nothing, the file is
 *                             read again line by line and icalparser_clean closes what the
 *                             input left open.
 */
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    buf[n] = 0;
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void print_tree(icalcomponent *c, int depth)
{
    icalcomponent_kind kind = icalcomponent_isa(c);
    printf("%*s%s", depth * 2, "", icalcomponent_kind_to_string(kind));
    if (kind == ICAL_VEVENT_COMPONENT) {
        struct icaltimetype s = icalcomponent_get_dtstart(c);
        const char *tzid = s.zone ? icaltimezone_get_tzid((icaltimezone *)s.zone) : NULL;
        const char *uid = icalcomponent_get_uid(c);
        printf(" %s: DTSTART %s%s%s", uid ? uid : "(no uid)", icaltime_is_null_time(s) ? "(none)" : icaltime_as_ical_string(s),
               tzid ? " zone " : (icaltime_is_null_time(s) || icaltime_is_utc(s) ? "" : " (floating)"), tzid ? tzid : "");
        icalproperty *r = icalcomponent_get_first_property(c, ICAL_RRULE_PROPERTY);
        if (r) {
            struct icalrecurrencetype rr = icalproperty_get_rrule(r);
            char *back = icalrecurrencetype_as_string_r(&rr);
            printf(", RRULE %s", back ? back : "(null)");
            free(back);
        }
    }
    printf("\n");
    for (icalproperty *p = icalcomponent_get_first_property(c, ICAL_XLICERROR_PROPERTY); p;
         p = icalcomponent_get_next_property(c, ICAL_XLICERROR_PROPERTY)) {
        char *text = icalproperty_as_ical_string_r(p);
        /* unfold for one line per error */
        char *w = text;
        for (char *r = text; *r; r++) {
            if (r[0] == '\r' && r[1] == '\n' && r[2] == ' ') {
                r += 2;
                continue;
            }
            if (*r == '\r' || *r == '\n')
                continue;
            *w++ = *r;
        }
        *w = 0;
        printf("%*s  %s\n", depth * 2, "", text);
        free(text);
    }
    for (icalcomponent *k = icalcomponent_get_first_component(c, ICAL_ANY_COMPONENT); k;
         k = icalcomponent_get_next_component(c, ICAL_ANY_COMPONENT))
        print_tree(k, depth + 1);
}

static char *file_line(char *s, size_t size, void *d)
{
    return fgets(s, (int)size, (FILE *)d);
}

/* What libical says about a file: icalparser_parse_string, and when it returns nothing, the
 * line-by-line parser with icalparser_clean, which closes what the input left open. */
static int report_errors(const char *path, const char *text)
{
    icalcomponent *root = icalparser_parse_string(text);
    printf("icalparser_parse_string: %s (icalerrno %s)\n", root ? "a component" : "NULL, nothing",
           icalerror_strerror(icalerrno));
    if (root == NULL) {
        icalerror_clear_errno();
        FILE *f = fopen(path, "r");
        icalparser *parser = icalparser_new();
        icalparser_set_gen_data(parser, f);
        root = icalparser_parse(parser, file_line);
        if (root == NULL)
            root = icalparser_clean(parser);
        printf("icalparser_parse + icalparser_clean: %s\n", root ? "a component" : "NULL, nothing");
        /* not icalparser_free(parser): after icalparser_clean it frees what it returned (crash) */
        fclose(f);
    }
    if (root != NULL) {
        icalerror_clear_errno();
        print_tree(root, 0);
        printf("icalerrno after reading DTSTARTs: %s\n", icalerror_strerror(icalerrno));
        icalcomponent_free(root);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int errors = argc == 3 && strcmp(argv[1], "--errors") == 0;
    if (argc != 2 && !errors) {
        fprintf(stderr, "usage: parse [--errors] FILE.ics\n");
        return 2;
    }
    const char *path = argv[argc - 1];

    double t0 = now_ms();
    size_t size;
    char *text = slurp(path, &size);
    if (errors)
        return report_errors(path, text);
    double t1 = now_ms();
    icalcomponent *root = icalparser_parse_string(text);
    double t2 = now_ms();
    free(text);

    if (root == NULL) {
        fprintf(stderr, "libical parsed nothing: %s\n", icalerror_strerror(icalerrno));
        return 1;
    }
    long events = 0, zoned = 0, summary_bytes = 0, error_props = 0;
    long long instants = 0;
    for (icalcomponent *e = icalcomponent_get_first_component(root, ICAL_VEVENT_COMPONENT); e;
         e = icalcomponent_get_next_component(root, ICAL_VEVENT_COMPONENT)) {
        events++;
        struct icaltimetype s = icalcomponent_get_dtstart(e);
        if (s.zone != NULL)
            zoned++;
        instants += icaltime_as_timet_with_zone(s, s.zone);
        const char *summary = icalcomponent_get_summary(e);
        if (summary)
            summary_bytes += (long)strlen(summary);
        error_props += icalcomponent_count_properties(e, ICAL_XLICERROR_PROPERTY);
    }
    double t3 = now_ms();
    icalcomponent_free(root);
    double t4 = now_ms();
    printf("{\"bytes\": %zu, \"events\": %ld, \"zoned\": %ld, \"summary_bytes\": %ld, \"x_lic_errors\": %ld, "
           "\"checksum\": %lld, \"read_ms\": %.1f, \"parse_ms\": %.1f, \"walk_ms\": %.1f, \"free_ms\": %.1f}\n",
           size, events, zoned, summary_bytes, error_props, instants, t1 - t0, t2 - t1, t3 - t2, t4 - t3);
    return 0;
}
