import ApptCore
import ApptStore
import Foundation

/// Where a command's output goes as it is made: `list` and `export` write theirs a chunk at a
/// time (never the whole output at once), every other command its result in one piece.
public protocol OutputSink: Sendable {
  /// Writes `text`; false once the output is gone (a closed pipe, a write error), so the
  /// command stops making more and stops reading the store.
  func write(_ text: String) -> Bool
  /// Writes `bytes`, valid UTF-8 (`list`'s chunks, made as bytes); as `write(_:)` by default.
  func write(utf8 bytes: [UInt8]) -> Bool
}

extension OutputSink {
  public func write(utf8 bytes: [UInt8]) -> Bool { write(String(decoding: bytes, as: UTF8.self)) }
}

/// Output collected into one String: for the calendar's `:` line and `run`.
public final class CollectedOutput: OutputSink {
  private let text = Locked("")

  public init() {}

  public func write(_ text: String) -> Bool {
    self.text.withLock { $0 += text }
    return true
  }

  /// What was written so far.
  public var output: String { text.withLock { $0 } }
}

/// Carries out one command of the script grammar against the DAO and returns what to print,
/// as text or JSON Lines. Shared by one-shot commands, stdin scripts and the TUI's `:` line.
public struct CommandExecutor: Sendable {
  public let dao: AppointmentDAO
  public let clock: Clock
  public let json: Bool
  /// The settings file's values: `add`'s default duration, 12-hour times, `config`.
  public let settings: Settings
  let formatter: AppointmentFormatter
  private let parser: CommandParser

  public init(dao: AppointmentDAO, clock: Clock, json: Bool, settings: Settings = Settings()) {
    self.dao = dao
    self.clock = clock
    self.json = json
    self.settings = settings
    formatter = AppointmentFormatter(
      clock: clock,
      timeFormat: settings.ui.timeFormat.value,
      addresses: settings.mail.addressSet
    )
    parser = CommandParser(clock: clock, defaults: CommandParser.Defaults(settings: settings))
  }

  /// A failed command: what to say and what kind of failure it was.
  public struct Failure: Error, Equatable {
    public enum Kind: Sendable, Equatable {
      /// Unknown command or option, missing argument (exit 2).
      case usage
      /// Bad input, not found, ambiguous id (exit 1).
      case invalid
      /// The database file failed (exit 3).
      case storage
      /// A server could not be reached or refused the credentials (`sync`; exit 3, and a
      /// script goes on: the store is fine).
      case unavailable
    }

    public let message: String
    public let kind: Kind
    /// What to print on stdout all the same (terminated by a newline), "" for nothing: for a
    /// change refused as stale, the appointment as stored now, as `show` prints it, so the
    /// caller can look and decide again without another command.
    public let output: String

    public init(_ error: CommandError) {
      message = error.message
      kind = error.kind == .usage ? .usage : .invalid
      output = ""
    }

    init(_ error: StoreError, output: String = "") {
      message = error.description
      kind = error.isStorageFailure ? .storage : .invalid
      self.output = output
    }

    init(message: String, kind: Kind, output: String = "") {
      self.message = message
      self.kind = kind
      self.output = output
    }
  }

  /// Parses one script line; nil for blank lines and comments.
  public func parse(line: String) throws(Failure) -> Command? {
    do throws(CommandError) { return try parser.parse(line: line) } catch { throw Failure(error) }
  }

  /// Parses the words of a one-shot command.
  public func parse(words: [String]) throws(Failure) -> Command {
    do throws(CommandError) { return try parser.parse(words: words) } catch { throw Failure(error) }
  }

  /// What the caller should say besides the result once `command` has succeeded, one line
  /// each without a prefix: today, which instant a typed time in a DST gap or overlap became
  /// (the caller writes `appt: note: ...` or `line N: note: ...` on stderr, so stdout and the
  /// JSON stay as they are).
  public func notices(for command: Command) -> [String] {
    switch command {
    case .add(let request): return request.notice.map { [$0.message] } ?? []
    case .edit(let request): return request.notice.map { [$0.message] } ?? []
    default: return []
    }
  }

  /// What a command gave: the text for stdout (terminated by newlines) and the notes for
  /// stderr, one line each without the caller's prefix (an import's `FILE:LINE: note: ...`).
  public struct Outcome: Sendable, Equatable {
    public var output: String
    public var notes: [String]
  }

  /// Runs `command`: its result, and the notes that go beside it (stdout stays the result).
  public func perform(_ command: Command) async throws(Failure) -> Outcome {
    let collected = CollectedOutput()
    let notes = try await perform(command, writingTo: collected)
    return Outcome(output: collected.output, notes: notes)
  }

