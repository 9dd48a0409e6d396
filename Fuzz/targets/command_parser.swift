// Fuzz target: CommandParser.parse(line:) (scripts, the TUI's `:` line) and
// CommandParser.parse(words:) (one-shot arguments: the input split at newlines, so words may
// hold spaces and quotes), each with two stopped clocks (UTC; New York on a DST night).
//
// Invariants (beyond "no crash"): errors are CommandError values with a non-empty,
// terminal-safe message; parsing is deterministic; every accepted command is well formed
// (non-empty trimmed title, end after start by at most 366 days, a forward list range, ids of
// 4-36 lower-case hex digits and dashes, known help topics); an accepted add prints as a text
// line with no raw control character and as JSON that parses back to the same title and note.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommandParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let line = Fuzz.text(data, size)
  let words = line.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  for clock in Fuzz.clocks {
    let parser = CommandParser(clock: clock)
    var first: Command??
    do throws(CommandError) {
      let command = try parser.parse(line: line)
      first = .some(command)
      if let command { checkCommand(command, clock: clock, input: line) }
    } catch {
      Fuzz.checkError(error, input: line)
    }
    // The same line again gives the same answer.
    do throws(CommandError) {
      let again = try parser.parse(line: line)
      Fuzz.check(first.map { $0 == again } ?? false, "parse(line:) is not deterministic", input: line)
    } catch {
      Fuzz.check(first == nil, "parse(line:) threw only the second time", input: line)
    }
    do throws(CommandError) {
      checkCommand(try parser.parse(words: words), clock: clock, input: line)
    } catch {
      Fuzz.checkError(error, input: line)
    }
  }
  return 0
}

private let day: TimeInterval = 86_400

private func checkCommand(_ command: Command, clock: Clock, input: String) {
  switch command {
  case .add(let request):
    Fuzz.check(!request.title.isEmpty, "add with an empty title", input: input)
    Fuzz.check(
      request.title == request.title.trimmingCharacters(in: .whitespacesAndNewlines),
      "add title not trimmed: \(request.title.debugDescription)",
      input: input
    )
    // `--for 0` is a moment: its end is its start.
    Fuzz.check(request.end >= request.start, "add ends before its start", input: input)
    Fuzz.check(request.end.timeIntervalSince(request.start) <= 366 * day, "add lasts more than 366 days", input: input)
    checkPrintable(request, clock: clock, input: input)
  case .list(let request):
    if let range = request.range {
      Fuzz.check(range.start < range.end, "list range is empty or reversed", input: input)
    }
    if let search = request.search {
      Fuzz.check(
        !search.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
        "list with a blank search",
        input: input
      )
    }
  case .edit(let request):
    checkID(request.id, input: input)
    if let title = request.title {
      Fuzz.check(!title.isEmpty, "edit to an empty title", input: input)
    }
    if let duration = request.duration {
      Fuzz.check(duration >= 0 && duration <= 366 * day, "edit duration \(duration) out of range", input: input)
    }
  case .help(let topic):
    if let topic {
      Fuzz.check(CommandHelp.usage(for: topic) != nil, "help for unknown topic \(topic.debugDescription)", input: input)
    }
  case .backup(let path):
    Fuzz.check(!path.isEmpty, "backup to an empty path", input: input)
  default:
    // show, cancel, restore, delete (whose payloads grow: cancel gained `occurrence`) and
    // doctor: read the id by reflection so the harness builds across those changes.
    if let id = idPayload(command) { checkID(id, input: input) }
  }
}

/// The `id` of an id command (`show`, `cancel`, `restore`, `delete`), whatever else it carries.
private func idPayload(_ command: Command) -> String? {
  guard let child = Mirror(reflecting: command).children.first,
    let name = child.label, ["show", "cancel", "restore", "delete"].contains(name)
  else { return nil }
  if let id = child.value as? String { return id }
  return Mirror(reflecting: child.value).children.first { $0.label == "id" }?.value as? String
}

private func checkID(_ id: String, input: String) {
  Fuzz.check((4...36).contains(id.count), "id of \(id.count) characters", input: input)
  Fuzz.check(
    id.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) || $0 == "-" },
    "id with characters other than lower-case hex and dashes: \(id.debugDescription)",
    input: input
  )
}

/// What `add` would print, in text and in JSON.
private func checkPrintable(_ request: AddRequest, clock: Clock, input: String) {
  let appointment = Appointment(
    id: AppointmentID(UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))),
    title: request.title,
    start: request.start,
    end: request.end,
    note: request.note,
    created: clock.now
  )
  let formatter = AppointmentFormatter(clock: clock)
  let line = formatter.textLine(appointment)
  Fuzz.check(Fuzz.isTerminalSafe(line), "raw control character in text output: \(line.debugDescription)", input: input)
  let json = formatter.jsonObject(appointment)
  Fuzz.check(Fuzz.isTerminalSafe(json), "raw control character in JSON output", input: input)
  guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
    Fuzz.check(false, "JSON output does not parse: \(json)", input: input)
    return
  }
  Fuzz.check(object["title"] as? String == request.title, "JSON title does not round-trip", input: input)
  Fuzz.check(object["note"] as? String == request.note, "JSON note does not round-trip", input: input)
}
