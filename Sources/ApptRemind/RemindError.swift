import Foundation

/// What stops the reminder daemon from running, said so the user can act on it.
public enum RemindError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Another daemon holds the lock (exit 1).
  case alreadyRunning(pid: Int32?)
  /// The lock file cannot be created or locked.
  case lock(path: String, reason: String)
  /// A system call the daemon needs failed.
  case system(String, Int32)

  public var description: String {
    switch self {
    case .alreadyRunning(let pid):
      "a reminder daemon already runs" + (pid.map { " (pid \($0))" } ?? "")
    case .lock(let path, let reason):
      "cannot lock \(path): \(reason)"
    case .system(let call, let code):
      "\(call) failed: \(String(cString: strerror(code)))"
    }
  }
}
