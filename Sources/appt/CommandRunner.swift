import ApptCore
import ApptStore
import Foundation

/// Carries out one command against the DAO and prints its result, as text or JSON Lines.
struct CommandRunner {
  let dao: AppointmentDAO
  let clock: Clock
  let json: Bool
  private let formatter: AppointmentFormatter
  private let parser: CommandParser

  init(dao: AppointmentDAO, clock: Clock, json: Bool) {
    self.dao = dao
    self.clock = clock
    self.json = json
    formatter = AppointmentFormatter(clock: clock)
    parser = CommandParser(clock: clock)
  }

  /// A failed command: what to print and how bad it is.
  struct Failure: Error {
    let message: String
    let status: ExitStatus

    init(_ error: CommandError) {
      message = error.message
      status = error.kind == .usage ? .usage : .failure
    }

    init(_ error: StoreError) {
      message = error.description
      status = error.isStorageFailure ? .storage : .failure
    }

    /// Errors after which no later command can work either (the file itself is the problem).
    var isFatal: Bool { status == .storage }
  }

  /// `appt COMMAND ARGS...`: one command from the process arguments.
  func runOneShot(_ words: [String]) async -> ExitStatus {
    do throws(Failure) {
      let command: Command
      do throws(CommandError) { command = try parser.parse(words: words) } catch { throw Failure(error) }
      Output.write(try await run(command))
      return .ok
    } catch {
      Output.error("appt: \(error.message)")
      return error.status
    }
  }

  /// Parses one script line; nil for blank lines and comments.
  func parse(line: String) throws(Failure) -> Command? {
    do throws(CommandError) { return try parser.parse(line: line) } catch { throw Failure(error) }
  }

  /// Runs `command` and returns the text to print (already terminated by newlines).
  func run(_ command: Command) async throws(Failure) -> String {
    if case .help(let topic) = command { return try help(topic) }
    do throws(StoreError) {
      switch command {
      case .add(let request):
        let appointment = Appointment(
          title: request.title,
          start: request.start,
          end: request.end,
          note: request.note,
          created: clock.now
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

      case .cancel(let prefix):
        return render(try await dao.cancelAppointment(id: try await dao.resolveID(prefix)), verb: "cancelled")

      case .restore(let prefix):
        return render(try await dao.restoreAppointment(id: try await dao.resolveID(prefix)), verb: "restored")

      case .delete(let prefix):
        return render(try await dao.deleteAppointment(id: try await dao.resolveID(prefix)), verb: "deleted")

      case .help:
        preconditionFailure("help is answered before the store is involved")
      }
    } catch {
      throw Failure(error)
    }
  }

  private func help(_ topic: String?) throws(Failure) -> String {
    var text = CommandHelp.summary
    if let topic {
      guard let usage = CommandHelp.usage(for: topic) else {
        throw Failure(CommandError.usage("no help for \"\(topic)\": unknown command"))
      }
      text = usage
    }
    let body = text.hasSuffix("\n") ? text : text + "\n"
    return json ? "{\"help\":\(AppointmentFormatter.jsonString(body))}\n" : body
  }

  private func edit(_ request: EditRequest) async throws(StoreError) -> Appointment {
    var appointment = try await dao.getAppointment(id: try await dao.resolveID(request.id))
    let duration = request.duration ?? appointment.duration
    if let title = request.title { appointment.title = title }
    if let note = request.note { appointment.note = note }
    if let start = request.start { appointment.start = start }
    appointment.end = appointment.start.addingTimeInterval(duration)
    appointment.updated = clock.now
    try await dao.saveAppointment(appointment)
    return appointment
  }

  private func render(_ appointment: Appointment, verb: String) -> String {
    json ? formatter.jsonObject(appointment) + "\n" : "\(verb) \(formatter.textLine(appointment))\n"
  }
}
