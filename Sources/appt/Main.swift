// appt: the executable. Reads the global options, picks a mode (full-screen UI, one-shot
// command, or a script on stdin) and turns results into text or JSON Lines and exit statuses.

import ApptCore
import ApptRemind
import ApptRuntime
import ApptStore
import ApptTerminal
import ApptUI
import CMalloc
import Foundation

@main
struct Appt {
  static let version = "0.1.0"

  static func main() async {
    // One malloc arena for every thread, set before the database's thread first allocates:
    // glibc gives a second thread an arena of its own that grows a page at a time, one
    // mprotect call each (419 of them in a week's `list` at 1M; 0.8 ms of its 23), where
    // the main arena grows 128 KiB at a time. Small blocks come from each thread's cache
    // without the arena's lock, so the calendar's two busy threads hardly ever wait on it.
    mallopt(M_ARENA_MAX, 1)
    // A closed pipe (`appt list | head -1`) must end appt quietly, not kill it mid-write, and
    // a file-size limit (`ulimit -f`) must surface as a write error (exit 3), not kill it.
    signal(SIGPIPE, SIG_IGN)
    signal(SIGXFSZ, SIG_IGN)
    if let problem = invalidArgument() {
      Output.error("appt: \(problem)")
      exit(ExitStatus.failure.rawValue)
    }
    let environment = ProcessEnvironment.variables()
    let options: Options
    do {
      options = try Options.parse(Array(CommandLine.arguments.dropFirst()), environment: environment)
    } catch {
      Output.error("appt: \(error.message)\n\(Options.usage)")
      exit(ExitStatus.usage.rawValue)
    }
    if options.showVersion {
      exit((Output.write("appt \(version)\n")?.status ?? .ok).rawValue)
    }
    // The settings file before anything else: a mistake in it starts nothing (exit 2).
    let settings: Settings
    do throws(SettingsFile.Refusal) {
      settings = try SettingsFile.load(
        option: options.config,
        environment: environment,
        vocabulary: KeyMap.standard.vocabulary
      )
    } catch {
      for line in error.lines { Output.error(line) }
      exit(ExitStatus.usage.rawValue)
    }

    // TZ and APPT_NOW (the man page, ENVIRONMENT): honoured, or refused with a message, never read as UTC.
    let clock: Clock
    do throws(Clock.SetupError) {
      clock = try Clock.fromEnvironment(environment)
    } catch {
      Output.error("appt: \(error.message)")
      exit(ExitStatus.usage.rawValue)
    }
    let fullScreen = options.commandWords == nil && isatty(0) == 1 && isatty(1) == 1
    // A command that runs once and exits reads each page about once: a small page cache.
    let oneCommand = options.commandWords.map { $0.first != "remind" } ?? false
    let dao = AppointmentDAO(
      location: options.database,
      clock: clock,
      pageCacheKiB: oneCommand ? AppointmentDAO.oneCommandPageCacheKiB : nil
    )
    let executor = CommandExecutor(dao: dao, clock: clock, json: options.json, settings: settings)

    let status: ExitStatus
    if let words = options.commandWords, words.first == "remind" {
      status = await runRemind(words, executor: executor)
    } else if let words = options.commandWords {
      status = await runOneShot(words, executor: executor)
    } else if fullScreen {
      status = await runFullScreen(dao: dao, clock: clock, settings: settings, environment: environment)
    } else {
      status = await ScriptMode(executor: executor, bail: options.bail).run()
    }
    await dao.database.close()
    exit(status.rawValue)
  }

  /// The first process argument that is not UTF-8 (CommandLine.arguments would repair it).
  static func invalidArgument() -> String? {
    for index in 1..<Int(CommandLine.argc) {
      guard let pointer = CommandLine.unsafeArgv[index] else { continue }
      let bytes = Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
      if let problem = UTF8Check.problem(bytes) { return "argument \(index): \(problem)" }
    }
    return nil
  }

  /// `appt COMMAND ARGS...`: one command from the process arguments.
  static func runOneShot(_ words: [String], executor: CommandExecutor) async -> ExitStatus {
    let stdout = StdoutSink()
    do throws(CommandExecutor.Failure) {
      let command = try executor.parse(words: words)
      if case .sync(let accounts) = command { return await execSync(accounts, executor: executor) }
      // Written as it is made (`list`, `export`: a chunk at a time).
      let notes = try await executor.perform(command, writingTo: stdout)
      let status = stdout.failure?.status ?? .ok
      for note in notes { Output.error(note) }
      for notice in executor.notices(for: command) { Output.error("appt: note: \(notice)") }
      return status
    } catch {
      // What was written before the failure stays written.
      Output.error("appt: \(error.message)")
      if error.output.isEmpty { return max(ExitStatus(error.kind), stdout.failure?.status ?? .ok) }
      return max(ExitStatus(error.kind), Output.write(error.output)?.status ?? .ok)
    }
  }