  /// Runs `command`, writing its result to `sink` as it is made (`list` and `export` a chunk
  /// at a time, read from the store only as fast as `sink` takes it), and returns the notes
  /// that go beside it. A failure midway leaves what was written written; when `sink` stops
  /// taking output, so does the command (and the caller knows why from its sink).
  public func perform(_ command: Command, writingTo sink: any OutputSink) async throws(Failure) -> [String] {
    try await followZone(before: command)
    if case .sync(let accounts) = command {
      let outcome = try await sync(accounts)
      _ = sink.write(outcome.output)
      return outcome.notes
    }
    if case .remind = command {
      // A daemon that runs until stopped: the executable runs it (Main.swift), not a script
      // line or the calendar's `:` line.
      throw Failure(message: "remind runs only from the shell, as 'appt remind'", kind: .invalid)
    }
    if case .list(let request) = command {
      try await list(request, to: sink)
      return []
    }
    if case .export(let range, nil, let calendar) = command {
      do throws(StoreError) { try await export(range: range, calendar: calendar, to: sink) } catch {
        throw Failure(error)
      }
      return []
    }
    guard case .importFile(let path, let partial, let calendar) = command else {
      _ = sink.write(try await output(command))
      return []
    }
    let into = calendar ?? settings.ui.defaultCalendar.configured
    do throws(StoreError) {
      let outcome = try await importFile(path, partial: partial, calendar: into)
      _ = sink.write(outcome.output)
      return outcome.notes
    } catch {
      throw Failure(error)
    }
  }

  /// `list`: one line per appointment (the standard line, `--format`'s, or a JSON object),
  /// written a chunk at a time as the store hands them over.
  private func list(_ request: ListRequest, to sink: any OutputSink) async throws(Failure) {
    if json, request.format != nil {
      throw Failure(.usage("list: --format writes text lines; give --format or --json, not both"))
    }
    let query = AppointmentQuery(
      range: request.range,
      includeCancelled: request.includeCancelled,
      search: request.search,
      calendars: request.calendars,
      // The standard line shows a few fields: the rest of a one-off's row is not read (unless
      // it shows the user's answers to invitations, kept with the row's other lines).
      detail: request.format == nil && !json && settings.mail.addresses.value.isEmpty ? .listLine : .full
    )
    let formatter = self.formatter
    let json = self.json
    let template = request.format
    do throws(StoreError) {
      let names = template != nil || json ? try await calendarNames() : [:]
      try await dao.streamAppointments(matching: query) { chunk in
        // One buffer of UTF-8 for the chunk: the standard line is written into it field by
        // field, with no String for each line.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chunk.count * 96)
        // By index: `for appointment in chunk` copied each appointment (a retain of every
        // field, then a release) before formatting it.
        for index in chunk.indices {
          if let template {
            bytes.append(
              contentsOf: formatter.line(chunk[index], as: template, calendar: names[chunk[index].calendarID]).utf8
            )
          } else if json {
            bytes.append(
              contentsOf: formatter.jsonObject(chunk[index], calendar: names[chunk[index].calendarID]).utf8
            )
          } else {
            formatter.appendTextLine(chunk[index], to: &bytes)
          }
          bytes.append(0x0A)
        }
        return sink.write(utf8: bytes) ? .more : .stop
      }
    } catch {
      throw Failure(error)
    }
  }

  /// Floating events at their wall-clock time in this process's zone before a command reads
  /// or writes them (one indexed query when none needs it). Not for the commands that do
  /// not read appointments, nor `doctor` and `backup`, which must work on a damaged store.
  private func followZone(before command: Command) async throws(Failure) {
    switch command {
    case .help, .completion, .config, .sync, .remind, .doctor, .backup: return
    default:
      do throws(StoreError) { try await dao.followClockZone() } catch { throw Failure(error) }
    }
  }

  /// Runs `command` and returns the text to show, its notes after the result (for one
  /// stream: the calendar's status line).
  public func run(_ command: Command) async throws(Failure) -> String {
    let outcome = try await perform(command)
    return outcome.output + outcome.notes.map { $0 + "\n" }.joined()
  }

