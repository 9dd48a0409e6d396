import Foundation

/// One parsed command of the grammar shared by one-shot arguments, stdin scripts and the TUI's
/// `:` line (DESIGN.md "Command line and script mode").
public enum Command: Equatable, Sendable {
  case add(AddRequest)
  case list(ListRequest)
  case show(id: String)
  case edit(EditRequest)
  case cancel(id: String)
  case restore(id: String)
  case delete(id: String)
  /// Checks the database file's integrity and reports.
  case doctor
  /// Writes a consistent copy of the database to a new file.
  case backup(path: String)
  case help(topic: String?)
}

/// `add TITLE --at WHEN [--for DURATION | --until TIME] [--note TEXT]`, resolved to instants.
public struct AddRequest: Equatable, Sendable {
  public var title: String
  public var start: Date
  public var end: Date
  public var note: String

  public init(title: String, start: Date, end: Date, note: String = "") {
    self.title = title
    self.start = start
    self.end = end
    self.note = note
  }
}

/// `edit ID [--title T] [--at WHEN] [--for DURATION] [--note TEXT]`: only the given fields change.
public struct EditRequest: Equatable, Sendable {
  public var id: String
  public var title: String?
  public var start: Date?
  public var duration: TimeInterval?
  public var note: String?

  public init(id: String, title: String? = nil, start: Date? = nil, duration: TimeInterval? = nil, note: String? = nil)
  {
    self.id = id
    self.title = title
    self.start = start
    self.duration = duration
    self.note = note
  }
}

/// `list [--from WHEN] [--to WHEN | --days N] [--all] [--include-cancelled] [--search TEXT]`.
public struct ListRequest: Equatable, Sendable {
  /// The half-open window `[start, end)`; `nil` for `--all`.
  public var range: DateInterval?
  public var includeCancelled: Bool
  public var search: String?

  public init(range: DateInterval?, includeCancelled: Bool = false, search: String? = nil) {
    self.range = range
    self.includeCancelled = includeCancelled
    self.search = search
  }
}

/// Why a command line was refused. `usage` (exit 2) is an unknown command or option or a
/// missing argument; `invalid` (exit 1) is a value that does not parse or makes no sense.
public struct CommandError: Error, Equatable, Sendable, CustomStringConvertible {
  public enum Kind: Equatable, Sendable {
    case usage
    case invalid
  }

  public var kind: Kind
  public var message: String

  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public static func usage(_ message: String) -> CommandError { CommandError(.usage, message) }
  public static func invalid(_ message: String) -> CommandError { CommandError(.invalid, message) }

  public var description: String { message }
}
