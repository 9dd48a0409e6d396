import ApptCore
import ApptRuntime
import Foundation

/// Commands from stdin, one per line, in the same grammar as the command line.
///
/// A bad line prints `line N: message` on stderr, changes nothing, and the script goes on
/// (`--bail` stops at the first error). A line longer than `LineReader.maximumLineLength`
/// (1 MiB) is such a bad line, skipped without being read into memory; a UTF-8 byte order
/// mark before the first line is skipped. The exit status is the worst line's. Each result is
/// written as soon as its command has committed, so a program driving appt through a pipe
/// sees it at once; when it cannot be written, the script stops there.
struct ScriptMode {
  let executor: CommandExecutor
  let bail: Bool

  func run() async -> ExitStatus {
    var worst = ExitStatus.ok
    var number = 0
    var reader = LineReader { buffer in
      while true {
        let count = read(0, buffer.baseAddress, buffer.count)
        if count < 0, errno == EINTR { continue }
        return count
      }
    }
    let stdout = StdoutSink()
    while let line = reader.next() {
      number += 1
      do throws(CommandExecutor.Failure) {
        guard case .text(let bytes) = line else {
          throw CommandExecutor.Failure(CommandError.invalid("longer than \(reader.limit) bytes; skipped"))
        }
        if let problem = UTF8Check.problem(bytes) { throw CommandExecutor.Failure(CommandError.invalid(problem)) }
        guard let command = try executor.parse(line: String(decoding: bytes, as: UTF8.self)) else { continue }
        // Results that cannot be written stop the script: a driver that cannot read them
        // must not have more commands run blind.
        let notes = try await executor.perform(command, writingTo: stdout)
        if let failure = stdout.failure { return max(worst, failure.status) }
        for note in notes { Output.error("line \(number): \(note)") }
        for notice in executor.notices(for: command) { Output.error("line \(number): note: \(notice)") }
      } catch {
        Output.error("line \(number): \(error.message)")
        worst = max(worst, ExitStatus(error.kind))
        if let failure = stdout.failure ?? Output.write(error.output) { return max(worst, failure.status) }
        // A storage failure is about the file itself: no later line can succeed either.
        if bail || error.kind == .storage { break }
      }
    }
    return worst
  }
}
