/*
 * expand: one recurrence case, expanded by libical's icalrecur_iterator.
 *
 *   expand --start 19970902T090000 [--zone America/New_York | --zone -]
 *          --rule 'FREQ=DAILY;COUNT=10' [--rule ...] [--exdate LOCAL]... [--rdate LOCAL]...
 *          [--from T] [--to T] [--first N] [--component [--zero-length]]
 *
 * DTSTART, EXDATE and RDATE are wall-clock times in --zone ('-' or no --zone: floating, read
 * as UTC, as the dateutil fixture does). --from/--to bound the window [from, to): a time
 * ending in Z is UTC, one without is a wall-clock time in the zone. The default window is
 * [DTSTART, 2040-01-01T00:00:00Z). --first N keeps the first N occurrences of the window.
 *
 * Each rule gets its own icalrecur_iterator from DTSTART (no set_start: it cannot be used
 * with COUNT); the harness makes the set itself the way a caller of the iterator must:
 * the union of every rule's instants and the RDATEs, minus the EXDATEs, sorted, each
 * instant once. Wall-clock times are turned into instants by libical
 * (icaltime_as_timet_with_zone), so libical decides times in a DST gap or overlap.
 *
 * --component instead builds a VEVENT (DTSTART;TZID, RRULE, EXDATE, RDATE) and asks
 * icalcomponent_foreach_recurrence for the window: what an importer built on libical
 * would call. The event gets DURATION:PT1M: icalcomponent_foreach_recurrence skips an
 * occurrence of a zero-length event (no DTEND, no DURATION) that starts exactly at the
 * window's start; --zero-length leaves the DURATION out to show it.
 *
 * Output: one line per occurrence, "UTC-instant wall-clock", e.g.
 *   19970902T130000Z 19970902T090000
 * Exit 0; 2 on bad arguments; 3 when libical refuses the zone or a rule (message on stderr).
 */
#include <libical/ical.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LIST 64
#define MAX_OUT 2000000
#define MAX_STEPS 5000000L

static icaltimezone *zone;
static int floating = 1;

typedef struct {
    time_t instant;
    struct icaltimetype local;
} occurrence;

static occurrence *out;
static size_t out_count;

static void usage(void)
{
    fprintf(stderr, "usage: expand --start T [--zone Z] --rule R... [--exdate T]... [--rdate T]... "
                    "[--from T] [--to T] [--first N] [--component [--zero-length]]\n");
    exit(2);
}

static struct icaltimetype local_time(const char *text)
{
    struct icaltimetype t = icaltime_from_string(text);
    if (icaltime_is_null_time(t)) {
        fprintf(stderr, "expand: bad time %s\n", text);
        exit(2);
    }
    if (!floating)
        t = icaltime_set_timezone(&t, zone);
    return t;
}

/* The instant of a wall-clock time in the zone, or of a floating time read as UTC. */
static time_t instant_of(struct icaltimetype t)
{
    if (floating || t.zone == NULL)
        return icaltime_as_timet_with_zone(t, NULL);
    return icaltime_as_timet_with_zone(t, t.zone);
}

/* A window bound: "...Z" is UTC, otherwise wall clock in the zone. */
static time_t bound(const char *text)
{
    size_t n = strlen(text);
    if (n > 0 && text[n - 1] == 'Z') {
        struct icaltimetype t = icaltime_from_string(text);
        return icaltime_as_timet_with_zone(t, NULL);
    }
    return instant_of(local_time(text));
}

static void add(time_t instant, struct icaltimetype local)
{
    if (out_count == MAX_OUT) {
        fprintf(stderr, "expand: more than %d occurrences\n", MAX_OUT);
        exit(3);
    }
    out[out_count].instant = instant;
    out[out_count].local = local;
    out_count++;
}

static int by_instant(const void *a, const void *b)
{
    time_t x = ((const occurrence *)a)->instant, y = ((const occurrence *)b)->instant;
    return (x > y) - (x < y);
}

static void expand_rule(const char *text, struct icaltimetype dtstart, time_t lower, time_t upper)
{
    struct icalrecurrencetype rule = icalrecurrencetype_from_string(text);
    if (rule.freq == ICAL_NO_RECURRENCE) {
        fprintf(stderr, "expand: libical refuses the rule %s: %s\n", text, icalerror_strerror(icalerrno));
        exit(3);
    }
    icalrecur_iterator *it = icalrecur_iterator_new(rule, dtstart);
    if (it == NULL) {
        fprintf(stderr, "expand: libical has no iterator for %s: %s\n", text, icalerror_strerror(icalerrno));
        exit(3);
    }
    long steps = 0;
    for (struct icaltimetype t = icalrecur_iterator_next(it); !icaltime_is_null_time(t);
         t = icalrecur_iterator_next(it)) {
        time_t instant = instant_of(t);
        if (instant >= upper)
            break;
        if (instant >= lower)
            add(instant, t);
        if (++steps > MAX_STEPS) {
            fprintf(stderr, "expand: stopped after %ld steps of %s\n", steps, text);
            break;
        }
    }
    icalrecur_iterator_free(it);
}

static void component_callback(icalcomponent *comp, struct icaltime_span *span, void *data)
{
    (void)comp;
    (void)data;
    struct icaltimetype local = floating ? icaltime_from_timet_with_zone(span->start, 0, NULL)
                                         : icaltime_from_timet_with_zone(span->start, 0, zone);
    add(span->start, local);
}

