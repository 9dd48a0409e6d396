import ApptStore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptRuntime

/// Where `export` writes and what `import` reads, decided without writing anything: every
/// case here only inspects paths (nothing is created in /dev).
@Suite("Export targets and import reads")
struct FileTargetTests {
  let directory = TemporaryDirectory()

  /// The temporary directory as `realpath` spells it (the target names resolved directories).
  var resolved: String { URL(fileURLWithPath: directory.url.path).resolvingSymlinksInPath().path }

  func target(_ path: String) -> Result<CommandExecutor.ExportTarget, CommandExecutor.ExportRefusal> {
    CommandExecutor.exportTarget(path)
  }

  @Test("a missing path, a file, and a link to a file or to nothing are replaced in the path's own directory")
  func replaced() throws {
    let dotfile = directory.file("dotfile").path
    try Data("mine\n".utf8).write(to: URL(fileURLWithPath: dotfile))
    #expect(target(directory.file("new.ics").path) == .success(.replace(directory: resolved, name: "new.ics")))
    #expect(target(dotfile) == .success(.replace(directory: resolved, name: "dotfile")))
    let other = TemporaryDirectory()
    let link = other.file("calendar.ics").path
    #expect(symlink(dotfile, link) == 0)
    let otherResolved = URL(fileURLWithPath: other.url.path).resolvingSymlinksInPath().path
    #expect(
      target(link) == .success(.replace(directory: otherResolved, name: "calendar.ics")),
      "the link, not its target"
    )
    let dangling = directory.file("dangling.ics").path
    #expect(symlink(directory.file("nowhere").path, dangling) == 0)
    #expect(target(dangling) == .success(.replace(directory: resolved, name: "dangling.ics")))
  }

  @Test("a FIFO and a character device are written in place; a link to a device and a directory are refused")
  func inPlaceAndRefused() throws {
    let fifo = directory.file("fifo").path
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(target(fifo) == .success(.inPlace))
    #expect(target("/dev/null") == .success(.inPlace))
    let link = directory.file("null.ics").path
    #expect(symlink("/dev/null", link) == 0)
    #expect(target(link) == .failure(.init("it is a symbolic link to a device; appt does not write through it")))
    #expect(target(directory.url.path) == .failure(.init("Is a directory")))
  }

  @Test("nothing in /dev, /proc or /sys is created or replaced, even through a linked directory")
  func systemDirectories() throws {
    let refusal = CommandExecutor.ExportRefusal("appt does not create or replace files in /dev")
    #expect(target("/dev/appt-test-never-created.ics") == .failure(refusal))
    let devLink = directory.file("devices").path
    #expect(symlink("/dev", devLink) == 0)
    #expect(target(devLink + "/appt-test-never-created.ics") == .failure(refusal))
    #expect(target("/proc/appt-test.ics") == .failure(.init("appt does not create or replace files in /proc")))
  }

  @Test("import reads at most the limit, from a file or a FIFO, and says when there is more")
  func readLimit() throws {
    let limit = 1 << 20
    let exact = directory.file("exact.ics")
    try Data(repeating: 0x41, count: limit).write(to: exact)
    #expect(try CommandExecutor.readFile(exact.path, command: "import", limit: limit).count == limit)

    let over = directory.file("over.ics")
    try Data(repeating: 0x41, count: limit + 1).write(to: over)
    let message =
      "import: \(over.path) is larger than 1 MiB, the most appt reads whole (a pipe, or a file that must be read"
      + " whole); nothing imported"
    #expect(throws: StoreError.invalidRequest(message: message)) {
      try CommandExecutor.readFile(over.path, command: "import", limit: limit)
    }

    let fifo = directory.file("fifo").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let writer = Thread {
      let fd = open(fifo, O_WRONLY)
      guard fd >= 0 else { return }
      // One byte more than the limit, and no more: the reader takes all of it before it
      // stops, so no write meets a closed pipe (SIGPIPE would end the test process).
      var data = [UInt8](repeating: 0x42, count: limit + 1)[...]
      while !data.isEmpty {
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written > 0 else { break }
        data = data.dropFirst(written)
      }
      close(fd)
    }
    writer.start()
    let fromFIFO = StoreError.invalidRequest(
      message: "import: \(fifo) is larger than 1 MiB, the most appt reads whole (a pipe, or a file that must be"
        + " read whole); nothing imported"
    )
    #expect(throws: fromFIFO) { try CommandExecutor.readFile(fifo, command: "import", limit: limit) }
  }
  @Test("a FIFO is opened once and read whole: a writer that is done before the read is not waited for again")
  func fifoOpenedOnce() throws {
    let fifo = directory.file("once").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let text = "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"
    let writer = Thread {
      let fd = open(fifo, O_WRONLY)
      guard fd >= 0 else { return }
      _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      close(fd)
    }
    writer.start()
    let errors = CommandExecutor.readErrors(fifo, command: "import", limit: 1 << 20)
    guard case .whole(let bytes) = try FileChunks.open(path: fifo, limit: 1 << 20, errors: errors) else {
      Issue.record("a FIFO is not read a piece at a time")
      return
    }
    #expect(String(decoding: bytes, as: UTF8.self) == text)
  }
}