  /// `appt sync [ACCOUNT...]`: becomes `appt-sync` on the same store and settings file (exec,
  /// git style: its progress line and output reach the terminal, its exit status is appt's).
  /// Returns only when it could not be run.
  static func execSync(_ accounts: [String], executor: CommandExecutor) async -> ExitStatus {
    guard let program = SyncLauncher.locateSyncProgram() else {
      Output.error("appt: \(SyncLauncher.missingMessage)")
      return .failure
    }
    let config =
      executor.settings.source?.path
      ?? SettingsSource.locate(option: nil, environment: ProcessEnvironment.variables()).path
    guard
      let arguments = SyncLauncher.arguments(
        database: executor.dao.database.configuration.location,
        config: config,
        json: executor.json,
        accounts: accounts
      )
    else {
      Output.error("appt: sync needs a database file or a PostgreSQL database, not one in memory")
      return .failure
    }
    await executor.dao.database.close()
    let code = SyncLauncher.exec(program, arguments: arguments)
    Output.error("appt: cannot run \(program): \(String(cString: strerror(code)))")
    return .failure
  }

  /// `appt remind [--once]`: the reminder daemon (ApptRemind), in the foreground until a
  /// signal ends it; its log goes to stderr, the stdout fallback's lines to stdout.
  ///
  /// Parsed and run from `main` on the main actor, not through `runOneShot` (nonisolated, so on
  /// the global pool: see ReminderDaemon on why the daemon keeps off it).
  @MainActor
  static func runRemind(_ words: [String], executor: CommandExecutor) async -> ExitStatus {
    let once: Bool
    do throws(CommandExecutor.Failure) {
      let command = try executor.parse(words: words)
      guard case .remind(let flag) = command else { return await runOneShot(words, executor: executor) }
      once = flag
    } catch {
      Output.error("appt: \(error.message)")
      return ExitStatus(error.kind)
    }
    let daemon = ReminderDaemon(
      dao: executor.dao,
      clock: executor.clock,
      configuration: RemindConfiguration(settings: executor.settings, environment: ProcessEnvironment.variables()),
      log: { Output.error($0) },
      output: { _ = Output.write($0) }
    )
    switch await daemon.run(once: once) {
    case .ok: return .ok
    case .failure: return .failure
    case .storage: return .storage
    }
  }

  /// The full-screen UI. The database is opened first so a file that is not appt's is
  /// refused with a message and exit 3 before the terminal is taken over.
  @MainActor
  static func runFullScreen(
    dao: AppointmentDAO,
    clock: Clock,
    settings: Settings,
    environment: [String: String]
  ) async -> ExitStatus {
    if let problem = NCursesTerminal.checkUsable(environment: environment) {
      Output.error("appt: \(problem)")
      return .usage
    }
    do {
      try await dao.database.prepare()
    } catch {
      Output.error("appt: \(error)")
      return .storage
    }
    do {
      // Floating events at their wall-clock time in this process's zone.
      try await dao.followClockZone()
    } catch {
      Output.error("appt: note: floating events were not moved to this zone: \(error)")
    }
    let loop = RenderLoop(
      dao: dao,
      terminal: NCursesTerminal(
        environment: environment,
        palette: Palette(settings: settings),
        mouse: settings.ui.mouse.value
      ),
      environment: Environment(clock: clock, settings: settings)
    )
    do {
      try await loop.run()
    } catch {
      Output.error("appt: \(error)")
      return .usage
    }
    return .ok
  }
}

/// The exit statuses of the man page (EXIT STATUS); a script exits with its worst line's.
enum ExitStatus: Int32, Comparable {
  case ok = 0
  /// A command failed: bad input, not found, ambiguous id; or its result could not be
  /// written to stdout.
  case failure = 1
  /// Unknown command or option.
  case usage = 2
  /// The database cannot be opened, read or written.
  case storage = 3

  static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

  init(_ kind: CommandExecutor.Failure.Kind) {
    switch kind {
    case .usage: self = .usage
    case .invalid: self = .failure
    case .storage, .unavailable: self = .storage
    }
  }
}
