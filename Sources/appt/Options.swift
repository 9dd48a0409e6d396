import ApptCore
import ApptStore
import Foundation

/// The global options that come before a command:
/// `appt [--db PATH|URL] [--config FILE] [--json] [--bail] ...`.
struct Options {
  /// A file path, or a `postgresql://` URL (`DatabaseConfiguration.Location.named`).
  var database: DatabaseConfiguration.Location
  /// `--config FILE`: the settings file to read instead of the default (which need not exist).
  var config: String?
  var json = false
  var bail = false
  var showVersion = false
  /// The one-shot command's words; nil when none was given (TUI or script mode).
  var commandWords: [String]?

  static let usage = """
    usage: appt [--db PATH|postgresql://URL] [--config FILE] [--json] [--bail] [COMMAND ARGS...]
           appt --help | --version
    With no command: the full-screen calendar on a terminal, else commands read from stdin.
    """

  static func parse(_ arguments: [String], environment: [String: String]) throws(CommandError) -> Options {
    var databasePath = environment["APPT_DB"].flatMap { $0.isEmpty ? nil : $0 }
    var databaseGiven = false
    var options = Options(database: .inMemory)
    // Two --db options would write into whichever came last: refuse rather than guess.
    func setDatabase(_ path: String) throws(CommandError) {
      guard !databaseGiven else { throw .usage("--db given more than once") }
      databaseGiven = true
      databasePath = path
    }
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      switch argument {
      case "--json": options.json = true
      case "--bail": options.bail = true
      case "--version": options.showVersion = true
      case "--db":
        guard index + 1 < arguments.count, !arguments[index + 1].isEmpty else {
          throw .usage("--db needs a path or a postgresql:// URL")
        }
        try setDatabase(arguments[index + 1])
        index += 1
      case _ where argument.hasPrefix("--db="):
        let path = String(argument.dropFirst("--db=".count))
        guard !path.isEmpty else { throw .usage("--db needs a path or a postgresql:// URL") }
        try setDatabase(path)
      case "--config":
        guard index + 1 < arguments.count, !arguments[index + 1].isEmpty else {
          throw .usage("--config needs the path of a settings file")
        }
        guard options.config == nil else { throw .usage("--config given more than once") }
        options.config = arguments[index + 1]
        index += 1
      case _ where argument.hasPrefix("--config="):
        let path = String(argument.dropFirst("--config=".count))
        guard !path.isEmpty else { throw .usage("--config needs the path of a settings file") }
        guard options.config == nil else { throw .usage("--config given more than once") }
        options.config = path
      case "--":
        options.commandWords = Array(arguments[(index + 1)...])
        index = arguments.count
        continue
      case "--help", "-h":
        options.commandWords = ["help"]
      case _ where argument.hasPrefix("-") && argument.count > 1:
        throw .usage("unknown option \(argument)")
      default:
        options.commandWords = Array(arguments[index...])
        index = arguments.count
        continue
      }
      index += 1
    }
    // ApptStore's rule, shared with appt-sync: a key=value string is refused, never echoed.
    switch DatabaseConfiguration.Location.resolve(databasePath, environment: environment) {
    case .success(let location): options.database = location
    case .failure(let problem): throw .usage(problem.message)
    }
    return options
  }
}