  /// The result of `command` (an import's notes are `perform`'s).
  private func output(_ command: Command) async throws(Failure) -> String {
    do throws(StoreError) {
      switch command {
      case .add(var request):
        // Without --calendar, `[ui] default_calendar` when set, else the store's default.
        if request.calendar == nil { request.calendar = settings.ui.defaultCalendar.configured }
        if request.alarms == nil { request.alarms = defaultAlarms(request) }
        return try await render(try await dao.addAppointment(request), verb: "added")

      case .list, .sync, .remind:
        return ""  // carried out by `perform`

      case .show(let prefix):
        let appointment = try await dao.getAppointment(id: try await dao.resolveID(prefix))
        var series: Appointment?
        if let seriesID = appointment.override?.seriesID {
          do throws(StoreError) {
            series = try await dao.getAppointment(id: seriesID)
          } catch {
            series = nil  // gone meanwhile: show says "its series"
          }
        }
        return show(appointment, series: series, calendar: try await calendarNames()[appointment.calendarID])

      case .edit(var request):
        if let texts = request.alarmTexts {
          // `--remind at 08:00` without --at: read against the start it has.
          let stored = try await dao.getAppointment(id: try await dao.resolveID(request.id))
          do throws(CommandError) {
            request.alarms = try CommandParser.alarms("edit", texts, start: stored.start, zone: clock.timeZone)
          } catch {
            throw StoreError.invalidRequest(message: error.message)
          }
        }
        return try await render(try await dao.editAppointment(request), verb: "updated")

      case .cancel(let prefix, let occurrence, let andFollowing, let ifRevision):
        let id = try await dao.resolveID(prefix)
        let cancelled = try await dao.setStatus(
          .cancelled,
          id: id,
          occurrenceOn: occurrence,
          andFollowing: andFollowing,
          ifRevision: ifRevision
        )
        return try await render(cancelled, verb: "cancelled")

      case .restore(let prefix, let occurrence, let ifRevision):
        let id = try await dao.resolveID(prefix)
        let restored = try await dao.setStatus(.scheduled, id: id, occurrenceOn: occurrence, ifRevision: ifRevision)
        return try await render(restored, verb: "restored")

      case .delete(let prefix, let ifRevision):
        let id = try await dao.resolveID(prefix)
        return try await render(try await dao.deleteAppointment(id: id, ifRevision: ifRevision), verb: "deleted")

      case .importFile(let path, let partial, let calendar):
        let into = calendar ?? settings.ui.defaultCalendar.configured
        return try await importFile(path, partial: partial, calendar: into).output

      case .export(let range, let path, let calendar):
        return try await export(range: range, to: path, calendar: calendar)

      case .calendar(let command):
        return try await calendar(command)

      case .doctor:
        return try await doctor()

      case .backup(let path):
        let url = URL(fileURLWithPath: path)
        try await dao.database.backup(to: url)
        let count = try await dao.getAllAppointments().count
        return json
          ? "{\"backup\":\(AppointmentFormatter.jsonString(url.path)),\"appointments\":\(count)}\n"
          : "backed up \(count) appointment\(count == 1 ? "" : "s") to \(url.path)\n"

      case .help(let topic):
        return help(topic)

      case .completion(let shell):
        return shell.script

      case .config(let pathOnly, let asJSON):
        // Settings are read before any command runs; this only shows them (no store opened).
        if pathOnly { return (settings.source?.path ?? "") + "\n" }
        return json || asJSON ? settings.reportJSON() : settings.reportText()

      case .conflicts:
        return conflictList(try await dao.conflicts())

      case .conflictShow(let prefix):
        let (conflict, now) = try await dao.conflict(id: prefix)
        return conflictShown(conflict, now: now)

      case .resolve(let prefix, let keep):
        return resolved(try await dao.resolveConflict(id: prefix, keep: keep), keep: keep)

      case .reminders(let request):
        let instances = try await dao.alarmInstances(in: request.range, calendars: request.calendars)
        return reminderLines(instances, json: json || request.json, calendars: try await calendarNames())
      }
    } catch {
      // A stale revision: the message goes where errors go, and what is stored now where
      // results go, as `show` would print it (one JSON object in --json mode).
      if case .staleRevision(let current) = error {
        var calendar: String?
        do throws(StoreError) {
          calendar = try await calendarNames()[current.calendarID]
        } catch {
          calendar = nil  // the refusal is what this reports; show it without the calendar's name
        }
        throw Failure(error, output: show(current, calendar: calendar))
      }
      throw Failure(error)
    }
  }

  /// The alarms an `add` without `--remind` gets: its calendar's `default_remind`, else the
  /// global one (`Settings.defaultAlarms`), each that long before the start.
  private func defaultAlarms(_ request: AddRequest) -> [Alarm] {
    settings.defaultAlarms(calendar: request.calendar ?? settings.ui.defaultCalendar.value).map {
      Alarm.display(.relative(-$0, toEnd: false))
    }
  }

  /// `reminders`: `2026-12-03 08:45  15 minutes before  09:00 Standup (ab12cd)` a line (the
  /// start with its day when that is another day), the reminders' words in a column; --json:
  /// `{"fire_at","id","title","start","end","calendar","reminder":{...}}` a line.
  private func reminderLines(_ instances: [AlarmInstance], json: Bool, calendars: [String: String]) -> String {
    if json {
      return instances.map { instance in
        formatter.jsonObject(instance, calendar: calendars[instance.appointment.calendarID]) + "\n"
      }.joined()
    }
    let words = instances.map { instance in
      var text = TextSafety.escapingControls(instance.alarm.summary(clock: clock))
      if instance.repetition > 0 { text += " (repeat \(instance.repetition))" }
      return text
    }
    let width = min(40, words.map(\.count).max() ?? 0)
    return zip(instances, words).map { instance, text in
      let a = instance.appointment
      let fire = String(formatter.iso8601(instance.fireAt).prefix(10)) + " " + formatter.time(instance.fireAt)
      let sameDay = clock.startOfDay(a.start) == clock.startOfDay(instance.fireAt)
      let start =
        a.isAllDay ? formatter.day(a.start) : sameDay ? formatter.time(a.start) : formatter.dayAndTime(a.start)
      let padding = String(repeating: " ", count: max(0, width - text.count))
      return "\(fire)  \(text)\(padding)  \(start) \(TextSafety.escapingControls(a.title)) (\(a.id.short))\n"
    }.joined()
  }

