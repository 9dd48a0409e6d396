import CLinuxEvents
import Foundation

/// One reminder daemon per user: an exclusive `flock` on `remind.lock`, held for the life of
/// the process (the kernel drops it when the process ends, however it ends, so a crash leaves
/// no stale lock). The file holds the holder's pid, for the second daemon's message.
public final class DaemonLock {
  public let path: String
  private let descriptor: Int32

  /// `$XDG_RUNTIME_DIR/appt/remind.lock` (a per-user tmpfs under systemd), else
  /// `$XDG_STATE_HOME/appt/remind.lock`, else `~/.local/state/appt/remind.lock` (absolute
  /// XDG values only, as the XDG rule says).
  public static func defaultPath(environment: [String: String]) -> String {
    if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
      return runtime + "/appt/remind.lock"
    }
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return state + "/appt/remind.lock"
    }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    return home + "/.local/state/appt/remind.lock"
  }

  /// Takes the lock at `path` (creating its directory 0700 and the file 0600), or throws
  /// `alreadyRunning` with the holder's pid without waiting.
  public init(path: String) throws(RemindError) {
    self.path = path
    let directory = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(
        atPath: directory,
        withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700]
      )
    } catch {
      throw .lock(path: path, reason: "cannot create \(directory): \(error.localizedDescription)")
    }
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw .lock(path: path, reason: String(cString: strerror(errno))) }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      defer { close(fd) }
      if code == EWOULDBLOCK { throw .alreadyRunning(pid: Self.readPID(fd)) }
      throw .lock(path: path, reason: String(cString: strerror(code)))
    }
    descriptor = fd
    let text = Array("\(getpid())\n".utf8)
    _ = ftruncate(fd, 0)
    _ = pwrite(fd, text, text.count, 0)
  }

  deinit { close(descriptor) }

  private static func readPID(_ fd: Int32) -> Int32? {
    var buffer = [UInt8](repeating: 0, count: 32)
    let count = pread(fd, &buffer, buffer.count, 0)
    guard count > 0 else { return nil }
    return Int32(String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
  }
}
