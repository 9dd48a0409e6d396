import Foundation

/// Unbuffered writes to stdout and stderr: in script mode each command's result must reach a
/// pipe the moment that command has committed, not when a buffer fills.
enum Output {
  static func write(_ text: String) { writeAll(text, to: 1) }
  static func error(_ text: String) { writeAll(text.hasSuffix("\n") ? text : text + "\n", to: 2) }

  private static func writeAll(_ text: String, to fd: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if written < 0 {
        if errno == EINTR { continue }
        // The reader went away (`appt list | head -1`): nobody is left to tell; stop quietly.
        if errno == EPIPE { exit(0) }
        return
      }
      bytes = bytes.dropFirst(written)
    }
  }
}
