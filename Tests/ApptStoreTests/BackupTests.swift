import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// `backup FILE` writes only a new regular file that appt creates, on every engine: whatever
/// is already at FILE (a FIFO, a link, a directory, a file, even an empty one) is refused with
/// a message and left exactly as it was, and nothing else is left in its directory.
@Suite("Backup destinations")
struct BackupTests {
  /// What can be in the way, made in a temporary directory.
  enum Obstacle: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case fifo, symlink, danglingSymlink, directory, emptyFile, file

    var testDescription: String { rawValue }

    /// What the refusal names.
    var kind: String {
      switch self {
      case .fifo: "a FIFO"
      case .symlink, .danglingSymlink: "a symbolic link"
      case .directory: "a directory"
      case .emptyFile, .file: "a file"
      }
    }

    /// Makes the obstacle at `url` (and a "dotfile" a link points to).
    func make(at url: URL) throws {
      let target = url.deletingLastPathComponent().appendingPathComponent("dotfile").path
      switch self {
      case .fifo: try check(mkfifo(url.path, 0o600), "mkfifo")
      case .symlink:
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: target))
        try check(Glibc.symlink(target, url.path), "symlink")
      case .danglingSymlink: try check(Glibc.symlink(target, url.path), "symlink")
      case .directory: try check(mkdir(url.path, 0o700), "mkdir")
      case .emptyFile: try Data().write(to: url)
      case .file: try Data("not a database\n".utf8).write(to: url)
      }
    }

    private func check(_ result: Int32, _ what: String) throws {
      guard result == 0 else { throw RawSQLiteError(code: errno, message: what) }
    }
  }

  /// Every entry of `directory`: name, type, size, mtime, inode, a link's target, a file's bytes.
  static func state(of directory: URL) throws -> [String] {
    try listing(directory).map { name in
      let path = directory.appendingPathComponent(name).path
      var info = stat()
      guard lstat(path, &info) == 0 else { return "\(name): gone" }
      var entry =
        "\(name) \(info.st_mode) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_ino)"
      if (info.st_mode & S_IFMT) == S_IFLNK {
        entry += " -> " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
      } else if (info.st_mode & S_IFMT) == S_IFREG {
        entry += " " + (try fileBytes(URL(fileURLWithPath: path))).base64EncodedString()
      }
      return entry
    }
  }

  @Test("a backup is a new 0600 file with every row, and nothing else is left beside it", arguments: StoreKind.allCases)
  func newFile(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      try await dao.saveAppointment(appointment("Dentist", from: december(1, 10), to: december(1, 11)))
      let stored = try await dao.getAllAppointments()
      let directory = TemporaryDirectory()
      let copy = directory.file("copy.sqlite3")
      try await dao.database.backup(to: copy)
      #expect(try listing(directory.url) == ["copy.sqlite3"])
      #expect(permissions(copy.path) == 0o600)
      let fromCopy = fileDAO(at: copy)
      #expect(try await fromCopy.getAllAppointments() == stored)
      await fromCopy.database.close()
    }
  }

  @Test(
    "an existing path of any kind is refused with a message and left as it was",
    arguments: StoreKind.allCases,
    Obstacle.allCases
  )
  func existingPath(kind: StoreKind, obstacle: Obstacle) async throws {
    try await withStore(kind) { dao in
      try await dao.saveAppointment(appointment("Dentist", from: december(1, 10), to: december(1, 11)))
      let directory = TemporaryDirectory()
      let path = directory.file("backup.sqlite3")
      try obstacle.make(at: path)
      // A reader on the FIFO, so a backup that wrongly opens it fails this test instead of
      // hanging it (the old code blocked in open, then unlinked the FIFO).
      let reader = obstacle == .fifo ? open(path.path, O_RDONLY | O_NONBLOCK) : -1
      defer { if reader >= 0 { close(reader) } }
      let before = try Self.state(of: directory.url)

      let error = await thrownError { try await dao.database.backup(to: path) }
      #expect(
        (error as? StoreError)?.description
          == "cannot open \(path.path): it exists (\(obstacle.kind)); refusing to overwrite"
      )
      #expect(try Self.state(of: directory.url) == before)
    }
  }

  @Test("on a file system without hard links the copy goes into a new file appt creates, never over one")
  func withoutHardLinks() throws {
    let directory = TemporaryDirectory()
    let noLinks: (String, String) -> Int32 = { _, _ in
      errno = EPERM
      return -1
    }
    let path = directory.file("copy.sqlite3")
    let file = try BackupFile(path)
    let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
    try bytes.write(to: URL(fileURLWithPath: file.stagingFile))
    try file.publish(link: noLinks)
    #expect(try fileBytes(path) == bytes)
    #expect(permissions(path.path) == 0o600)
    #expect(try listing(directory.url) == ["copy.sqlite3"])

    // Something appearing at the path meanwhile is not overwritten.
    let late = directory.file("late.sqlite3")
    let second = try BackupFile(late)
    try Data("theirs\n".utf8).write(to: late)
    #expect(throws: StoreError.cannotOpen(path: late.path, reason: "it exists; refusing to overwrite")) {
      try second.publish(link: noLinks)
    }
    #expect(try fileBytes(late) == Data("theirs\n".utf8))
    #expect(try listing(directory.url) == ["copy.sqlite3", "late.sqlite3"])
  }
}
