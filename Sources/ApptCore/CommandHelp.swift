/// The text `help` prints: an overview of every command, and each command's own usage.
///
/// The same strings feed `appt --help`, the TUI's `:help` and the man page, so the grammar is
/// described in one place.
public enum CommandHelp {
  /// One entry per command, in the order the overview lists them.
  private static let commands: [(name: String, usage: String, details: [String])] = [
    (
      "add",
      "add TITLE --at WHEN [--for DURATION | --until TIME] [--note TEXT] [--location TEXT] [--all-day]"
        + " [--repeat daily|weekly|monthly|yearly [--every N] [--on DAYS] [--in MONTHS]"
        + " [--count N | --until-date DATE] | --rrule RULE...] [--calendar NAME] [--remind ALARM... | --no-remind]",
      [
        "Adds an appointment. The words of TITLE need no quotes: all words that are",
        "not options are joined with spaces. It lasts 1h ([ui] default_duration in the",
        "settings file) unless --for or --until says otherwise. --until takes a time on",
        "the start's day (11:30, 3pm) or a full WHEN;",
        "a date alone means up to the end of that day.",
        "A date without a time (or --all-day) makes a whole-day appointment: --for 3d or",
        "--until DATE for several days. --repeat makes a series: --every 2 (weeks...),",
        "--on mon,wed (weekly), --on 2nd-tue, last-fri, 1st-mon,3rd-mon or 15,-1 (days",
        "of the month, -1 the last) for monthly and yearly series, --in nov (months,",
        "names or numbers) and --count N or --until-date DATE to end it. --rrule",
        "'FREQ=...' gives any RFC 5545 rule instead (repeat it for several rules). A",
        "series starts at its first occurrence on or after --at. Occurrences keep their",
        "local time across daylight-saving changes. --calendar (-c) NAME puts it in that",
        "calendar instead of personal. --remind ALARM (repeat it for several) sets its",
        "reminders; without it, the calendar's default_remind (or [reminders]",
        "default_remind) applies, and --no-remind gives none.",
      ]
    ),
    (
      "list",
      "list [--from WHEN] [--to WHEN | --days N | --week | --month] [--all] [--include-cancelled]"
        + " [--search TEXT] [--calendar NAME...] [--format TEMPLATE]",
      [
        "Lists appointments in start order. Without a range: today and the next 6 days.",
        "--from starts at that day's midnight (or at the time given); --to DATE includes",
        "that whole day, --to with a time ends there; --days N counts N days from --from.",
        "--week and --month list the week (from week_start) or the month holding --from",
        "(else today). --all lists everything. Cancelled appointments are hidden unless",
        "--include-cancelled. --search keeps only those matching TEXT. --calendar (-c)",
        "NAME keeps only that calendar's; repeat it for several (-c work -c home).",
        "--format prints each line as TEMPLATE says: {start} {end} (or {start:%H:%M},",
        "with the date_format fields), {duration} {title} {location} {calendar} {id}",
        "{short_id} {status} {note} {organizer} {attendees} {uid} {categories} {url}",
        "{answer} (yours to an invitation: [mail] addresses); \\t and \\n are a tab and a",
        "newline, {{ and }} a brace.",
      ]
    ),
    (
      "show", "show ID",
      [
        "Prints every field of one appointment, its revision included; an invitation's",
        "organizer and attendees with their answers, and yours ([mail] addresses).",
      ]
    ),
    (
      "edit",
      "edit ID [--occurrence DATE [--and-following]] [--title T] [--at WHEN] [--for DURATION] [--note TEXT]"
        + " [--location TEXT] [--calendar NAME] [--remind ALARM... | --no-remind] [--if-revision N]",
      [
        "Changes the fields given and keeps the others. At least one option is needed.",
        "--at moves the start; --note \"\" clears the note. With --occurrence, only that",
        "day's occurrence of a series changes (it stays part of the series, changed);",
        "with --and-following too, that occurrence and every later one: the series ends",
        "before it and a new series, changed, goes on from it. --calendar (-c) NAME",
        "moves it to that calendar (a series with its changed occurrences). --remind",
        "ALARM (repeatable) replaces its reminders (one it has already is kept as it is),",
        "--no-remind removes them.",
      ] + revisionHelp
    ),
    (
      "cancel", "cancel ID [--occurrence DATE [--and-following]] [--if-revision N]",
      [
        "Marks an appointment cancelled; it is kept and can be restored. With",
        "--occurrence, only that day's occurrence of a series; with --and-following",
        "too, that one and every later one (a series of their own: restore it to",
        "bring them back). A whole series is cancelled with its changed occurrences.",
      ] + revisionHelp
    ),
    (
      "restore", "restore ID [--occurrence DATE] [--if-revision N]",
      ["Makes a cancelled appointment (or one cancelled occurrence) scheduled again."] + revisionHelp
    ),
    ("delete", "delete ID [--if-revision N]", ["Deletes an appointment for good."] + revisionHelp),
    (
      "import", "import FILE.ics [--partial] [--calendar NAME]",
      [
        "Imports the events of an iCalendar file in one go. Any event appt cannot keep",
        "faithfully (an unsupported RRULE, an impossible date, a changed occurrence) stops",
        "the import: nothing changes and every problem is listed as FILE:LINE: message.",
        "--partial imports the others and still lists what it skipped (exit 1). An event",
        "imported before (same UID) is updated, not added again. --calendar (-c) NAME",
        "imports into that calendar, which must exist (calendar add makes one); without",
        "it new events go into personal and updated ones stay where they are.",
        "An invitation's reply (METHOD:REPLY) only records the attendee's answer on the",
        "event it names, and a METHOD:CANCEL cancels it (or the occurrence it names);",
        "COUNTER and other METHODs are refused.",
      ]
    ),
    (
      "export", "export [--from WHEN] [--to WHEN] [--calendar NAME] [FILE]",
      [
        "Writes appointments as iCalendar (RFC 5545) to FILE (created 0600) or stdout:",
        "all of them, or those in the range (a series whose span reaches it is written",
        "whole). Cancelled ones are included, as STATUS:CANCELLED. --calendar (-c) NAME",
        "writes only that calendar, named in X-WR-CALNAME.",
      ]
    ),
    (
      "calendars", "calendars",
      [
        "Lists the calendars: name, colour, source, how many appointments, shown or",
        "hidden, and for a synced one its name on the server when it differs and",
        "'sync off' when it is not synced (--json: one object per calendar).",
      ]
    ),
    (
      "calendar",
      "calendar add NAME [--color C] | rename OLD NEW | color NAME C"
        + " | delete NAME [--move-to OTHER | --with-appointments] | show NAME | hide NAME"
        + " | sync NAME | unsync NAME",
      [
        "Adds, renames, recolours or deletes a calendar. Names are 1-64 characters, no",
        "'/', unique whatever their case. C is black, red, green, yellow, blue, magenta,",
        "cyan, white or #rrggbb (shown as the nearest of the eight). delete is refused",
        "while the calendar holds appointments unless --move-to OTHER moves them or",
        "--with-appointments deletes them too; the last calendar cannot be deleted.",
        "hide leaves a calendar's appointments out of the full-screen view (its C list",
        "does the same); show brings them back. list and export still include them.",
        "A synced calendar keeps the name you give it; unsync stops syncing it (its",
        "events stay; sync sends what changed meanwhile), and a deleted one is not",
        "brought back by the next sync: sync NAME syncs either again.",
      ]
    ),
    (
      "completion", "completion bash|zsh|fish",
      [
        "Prints the shell's tab completion for appt: commands, options, calendar names",
        "and id prefixes. bash: appt completion bash > ~/.local/share/bash-completion/",
        "completions/appt (make install puts all three where each shell looks).",
      ]
    ),
    (
      "doctor", "doctor",
      ["Checks the database file (SQLite's integrity_check) and reports what it found."]
    ),
    (
      "backup", "backup FILE",
      [
        "Writes a consistent copy of the database to FILE (which must not exist yet),",
        "even while other processes are writing.",
      ]
    ),
    (
      "config", "config [--path] [--json]",
      [
        "Prints every setting in effect, one 'section.key = value  # origin' a line: the",
        "settings file's PATH:LINE, or default. --json prints one object instead. --path",
        "prints only the settings file's path (it need not exist). The file is --config",
        "FILE, else APPT_CONFIG, else $XDG_CONFIG_HOME/appt/config (~/.config/appt/config).",
      ]
    ),
    (
      "sync", "sync [ACCOUNT...]",
      [
        "Syncs the CalDAV accounts of the settings file ([account NAME]), or only those",
        "named: each remote calendar is a local one named ACCOUNT/Name; what changed on",
        "the server comes in, then local changes go out. One line per calendar:",
        "'work/Team: ↓ 3 new, 1 changed, 1 deleted; ↑ 2; 0 conflicts' (--json: one",
        "object per calendar). An item changed on both sides keeps the server's version",
        "and yours as a conflict. Exit 3 when a server cannot be reached or refuses the",
        "password, 1 for other failures; changes not sent wait for the next sync. Run by",
        "the appt-sync program, found next to appt or on PATH.",
      ]
    ),
    (
      "conflicts", "conflicts [show ID]",
      [
        "Lists the conflicts a sync found: an appointment changed here and on the server",
        "since the last sync. The server's version is the one stored and shown; yours is",
        "kept aside until 'resolve', each losing version apart. One line each: ID,",
        "calendar, title, when it was found (--json: one object per conflict).",
        "'show ID' prints one in full: your version against the server's, as a diff.",
      ]
    ),
    (
      "resolve", "resolve ID --keep local|server",
      [
        "Resolves a conflict ('conflicts' lists them). --keep server drops your version;",
        "--keep local puts it back in place of the server's, and the next sync sends it",
        "to the server.",
      ]
    ),
    (
      "reminders", "reminders [--from WHEN] [--to WHEN] [--calendar NAME...] [--json]",
      [
        "Lists the reminders due in a range, in the order they fire: from now (or",
        "--from) to a day later (or --to; a date alone includes that day), series",
        "expanded, cancelled ones left out. One line each: when it fires, the reminder,",
        "the appointment's start, title and id (--json: one object each). --calendar",
        "(-c) NAME keeps only that calendar's; repeat it for several.",
      ]
    ),
    (
      "remind", "remind [--once]",
      [
        "Runs the reminder daemon in the foreground: each alarm of each appointment fires",
        "once, when it is due, through [reminders] notify_command (the alarm as JSON on",
        "stdin and APPT_TITLE, APPT_START... in the environment; default notify-send, else",
        "a line on stdout). It sleeps until the next alarm and wakes when the store changes.",
        "Alarms missed while it was down fire late within remind_grace (1h), later ones",
        "are logged as missed. One daemon per user (a second one exits 1); SIGTERM ends",
        "it. --once fires what is due now and exits (for cron). Only from the shell.",
      ]
    ),
    ("help", "help [COMMAND]", ["Prints this overview, or the usage of one command."]),
  ]