static void print_time(struct icaltimetype t)
{
    printf("%04d%02d%02dT%02d%02d%02d", t.year, t.month, t.day, t.hour, t.minute, t.second);
}

int main(int argc, char **argv)
{
    const char *start = NULL, *from = NULL, *to = NULL, *zone_name = NULL;
    const char *rules[MAX_LIST], *exdates[MAX_LIST], *rdates[MAX_LIST];
    int nrules = 0, nex = 0, nrd = 0, component = 0, zero_length = 0;
    long first = -1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--component") == 0) {
            component = 1;
            continue;
        }
        if (strcmp(a, "--zero-length") == 0) {
            zero_length = 1;
            continue;
        }
        if (i + 1 >= argc)
            usage();
        const char *v = argv[++i];
        if (strcmp(a, "--start") == 0)
            start = v;
        else if (strcmp(a, "--zone") == 0)
            zone_name = v;
        else if (strcmp(a, "--rule") == 0 && nrules < MAX_LIST)
            rules[nrules++] = v;
        else if (strcmp(a, "--exdate") == 0 && nex < MAX_LIST)
            exdates[nex++] = v;
        else if (strcmp(a, "--rdate") == 0 && nrd < MAX_LIST)
            rdates[nrd++] = v;
        else if (strcmp(a, "--from") == 0)
            from = v;
        else if (strcmp(a, "--to") == 0)
            to = v;
        else if (strcmp(a, "--first") == 0)
            first = atol(v);
        else
            usage();
    }
    if (start == NULL || nrules == 0)
        usage();

    if (zone_name != NULL && strcmp(zone_name, "-") != 0) {
        floating = 0;
        zone = strcmp(zone_name, "UTC") == 0 ? icaltimezone_get_utc_timezone()
                                             : icaltimezone_get_builtin_timezone(zone_name);
        if (zone == NULL) {
            fprintf(stderr, "expand: libical has no zone %s\n", zone_name);
            return 3;
        }
    }
    out = calloc(MAX_OUT, sizeof *out);
    if (out == NULL)
        return 3;

    struct icaltimetype dtstart = local_time(start);
    time_t lower = from ? bound(from) : instant_of(dtstart);
    time_t upper = to ? bound(to) : bound("20400101T000000Z");

    if (component) {
        /* A VEVENT as an importer would hand it to libical. */
        char buf[16384];
        size_t n = 0;
        const char *tzparam = floating ? "" : ";TZID=";
        const char *tzid = floating ? "" : zone_name;
        if (!floating && strcmp(zone_name, "UTC") == 0) {
            tzparam = "";
            tzid = "";
        }
        const char *utcz = (!floating && strcmp(zone_name, "UTC") == 0) ? "Z" : "";
        n += snprintf(buf + n, sizeof buf - n, "BEGIN:VEVENT\r\nUID:case\r\nDTSTART%s%s:%s%s\r\n%s", tzparam, tzid, start, utcz,
                      zero_length ? "" : "DURATION:PT1M\r\n");
        for (int i = 0; i < nrules; i++)
            n += snprintf(buf + n, sizeof buf - n, "RRULE:%s\r\n", rules[i]);
        for (int i = 0; i < nex; i++)
            n += snprintf(buf + n, sizeof buf - n, "EXDATE%s%s:%s%s\r\n", tzparam, tzid, exdates[i], utcz);
        for (int i = 0; i < nrd; i++)
            n += snprintf(buf + n, sizeof buf - n, "RDATE%s%s:%s%s\r\n", tzparam, tzid, rdates[i], utcz);
        snprintf(buf + n, sizeof buf - n, "END:VEVENT\r\n");
        icalcomponent *event = icalparser_parse_string(buf);
        if (event == NULL) {
            fprintf(stderr, "expand: libical cannot parse the VEVENT\n");
            return 3;
        }
        struct icaltimetype wstart = icaltime_from_timet_with_zone(lower, 0, icaltimezone_get_utc_timezone());
        struct icaltimetype wend = icaltime_from_timet_with_zone(upper, 0, icaltimezone_get_utc_timezone());
        icalcomponent_foreach_recurrence(event, wstart, wend, component_callback, NULL);
        icalcomponent_free(event);
    } else {
        for (int i = 0; i < nrules; i++)
            expand_rule(rules[i], dtstart, lower, upper);
        for (int i = 0; i < nrd; i++) {
            struct icaltimetype t = local_time(rdates[i]);
            time_t instant = instant_of(t);
            if (instant >= lower && instant < upper)
                add(instant, t);
        }
    }

    qsort(out, out_count, sizeof *out, by_instant);
    long printed = 0;
    for (size_t i = 0; i < out_count; i++) {
        if (i > 0 && out[i].instant == out[i - 1].instant)
            continue;
        int excluded = 0;
        for (int j = 0; j < nex && !component; j++)
            if (instant_of(local_time(exdates[j])) == out[i].instant)
                excluded = 1;
        if (excluded)
            continue;
        if (first >= 0 && printed >= first)
            break;
        struct icaltimetype u = icaltime_from_timet_with_zone(out[i].instant, 0, NULL);
        print_time(u);
        printf("Z ");
        print_time(out[i].local);
        printf("\n");
        printed++;
    }
    free(out);
    return 0;
}