  /// `sync [ACCOUNT...]`: `appt-sync` run as a child (SyncLauncher) on this store and settings
  /// file; its stdout is the result, its stderr the notes (or the failure's message), its exit
  /// status the failure's kind.
  private func sync(_ accounts: [String]) async throws(Failure) -> Outcome {
    let config =
      settings.source?.path
      ?? SettingsSource.locate(option: nil, environment: ProcessEnvironment.variables()).path
    guard
      let arguments = SyncLauncher.arguments(
        database: dao.database.configuration.location,
        config: config,
        json: json,
        accounts: accounts
      )
    else {
      throw Failure(message: "sync needs a database file or a PostgreSQL database, not one in memory", kind: .invalid)
    }
    let result = await SyncLauncher.run(arguments: arguments)
    let lines = result.stderr.split(separator: "\n").map { line in
      line.hasPrefix("appt: ") ? String(line.dropFirst("appt: ".count)) : String(line)
    }
    let kind: Failure.Kind
    switch result.status {
    case 0: return Outcome(output: result.stdout, notes: lines)
    case 2: kind = .usage
    case 3: kind = .unavailable
    default: kind = .invalid
    }
    throw Failure(message: lines.joined(separator: "\n"), kind: kind, output: result.stdout)
  }

  /// `import FILE [--partial]`: all or nothing unless `partial`; every problem is listed as
  /// `FILE:LINE: message` (on stderr, through the failure); on success the output is the
  /// summary and each assumption is a note `FILE:LINE: note: ...` (for stderr; in --json
  /// mode they are the JSON's `"notices"` instead).
  private func importFile(_ path: String, partial: Bool, calendar: String?) async throws(StoreError) -> Outcome {
    let shown = TextSafety.escapingControls(path)
    // An unknown calendar is refused before the file is read (as git refuses a remote it
    // does not know): `calendar add` makes it.
    if let calendar { _ = try await dao.calendar(named: calendar) }
    // Parsed and stored in batches in one transaction (`importCalendar`): all or nothing. A
    // regular file is read a piece at a time, anything else whole.
    let imported: CalendarImport
    let errors = Self.readErrors(path, command: "import", limit: Self.importSizeLimit)
    // A pipe is read whole here; a regular file only its head, for its METHOD.
    var file: FileChunks?
    var piped: [UInt8]?
    switch try FileChunks.open(path: path, limit: Self.importSizeLimit, errors: errors) {
    case .pieces(let pieces): file = pieces
    case .whole(let bytes): piped = bytes
    }
    let head = try file?.head(ITIP.headSize) ?? Array(piped?.prefix(ITIP.headSize) ?? [])
    switch ITIP.Method(ITIP.method(inHead: head)) {
    case .events:
      break
    case .unsupported(let name):
      throw .invalidRequest(
        message: "import: \(shown): METHOD:\(TextSafety.escapingControls(name)) is not something appt applies"
          + " (it reads PUBLISH, REQUEST, REPLY and CANCEL); nothing imported"
      )
    case let method:
      var bytes = piped ?? []
      if piped == nil { bytes = try Self.readFile(path, command: "import") }
      return try await applyMessage(ICalendar.readMessage(bytes: bytes, method: method, clock: clock), from: path)
    }
    if let file {
      imported = try await dao.importCalendar(
        chunks: { () throws(StoreError) in try file.next() },
        whole: { () throws(StoreError) in try Self.readFile(path, command: "import") },
        clock: clock,
        calendar: calendar,
        partial: partial
      )
    } else {
      imported = try await dao.importCalendar(
        bytes: piped ?? [],
        clock: clock,
        calendar: calendar,
        partial: partial
      )
    }
    let result = imported.read
    let describe: (ICalendar.Problem) -> String = { "\(shown):\($0.line): \(TextSafety.escapingControls($0.message))" }
    let problems = result.problems.map(describe).joined(separator: "\n")
    let notices = result.notices.map { "\(shown):\($0.line): note: \(TextSafety.escapingControls($0.message))" }
    let count = result.problems.count
    if count > 0, !partial {
      throw .invalidRequest(
        message: "import: \(shown): \(count) problem\(count == 1 ? "" : "s"); nothing imported"
          + " (--partial imports the events without problems)\n\(problems)"
      )
    }
    let (added, updated, unchanged) = (imported.added, imported.updated, imported.unchanged)
    let superseded = imported.superseded
    let total = result.count - superseded
    var summary = "imported \(total) appointment\(total == 1 ? "" : "s") (\(added) added, \(updated) updated"
    summary += (unchanged > 0 ? ", \(unchanged) unchanged" : "") + ") from \(shown)"
    if superseded > 0 {
      let plural = superseded == 1 ? "" : "s"
      summary += "; left out \(superseded) changed occurrence\(plural) its newer series no longer has"
    }
    if count > 0 {
      let skipped = result.eventCount - result.count
      let what =
        skipped > 0
        ? "skipped \(skipped) event\(skipped == 1 ? "" : "s") with problems"
        : "\(count) problem\(count == 1 ? "" : "s") outside the events"
      throw .invalidRequest(message: "import: \(summary); \(what)\n\(problems)")
    }
    if json {
      let noticeList = result.notices.map { AppointmentFormatter.jsonString(describe($0)) }.joined(separator: ",")
      let output =
        "{\"imported\":\(total),\"added\":\(added),\"updated\":\(updated),\"unchanged\":\(unchanged),"
        + "\"superseded\":\(superseded),"
        + "\"file\":\(AppointmentFormatter.jsonString(path)),\"notices\":[\(noticeList)]}\n"
      return Outcome(output: output, notes: [])
    }
    return Outcome(output: summary + "\n", notes: notices)
  }