  /// What `--if-revision` does, for each command that takes it.
  private static let revisionHelp = [
    "--if-revision N changes it only if it is still at revision N (as show printed",
    "it): if someone else changed it since, nothing changes, the command fails",
    "(exit 1) and the version stored now is printed as show prints it.",
  ]

  /// The values the usages refer to, shared by the overview and each command's help.
  private static let valueHelp: [(name: String, lines: [String])] = [
    (
      "WHEN",
      [
        "WHEN      2026-12-01 10:00 (one quoted word or two words), 2026-12-01T10:00,",
        "          2026-12-01, today, tomorrow, yesterday, a weekday (mon, monday: the",
        "          next one, today included), +3d, -1d, +2w; each with an optional time:",
        "          10:00, 9:05, 9am, 3:30pm, noon, midnight. A time alone means today.",
      ]
    ),
    ("DURATION", ["DURATION  45m, 1h, 1h30m, 90 (minutes), 1d; at most 366 days."]),
    ("ID", ["ID        4 or more characters of an appointment's id: any unique prefix."]),
    (
      "ALARM",
      [
        "ALARM     how long before the start: 15m, 1h30m, 1d (a DURATION), 0 (at the",
        "          start); at 08:00 (that time on the appointment's day).",
      ]
    ),
    (
      "RULE",
      [
        "RULE      an RFC 5545 RRULE, quoted: 'FREQ=MONTHLY;BYDAY=-1FR' (every part:",
        "          BYMONTH, BYMONTHDAY, BYSETPOS, BYHOUR, WKST, COUNT, UNTIL...).",
      ]
    ),
  ]

