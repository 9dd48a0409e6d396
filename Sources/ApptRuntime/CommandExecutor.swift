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

    init(_ error: CommandError) {
      message = error.message
      kind = error.kind == .usage ? .usage : .invalid
    }

    init(_ error: StoreError) {
      message = error.description
      kind = error.isStorageFailure ? .storage : .invalid
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
        let appointment = Appointment(
          title: request.title,
          start: request.start,
          end: request.end,
          note: request.note,
          created: clock.now,
          timeZone: clock.timeZone.identifier,
          isAllDay: request.isAllDay,
          recurrence: request.recurrence
        )
        try await dao.saveAppointment(appointment)
        return render(appointment, verb: "added")

      case .list(let request):
        let query = AppointmentQuery(
          range: request.range,
          includeCancelled: request.includeCancelled,
          search: request.search
        )
        let appointments = try await dao.appointments(matching: query)
        return appointments.map { json ? formatter.jsonObject($0) + "\n" : formatter.textLine($0) + "\n" }.joined()

      case .show(let prefix):
        let appointment = try await dao.getAppointment(id: try await dao.resolveID(prefix))
        return json
          ? formatter.jsonObject(appointment) + "\n" : formatter.details(appointment).joined(separator: "\n") + "\n"

      case .edit(let request):
        return render(try await edit(request), verb: "updated")

      case .cancel(let prefix, let occurrence):
        let id = try await dao.resolveID(prefix)
        if let occurrence { return render(try await dao.cancelOccurrence(id: id, on: occurrence), verb: "cancelled") }
        return render(try await dao.cancelAppointment(id: id), verb: "cancelled")

      case .restore(let prefix, let occurrence):
        let id = try await dao.resolveID(prefix)
        if let occurrence { return render(try await dao.restoreOccurrence(id: id, on: occurrence), verb: "restored") }
        return render(try await dao.restoreAppointment(id: id), verb: "restored")

      case .delete(let prefix):
        return render(try await dao.deleteAppointment(id: try await dao.resolveID(prefix)), verb: "deleted")

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
      throw Failure(error)
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

  private func edit(_ request: EditRequest) async throws(StoreError) -> Appointment {
    let id = try await dao.resolveID(request.id)
    let now = clock.now
    let change: @Sendable (inout Appointment) -> Void = { appointment in
      let duration = request.duration ?? appointment.duration
      if let title = request.title { appointment.title = title }
      if let note = request.note { appointment.note = note }
      if let start = request.start { appointment.start = start }
      appointment.end = appointment.start.addingTimeInterval(duration)
      appointment.updated = now
    }
    if let day = request.occurrence { return try await dao.editOccurrence(id: id, on: day, change: change) }
    var appointment = try await dao.getAppointment(id: id)
    change(&appointment)
    try await dao.saveAppointment(appointment)
    return appointment
  }

  private func render(_ appointment: Appointment, verb: String) -> String {
    json ? formatter.jsonObject(appointment) + "\n" : "\(verb) \(formatter.textLine(appointment))\n"
  }
}
