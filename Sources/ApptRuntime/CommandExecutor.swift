import ApptCore
import ApptStore
import Foundation

/// Carries out one command of the script grammar against the DAO and returns what to print,
/// as text or JSON Lines. Shared by one-shot commands, stdin scripts and the TUI's `:` line.
public struct CommandExecutor: Sendable {
  public let dao: AppointmentDAO
  public let clock: Clock
  public let json: Bool
  private let formatter: AppointmentFormatter
  private let parser: CommandParser

  public init(dao: AppointmentDAO, clock: Clock, json: Bool) {
    self.dao = dao
    self.clock = clock
    self.json = json
    formatter = AppointmentFormatter(clock: clock)
    parser = CommandParser(clock: clock)
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
  }

  /// Parses one script line; nil for blank lines and comments.
  public func parse(line: String) throws(Failure) -> Command? {
    do throws(CommandError) { return try parser.parse(line: line) } catch { throw Failure(error) }
  }

  /// Parses the words of a one-shot command.
  public func parse(words: [String]) throws(Failure) -> Command {
    do throws(CommandError) { return try parser.parse(words: words) } catch { throw Failure(error) }
  }

  /// Runs `command` and returns the text to print (already terminated by newlines).
  public func run(_ command: Command) async throws(Failure) -> String {
    do throws(StoreError) {
      switch command {
      case .add(let request):
        return render(try await dao.addAppointment(request), verb: "added")

      case .list(let request):
        let query = AppointmentQuery(
          range: request.range,
          includeCancelled: request.includeCancelled,
          search: request.search
        )
        let appointments = try await dao.appointments(matching: query)
        return appointments.map { json ? formatter.jsonObject($0) + "\n" : formatter.textLine($0) + "\n" }.joined()

      case .show(let prefix):
        return show(try await dao.getAppointment(id: try await dao.resolveID(prefix)))

      case .edit(let request):
        return render(try await dao.editAppointment(request), verb: "updated")

      case .cancel(let prefix, let occurrence, let ifRevision):
        let id = try await dao.resolveID(prefix)
        let cancelled = try await dao.setStatus(.cancelled, id: id, occurrenceOn: occurrence, ifRevision: ifRevision)
        return render(cancelled, verb: "cancelled")

      case .restore(let prefix, let occurrence, let ifRevision):
        let id = try await dao.resolveID(prefix)
        let restored = try await dao.setStatus(.scheduled, id: id, occurrenceOn: occurrence, ifRevision: ifRevision)
        return render(restored, verb: "restored")

      case .delete(let prefix, let ifRevision):
        let id = try await dao.resolveID(prefix)
        return render(try await dao.deleteAppointment(id: id, ifRevision: ifRevision), verb: "deleted")

      case .importFile(let path, let partial):
        return try await importFile(path, partial: partial)

      case .export(let range, let path):
        return try await export(range: range, to: path)

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
      }
    } catch {
      // A stale revision: the message goes where errors go, and what is stored now where
      // results go, as `show` would print it (one JSON object in --json mode).
      if case .staleRevision(let current) = error { throw Failure(error, output: show(current)) }
      throw Failure(error)
    }
  }

  /// `import FILE [--partial]`: all or nothing unless `partial`; every problem is listed as
  /// `FILE:LINE: message` (on stderr, through the failure); on success the summary comes
  /// first, then a `FILE:LINE: note: ...` line for each thing skipped on purpose.
  private func importFile(_ path: String, partial: Bool) async throws(StoreError) -> String {
    let shown = TextSafety.escapingControls(path)
    let result = ICalendar.read(bytes: try Self.readFile(path, command: "import"), clock: clock)
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
    let (added, updated, unchanged) = try await dao.importAppointments(result.appointments)
    let total = result.appointments.count
    var summary = "imported \(total) appointment\(total == 1 ? "" : "s") (\(added) added, \(updated) updated"
    summary += (unchanged > 0 ? ", \(unchanged) unchanged" : "") + ") from \(shown)"
    if count > 0 {
      let skipped = result.eventCount - total
      throw .invalidRequest(
        message: "import: \(summary); skipped \(skipped) event\(skipped == 1 ? "" : "s") with problems\n\(problems)"
      )
    }
    if json {
      let noticeList = result.notices.map { AppointmentFormatter.jsonString(describe($0)) }.joined(separator: ",")
      return "{\"imported\":\(total),\"added\":\(added),\"updated\":\(updated),\"unchanged\":\(unchanged),"
        + "\"file\":\(AppointmentFormatter.jsonString(path)),\"notices\":[\(noticeList)]}\n"
    }
    return ([summary] + notices).map { $0 + "\n" }.joined()
  }