  /// `export [--from] [--to]` to stdout: the calendar written to `sink` a piece at a time as
  /// it is made (--json: `{"exported":N,"ical":"...` with the text escaped piece by piece).
  private func export(range: DateInterval?, calendar: String?, to sink: any OutputSink) async throws(StoreError) {
    let appointments = try await dao.exportAppointments(in: range, calendar: calendar)
    var name: String?
    if let calendar { name = try await dao.calendar(named: calendar).name }
    if json, !sink.write("{\"exported\":\(appointments.count),\"ical\":\"") { return }
    var going = true
    ICalendar.write(appointments, fallbackZone: clock.timeZone, calendarName: name, piece: 1 << 16) { piece in
      going = sink.write(json ? String(AppointmentFormatter.jsonString(piece).dropFirst().dropLast()) : piece)
      return going
    }
    if json, going { _ = sink.write("\"}\n") }
  }

  /// `export [--from] [--to] [FILE]`: every stored appointment reaching the range (series
  /// whole, cancelled ones included), to FILE (see `exportTarget`) or stdout.
  private func export(range: DateInterval?, to path: String?, calendar: String?) async throws(StoreError) -> String {
    let appointments = try await dao.exportAppointments(in: range, calendar: calendar)
    var name: String?
    if let calendar { name = try await dao.calendar(named: calendar).name }
    let text = ICalendar.write(appointments, fallbackZone: clock.timeZone, calendarName: name)
    let count = appointments.count
    guard let path else {
      return json ? "{\"exported\":\(count),\"ical\":\(AppointmentFormatter.jsonString(text))}\n" : text
    }
    try Self.writeFile(path, Array(text.utf8))
    return json
      ? "{\"exported\":\(count),\"file\":\(AppointmentFormatter.jsonString(path))}\n"
      : "exported \(count) appointment\(count == 1 ? "" : "s") to \(TextSafety.escapingControls(path))\n"
  }

  /// The most `import` reads whole: 64 MiB, from a pipe or a FIFO (a regular file is read a
  /// piece at a time, any size), or a file that must be read whole (a METHOD message, one
  /// whose X-WR-TIMEZONE comes after its events). Real calendars are far smaller (ten years
  /// of a busy work calendar is a few MiB); this keeps `import /dev/zero` from taking the
  /// machine's memory.
  public static let importSizeLimit = 64 << 20