  /// The overview: every command's usage line, then what WHEN, DURATION and ID accept.
  public static let summary: String = {
    var lines = [
      "usage: appt [--db PATH|postgresql://URL] [--config FILE] [--json] [--bail] [COMMAND ARGS...]",
      "",
      "Without a command appt opens its full-screen view on a terminal, and otherwise",
      "reads commands from stdin, one per line (blank lines and # comments skip).",
      "--db (or APPT_DB) names an SQLite file, or a shared PostgreSQL database by URL.",
      "--config (or APPT_CONFIG) names the settings file ('help config').",
      "",
      "commands:",
    ]
    lines += commands.map { "  " + $0.usage }
    lines += ["", "Options may come in any order, as --opt VALUE or --opt=VALUE.", ""]
    lines += valueHelp.flatMap(\.lines)
    lines += ["", "'help COMMAND' or 'COMMAND --help' describes one command."]
    return lines.joined(separator: "\n")
  }()

  /// Every command's name and usage line, in the overview's order (for shell completion).
  public static var usages: [(name: String, usage: String)] { commands.map { ($0.name, $0.usage) } }

  /// Every command's name, in the overview's order (for "did you mean").
  public static var names: [String] { commands.map(\.name) }

  /// The usage of one command (`"add"`, ...) with a few lines on what it does; `nil` for a
  /// name that is not a command.
  public static func usage(for command: String) -> String? {
    guard let entry = commands.first(where: { $0.name == command }) else { return nil }
    var lines = ["usage: " + entry.usage, ""] + entry.details
    let mentioned = valueHelp.filter { entry.usage.contains($0.name) }
    if !mentioned.isEmpty {
      lines.append("")
      lines += mentioned.flatMap(\.lines)
    }
    return lines.joined(separator: "\n")
  }
}