  /// `export [--from] [--to] [FILE]`: every stored appointment reaching the range (series
  /// whole, cancelled ones included), to FILE (replaced atomically, 0600) or stdout.
  private func export(range: DateInterval?, to path: String?) async throws(StoreError) -> String {
    var appointments = try await dao.getAllAppointments()
    if let range {
      appointments = appointments.filter { ICalendar.reaches($0, range, fallbackZone: clock.timeZone) }
    }
    let text = ICalendar.write(appointments, fallbackZone: clock.timeZone)
    let count = appointments.count
    guard let path else {
      return json ? "{\"exported\":\(count),\"ical\":\(AppointmentFormatter.jsonString(text))}\n" : text
    }
    try Self.writeFile(path, Array(text.utf8))
    return json
      ? "{\"exported\":\(count),\"file\":\(AppointmentFormatter.jsonString(path))}\n"
      : "exported \(count) appointment\(count == 1 ? "" : "s") to \(TextSafety.escapingControls(path))\n"
  }

  /// The bytes of a file, or a message naming it.
  private static func readFile(_ path: String, command: String) throws(StoreError) -> [UInt8] {
    let failure = { (reason: String) in
      StoreError.invalidRequest(message: "\(command): cannot read \(TextSafety.escapingControls(path)): \(reason)")
    }
    let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
    defer { Glibc.close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if got < 0, errno == EINTR { continue }
      guard got >= 0 else { throw failure(String(cString: strerror(errno))) }
      if got == 0 { return bytes }
      bytes += buffer[0..<got]
    }
  }

  /// Replaces `path` with `bytes` atomically (a temporary file created 0600 in the same
  /// directory, synced, then renamed over it), so a failure never leaves half a calendar; a
  /// symbolic link is followed, not replaced. A path that exists and is not a regular file
  /// (a FIFO, /dev/stdout) is written in place.
  private static func writeFile(_ path: String, _ bytes: [UInt8]) throws(StoreError) {
    let failure = { (reason: String) in
      StoreError.invalidRequest(message: "export: cannot write \(TextSafety.escapingControls(path)): \(reason)")
    }
    var info = stat()
    let exists = stat(path, &info) == 0
    let isSpecial = exists && (info.st_mode & S_IFMT) != S_IFREG
    let target = exists ? URL(fileURLWithPath: path).resolvingSymlinksInPath().path : path
    let directory = (target as NSString).deletingLastPathComponent
    var template = Array((directory.isEmpty ? "." : directory).utf8CString.dropLast())
    template += Array("/.appt-export-XXXXXX".utf8CString)
    let fd = isSpecial ? Glibc.open(path, O_WRONLY | O_TRUNC | O_CLOEXEC) : mkstemp(&template)
    guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
    let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var remaining = bytes[...]
    var error: Int32 = 0
    while !remaining.isEmpty {
      let written = remaining.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else {
        error = written < 0 ? errno : EIO
        break
      }
      remaining = remaining.dropFirst(written)
    }
    if error == 0, !isSpecial, fsync(fd) != 0 { error = errno }
    if Glibc.close(fd) != 0, error == 0 { error = errno }
    if error == 0, !isSpecial, rename(temporary, target) != 0 { error = errno }
    if error != 0 {
      if !isSpecial { unlink(temporary) }
      throw failure(String(cString: strerror(error)))
    }
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
  private func show(_ appointment: Appointment) -> String {
    json ? formatter.jsonObject(appointment) + "\n" : formatter.details(appointment).joined(separator: "\n") + "\n"
  }

  private func render(_ appointment: Appointment, verb: String) -> String {
    json ? formatter.jsonObject(appointment) + "\n" : "\(verb) \(formatter.textLine(appointment))\n"
  }
}