  /// The bytes of a file (a regular file, a FIFO, `/dev/stdin`, a pipe), read in bounded
  /// memory: at most `limit` bytes, or a message naming the file.
  static func readFile(_ path: String, command: String, limit: Int = importSizeLimit) throws(StoreError) -> [UInt8] {
    let errors = readErrors(path, command: command, limit: limit)
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw errors.failure(String(cString: strerror(errno))) }
    defer { Glibc.close(fd) }
    var info = stat()
    let isRegular = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    return try readAll(fd, isRegular: isRegular, size: Int(info.st_size), limit: limit, errors: errors)
  }

  /// What is left to read of `fd` (a regular file of `size` bytes, or a pipe), at most
  /// `limit` bytes, or `errors`' refusal.
  static func readAll(
    _ fd: Int32,
    isRegular: Bool,
    size: Int,
    limit: Int,
    errors: (failure: @Sendable (String) -> StoreError, tooLarge: StoreError)
  ) throws(StoreError) -> [UInt8] {
    let (failure, tooLarge) = errors
    if isRegular, size > limit { throw tooLarge }
    // One allocation, never a doubling past the limit: the file's size (plus a byte to see
    // its end), or the limit for a pipe (address space only: pages are touched as read).
    var bytes: [UInt8] = []
    bytes.reserveCapacity((isRegular ? size : limit) + 1)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let want = min(buffer.count, limit + 1 - bytes.count)
      let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, want) }
      if got < 0, errno == EINTR { continue }
      guard got >= 0 else { throw failure(String(cString: strerror(errno))) }
      if got == 0 { return bytes }
      bytes += buffer[0..<got]
      if bytes.count > limit { throw tooLarge }
    }
  }

  /// `readFile`'s errors for `path`: a failure with its reason, and the refusal of a file over
  /// `limit`.
  static func readErrors(_ path: String, command: String, limit: Int) -> (
    failure: @Sendable (String) -> StoreError, tooLarge: StoreError
  ) {
    let shown = TextSafety.escapingControls(path)
    let failure = { @Sendable (reason: String) in
      StoreError.invalidRequest(message: "\(command): cannot read \(shown): \(reason)")
    }
    let tooLarge = StoreError.invalidRequest(
      message: "\(command): \(shown) is larger than \(limit >> 20) MiB, the most appt reads whole"
        + " (a pipe, or a file that must be read whole); nothing imported"
    )
    return (failure, tooLarge)
  }

  /// Where `export FILE` puts the calendar. The rule (README "iCalendar", the man page):
  /// - FILE missing, a regular file, or a symbolic link to a regular file or to nothing is
  ///   replaced atomically: a new file (0600) in FILE's own directory, synced, renamed to
  ///   FILE. A link is replaced by the file and its target is never written, so a link
  ///   planted in /tmp cannot make appt overwrite someone's dotfile.
  /// - FILE that names appt's own stdout or stderr (`/dev/stdout`, also when redirected to a
  ///   file) is written to that descriptor.
  /// - FILE that is a FIFO, a character device or a socket (`/dev/null`, a terminal, or a link
  ///   to a FIFO or socket) is written in place and never renamed over.
  /// - Anything else (a directory, a block device, a link to a device) is refused, and so is
  ///   replacing anything in /dev, /proc or /sys (as root, renaming over `/dev/core` would work).
  enum ExportTarget: Equatable {
    /// A new file renamed to `name` in `directory` (the path's own directory, resolved).
    case replace(directory: String, name: String)
    /// One of appt's open descriptors (1 or 2).
    case descriptor(Int32)
    /// A FIFO, a character device or a socket, opened and written as it is.
    case inPlace
  }

  /// Which `ExportTarget` `path` is, or why appt will not write there.
  static func exportTarget(_ path: String) -> Result<ExportTarget, ExportRefusal> {
    var link = stat()
    guard lstat(path, &link) == 0 else {
      return errno == ENOENT ? replacement(path) : .failure(.init(String(cString: strerror(errno))))
    }
    var info = link
    let isLink = (link.st_mode & S_IFMT) == S_IFLNK
    if isLink, stat(path, &info) != 0 {
      return errno == ENOENT ? replacement(path) : .failure(.init(String(cString: strerror(errno))))
    }
    for descriptor: Int32 in [1, 2] {
      var open = stat()
      if fstat(descriptor, &open) == 0, open.st_dev == info.st_dev, open.st_ino == info.st_ino {
        return .success(.descriptor(descriptor))
      }
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return replacement(path)
    case S_IFIFO, S_IFSOCK: return .success(.inPlace)
    case S_IFCHR where !isLink: return .success(.inPlace)
    case S_IFCHR: return .failure(.init("it is a symbolic link to a device; appt does not write through it"))
    case S_IFDIR: return .failure(.init(String(cString: strerror(EISDIR))))
    default: return .failure(.init("not a file, a FIFO or a terminal"))
    }
  }

  /// Why `export` will not write to a path.
  struct ExportRefusal: Error, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
  }

  /// A new file for `path`, in its own directory resolved (so the temporary file and the
  /// rename land in the same directory even if a link in the path changes meanwhile).
  private static func replacement(_ path: String) -> Result<ExportTarget, ExportRefusal> {
    let name = (path as NSString).lastPathComponent
    let parent = (path as NSString).deletingLastPathComponent
    guard let resolved = realpath(parent.isEmpty ? "." : parent, nil) else {
      return .failure(.init(String(cString: strerror(errno))))
    }
    defer { free(resolved) }
    let directory = String(cString: resolved)
    for system in ["/dev", "/proc", "/sys"] where directory == system || directory.hasPrefix(system + "/") {
      return .failure(.init("appt does not create or replace files in \(system)"))
    }
    guard !name.isEmpty, name != ".", name != "..", !path.hasSuffix("/") else {
      return .failure(.init(String(cString: strerror(EISDIR))))
    }
    return .success(.replace(directory: directory, name: name))
  }

  /// Writes `bytes` where `exportTarget` says; a failure never leaves half a calendar in
  /// place of a file (the temporary file is removed, the old file stays).
  private static func writeFile(_ path: String, _ bytes: [UInt8]) throws(StoreError) {
    let failure = { (reason: String) in
      StoreError.invalidRequest(message: "export: cannot write \(TextSafety.escapingControls(path)): \(reason)")
    }
    // A full disk is a storage failure (exit 3), as when the store cannot commit.
    let failed = { (code: Int32) in
      code == ENOSPC || code == EDQUOT
        ? StoreError.diskFull(path: TextSafety.escapingControls(path)) : failure(String(cString: strerror(code)))
    }
    let target: ExportTarget
    switch exportTarget(path) {
    case .success(let found): target = found
    case .failure(let refusal): throw failure(refusal.reason)
    }
    switch target {
    case .descriptor(let fd):
      if let error = writeAll(bytes, to: fd) { throw failed(error) }
    case .inPlace:
      // No O_TRUNC: should the path have become a regular file since, it is not cut short.
      let fd = Glibc.open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
      guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
      var info = stat()
      var error = fstat(fd, &info) != 0 ? errno : 0
      if error == 0, [S_IFREG, S_IFDIR, S_IFBLK].contains(info.st_mode & S_IFMT) {
        Glibc.close(fd)
        throw failure("it changed while appt was opening it; nothing written")
      }
      if error == 0 { error = writeAll(bytes, to: fd) ?? 0 }
      if Glibc.close(fd) != 0, error == 0 { error = errno }
      if error != 0 { throw failed(error) }
    case .replace(let directory, let name):
      var template = Array((directory + "/.appt-export-XXXXXX").utf8CString)
      let fd = mkstemp(&template)
      guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
      let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
      var error = writeAll(bytes, to: fd) ?? 0
      if error == 0, fsync(fd) != 0 { error = errno }
      if Glibc.close(fd) != 0, error == 0 { error = errno }
      if error == 0, rename(temporary, directory + "/" + name) != 0 { error = errno }
      if error != 0 {
        unlink(temporary)
        throw failed(error)
      }
    }
  }

  /// Writes all of `bytes` to `fd`; the errno that stopped it, or nil.
  private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32? {
    var remaining = bytes[...]
    while !remaining.isEmpty {
      let written = remaining.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return written < 0 ? errno : EIO }
      remaining = remaining.dropFirst(written)
    }
    return nil
  }

  /// `integrity_check` and a summary; a damaged file is a storage failure (exit 3).
  private func doctor() async throws(StoreError) -> String {
    let path = dao.database.configuration.displayPath
    let problems = try await dao.database.integrityCheck()
    guard problems == ["ok"] else {
      throw .corrupt(path: path, reason: problems.prefix(20).joined(separator: "; "))
    }
    let count = try await dao.getAllAppointments().count
    return json
      ? "{\"database\":\(AppointmentFormatter.jsonString(path)),\"integrity\":\"ok\",\"appointments\":\(count)}\n"
      : "\(path): integrity ok, \(count) appointment\(count == 1 ? "" : "s")\n"
  }

  /// The overview, or one command's usage (the parser has already refused unknown topics).
  private func help(_ topic: String?) -> String {
    let text = topic.flatMap(CommandHelp.usage(for:)) ?? CommandHelp.summary
    let body = text.hasSuffix("\n") ? text : text + "\n"
    return json ? "{\"help\":\(AppointmentFormatter.jsonString(body))}\n" : body
  }

  /// Every field of `appointment`: `show`'s output.
  private func show(_ appointment: Appointment, series: Appointment? = nil, calendar: String? = nil) -> String {
    json
      ? formatter.jsonObject(appointment, calendar: calendar) + "\n"
      : formatter.details(appointment, series: series, calendar: calendar).joined(separator: "\n") + "\n"
  }

  private func render(_ appointment: Appointment, verb: String) async throws(StoreError) -> String {
    guard json else { return "\(verb) \(formatter.textLine(appointment))\n" }
    return formatter.jsonObject(appointment, calendar: try await calendarNames()[appointment.calendarID]) + "\n"
  }

  /// The calendars' names by id (one read of a small table), for JSON and `show`.
  private func calendarNames() async throws(StoreError) -> [String: String] {
    Dictionary(try await dao.calendars().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
  }

  /// `calendars` and `calendar add|rename|color|delete|show|hide|sync|unsync`.
  private func calendar(_ command: CalendarCommand) async throws(StoreError) -> String {
    switch command {
    case .list:
      let calendars = try await dao.calendars(counts: true)
      if json { return calendars.map { Self.jsonObject($0) + "\n" }.joined() }
      let width = max(4, calendars.map { TextSafety.escapingControls($0.name).count }.max() ?? 0)
      func padded(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
      }
      let counts = calendars.map { calendar in
        let count = calendar.count ?? 0
        return "\(count) appointment\(count == 1 ? "" : "s")"
      }
      let countWidth = max(16, counts.map(\.count).max() ?? 0)
      let sources = calendars.map { calendar in
        calendar.account.map { "\(calendar.source):\(TextSafety.escapingControls($0))" } ?? calendar.source
      }
      let sourceWidth = max(6, sources.map(\.count).max() ?? 0)
      return calendars.indices.map { index in
        let (calendar, count, source) = (calendars[index], counts[index], sources[index])
        let name = padded(TextSafety.escapingControls(calendar.name), width)
        let line =
          "\(name)  \(padded(calendar.color, 7))  \(padded(source, sourceWidth))  "
          + "\(padded(count, countWidth))  \(calendar.isShown ? "shown" : "hidden")"
        return line + Self.syncNote(calendar) + "\n"
      }.joined()
    case .add(let name, let color):
      return calendarResult(try await dao.addCalendar(name: name, color: color), verb: "added")
    case .rename(let old, let new):
      return calendarResult(try await dao.renameCalendar(old, to: new), verb: "renamed")
    case .color(let name, let color):
      return calendarResult(try await dao.setCalendarColor(name, color), verb: "recoloured")
    case .setShown(let name, let shown):
      return calendarResult(try await dao.setCalendarShown(name, shown), verb: shown ? "shown" : "hidden")
    case .setSyncs(let name, let syncs):
      let calendar = try await dao.setCalendarSyncs(name, syncs)
      if json { return Self.jsonObject(calendar) + "\n" }
      let named = TextSafety.escapingControls(calendar.name)
      return syncs
        ? "\(named) syncs again from the next sync\n"
        : "\(named) is no longer synced; its events stay here ('appt calendar sync \(named)' syncs it again)\n"
    case .delete(let name, let moveTo, let withAppointments):
      let disposal: CalendarDisposal =
        moveTo.map { .moveTo($0) } ?? (withAppointments ? .deleteAppointments : .refuse)
      let deleted = try await dao.deleteCalendar(name, disposal: disposal)
      let count = deleted.count ?? 0
      if json { return Self.jsonObject(deleted) + "\n" }
      var line = "deleted calendar \(TextSafety.escapingControls(deleted.name))"
      if count > 0, let moveTo {
        line += ", its \(count) appointment\(count == 1 ? "" : "s") moved to \(TextSafety.escapingControls(moveTo))"
      } else if count > 0 {
        line += " and its \(count) appointment\(count == 1 ? "" : "s")"
      }
      if deleted.source == "caldav" {
        let named = TextSafety.escapingControls(deleted.name)
        line += "; the server's calendar is no longer synced ('appt calendar sync \(named)' brings it back)"
      }
      return line + "\n"
    }
  }

  /// `conflicts`: `SHORTID  CALENDAR  TITLE  found WHEN` a line, in columns, oldest first
  /// ("no conflicts" when there is none); --json: `{"id","appointment","calendar","uid",
  /// "title","found"}` a line (`appointment`: the event's id).
  private func conflictList(_ conflicts: [SyncConflict]) -> String {
    if json {
      return conflicts.map { conflict in
        "{\"id\":\(AppointmentFormatter.jsonString(conflict.id.description))"
          + ",\"appointment\":\(AppointmentFormatter.jsonString(conflict.appointment.description))"
          + ",\"calendar\":\(AppointmentFormatter.jsonString(conflict.calendar))"
          + ",\"uid\":\(AppointmentFormatter.jsonString(conflict.uid))"
          + ",\"title\":\(AppointmentFormatter.jsonString(conflict.title))"
          + ",\"found\":\(AppointmentFormatter.jsonString(formatter.iso8601(conflict.found)))}\n"
      }.joined()
    }
    guard !conflicts.isEmpty else { return "no conflicts\n" }
    let names = conflicts.map { TextSafety.escapingControls($0.calendar) }
    let titles = conflicts.map { TextSafety.escapingControls($0.title) }
    let nameWidth = names.map(\.count).max() ?? 0
    let titleWidth = min(40, titles.map(\.count).max() ?? 0)
    func padded(_ text: String, _ width: Int) -> String {
      text + String(repeating: " ", count: max(0, width - text.count))
    }
    return conflicts.indices.map { index in
      let id = conflicts[index].id.short
      return "\(id)  \(padded(names[index], nameWidth))  \(padded(titles[index], titleWidth))  "
        + "found \(formatter.dayAndTime(conflicts[index].found))\n"
    }.joined()
  }

  /// `resolve`: what was kept; --json: `{"id","calendar","uid","title","kept"}`.
  private func resolved(_ conflict: SyncConflict, keep: ConflictChoice) -> String {
    if json {
      return "{\"id\":\(AppointmentFormatter.jsonString(conflict.id.description))"
        + ",\"calendar\":\(AppointmentFormatter.jsonString(conflict.calendar))"
        + ",\"uid\":\(AppointmentFormatter.jsonString(conflict.uid))"
        + ",\"title\":\(AppointmentFormatter.jsonString(conflict.title))"
        + ",\"kept\":\(AppointmentFormatter.jsonString(keep.rawValue))}\n"
    }
    let id = conflict.id.short
    switch keep {
    case .local: return "resolved \(id): kept the local version; it goes to the server on the next sync\n"
    case .server: return "resolved \(id): kept the server's version\n"
    }
  }

  private func calendarResult(_ calendar: CalendarInfo, verb: String) -> String {
    json
      ? Self.jsonObject(calendar) + "\n"
      : "\(verb) calendar \(TextSafety.escapingControls(calendar.name)) (\(calendar.color))\n"
  }

  /// What `calendars` says after a synced calendar's line: its name on the server when the
  /// user gave it another, and that it does not sync.
  static func syncNote(_ calendar: CalendarInfo) -> String {
    guard calendar.source == "caldav" else { return "" }
    var notes: [String] = []
    if let remote = calendar.remoteName, calendar.isNamedByUser {
      notes.append("on the server: \(TextSafety.escapingControls(remote))")
    }
    if !calendar.syncs { notes.append("sync off") }
    return notes.isEmpty ? "" : "  (" + notes.joined(separator: ", ") + ")"
  }

  /// `{"name":…,"color":…,"source":…,"account":…|null[,"remoteName":…|null,"sync":…],
  /// "shown":…,"appointments":N}` (`remoteName` and `sync` for a synced calendar, the count
  /// only where it was asked for).
  static func jsonObject(_ calendar: CalendarInfo) -> String {
    var out = "{\"name\":" + AppointmentFormatter.jsonString(calendar.name)
    out += ",\"color\":" + AppointmentFormatter.jsonString(calendar.color)
    out += ",\"source\":" + AppointmentFormatter.jsonString(calendar.source)
    out += ",\"account\":" + (calendar.account.map(AppointmentFormatter.jsonString) ?? "null")
    if calendar.source == "caldav" {
      out += ",\"remoteName\":" + (calendar.remoteName.map(AppointmentFormatter.jsonString) ?? "null")
      out += ",\"sync\":" + (calendar.syncs ? "true" : "false")
    }
    out += ",\"shown\":" + (calendar.isShown ? "true" : "false")
    if let count = calendar.count { out += ",\"appointments\":\(count)" }
    return out + "}"
  }
}
