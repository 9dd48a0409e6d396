import ApptCore
import ApptRuntime
import Foundation

/// Unbuffered writes to stdout and stderr: in script mode each command's result must reach a
/// pipe the moment that command has committed, not when a buffer fills.
///
/// A result that cannot be written is a failure like any other (as `ls` and `sqlite3` treat
/// it): `write` says so on stderr once and hands back a `StdoutFailure`; the caller stops
/// running commands and returns its status, so the store is still closed cleanly before appt
/// exits.
enum Output {
  /// Writes all of `text` to stdout. Nil when it was written; otherwise why not, already
  /// reported on stderr: the caller must stop and exit with the failure's status.
  static func write(_ text: String) -> StdoutFailure? {
    var text = text
    // The string's own bytes, not a copy.
    return text.withUTF8 { write(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// `write(_:)` for bytes: `list` hands over its output a chunk at a time, made as bytes.
  static func write(bytes: UnsafeRawBufferPointer) -> StdoutFailure? {
    var rest = bytes
    while !rest.isEmpty {
      let written = Glibc.write(1, rest.baseAddress, rest.count)
      if written < 0, errno == EINTR { continue }
      guard written > 0 else {
        let failure =
          written < 0 && errno == EPIPE ? StdoutFailure.readerGone : .writeError(written < 0 ? errno : EIO)
        failure.report()
        return failure
      }
      rest = UnsafeRawBufferPointer(rebasing: rest[written...])
    }
    return nil
  }

  static func error(_ text: String) {
    var bytes = Array((text.hasSuffix("\n") ? text : text + "\n").utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
      if written < 0, errno == EINTR { continue }
      guard written > 0 else { return }  // stderr itself failed: nobody is left to tell
      bytes = bytes.dropFirst(written)
    }
  }
}

/// Standard output as a command's `OutputSink`: each piece is written as it comes; the first
/// failure is reported once, kept for the exit status, and refuses every later piece (so a
/// `list` into a closed pipe stops reading the store).
final class StdoutSink: OutputSink {
  private let failed = Locked<StdoutFailure?>(nil)

  func write(_ text: String) -> Bool {
    failed.withLock { failure in
      guard failure == nil else { return false }
      failure = Output.write(text)
      return failure == nil
    }
  }

  func write(utf8 bytes: [UInt8]) -> Bool {
    failed.withLock { failure in
      guard failure == nil else { return false }
      failure = bytes.withUnsafeBytes(Output.write(bytes:))
      return failure == nil
    }
  }

  /// Why stdout stopped taking output, or nil.
  var failure: StdoutFailure? { failed.withLock { $0 } }
}

/// Why standard output stopped taking appt's results.
enum StdoutFailure: Error, Equatable {
  /// The reader went away (EPIPE: `appt list | head -1`): it asked for no more, so appt stops
  /// quietly, and the exit status is what it would have been.
  case readerGone
  /// Any other error (a full disk, `/dev/full`, an I/O error): what was asked for was not
  /// delivered, so the command failed (exit 1, not 3: the database is fine; only the output
  /// was lost).
  case writeError(Int32)

  /// The exit status this failure calls for, at least.
  var status: ExitStatus {
    switch self {
    case .readerGone: .ok
    case .writeError: .failure
    }
  }

  /// `appt: write error on standard output: No space left on device`, on stderr.
  func report() {
    guard case .writeError(let code) = self else { return }
    Output.error("appt: write error on standard output: \(String(cString: strerror(code)))")
  }
}
