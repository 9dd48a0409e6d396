import Foundation

/// Reads the settings file before anything starts: a mistake in it is reported, every one,
/// and appt stops with exit 2 before a store is opened or the terminal taken over. Shared by
/// appt and appt-sync, so both say the same about the same file.
public enum SettingsFile {
  /// The settings in effect; thrown: every line to print on stderr. `vocabulary`: the
  /// calendar's key map's (ApptUI's `KeyMap.standard.vocabulary`), for `[keys]`.
  /// Typed throws, not a `Result`: the first `Result<Settings, Refusal>` a process makes
  /// costs the runtime a search of every conformance in the binary for `Refusal: Error`.
  public static func load(
    option: String?,
    environment: [String: String],
    vocabulary: KeyVocabulary
  ) throws(Refusal) -> Settings {
    try load(
      source: SettingsSource.locate(option: option, environment: environment),
      environment: environment,
      vocabulary: vocabulary
    )
  }

  /// The settings of the file `source` names; a missing file that is not required is every
  /// default.
  public static func load(
    source: SettingsSource,
    environment: [String: String],
    vocabulary: KeyVocabulary
  ) throws(Refusal) -> Settings {
    var source = source
    var defaults = Settings()
    defaults.ui.weekStart = Setting(Settings.localeWeekStart(environment: environment))
    let shown = TextSafety.escapingControls(source.path)
    let bytes: [UInt8]
    switch read(source.path) {
    case .success(let read):
      bytes = read
    case .failure(.missing) where !source.isRequired:
      source.exists = false
      bytes = []  // every default, the key map's included
    case .failure(.missing):
      throw Refusal(lines: ["appt: \(source.chosenBy.rawValue) names \(shown), which does not exist"])
    case .failure(.unreadable(let reason)):
      throw Refusal(lines: ["appt: cannot read the settings file \(shown): \(reason)"])
    }
    let parser = SettingsParser(path: source.path, vocabulary: vocabulary, defaults: defaults)
    switch parser.parse(bytes: bytes) {
    case .success(var settings):
      settings.source = source
      return settings
    case .failure(let failure):
      let count = failure.diagnostics.count
      let lines = failure.diagnostics.map { TextSafety.escapingControls($0.description) }
      throw Refusal(
        lines: lines + [
          "appt: \(count) mistake\(count == 1 ? "" : "s") in the settings file \(shown); nothing was started"
            + " (appt --config /dev/null runs with the defaults)"
        ]
      )
    }
  }

  /// Why appt does not start: the lines to print on stderr.
  public struct Refusal: Error {
    public var lines: [String]
  }

  enum ReadFailure: Error {
    case missing
    case unreadable(String)
  }

  /// The file's bytes; at most `SettingsParser.maximumSize` and one more (the parser refuses
  /// a longer one), so a huge file or an endless device costs nothing.
  static func read(_ path: String) -> Result<[UInt8], ReadFailure> {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else {
      return .failure(errno == ENOENT ? .missing : .unreadable(String(cString: strerror(errno))))
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { return .failure(.unreadable(String(cString: strerror(errno)))) }
    if (info.st_mode & S_IFMT) == S_IFDIR { return .failure(.unreadable("it is a directory")) }
    // Read a piece at a time: a buffer of the largest size allowed, zeroed, would be pages of
    // memory every start-up keeps for a file of a few lines (or none: /dev/null).
    let limit = SettingsParser.maximumSize + 1
    var bytes: [UInt8] = []
    var piece = [UInt8](repeating: 0, count: 16_384)
    while bytes.count < limit {
      let wanted = min(piece.count, limit - bytes.count)
      let got = piece.withUnsafeMutableBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return Glibc.read(fd, base, wanted)
      }
      if got < 0, errno == EINTR { continue }
      if got < 0, errno == EAGAIN { break }  // a pipe with nothing in it yet: nothing to read
      guard got >= 0 else { return .failure(.unreadable(String(cString: strerror(errno)))) }
      if got == 0 { break }
      bytes.append(contentsOf: piece[..<got])
    }
    return .success(bytes)
  }
}
