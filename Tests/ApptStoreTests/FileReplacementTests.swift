import ApptCore
import ApptTestSupport
import CSQLite
import Foundation
import Testing

@testable import ApptStore

/// The file under an open store goes away or is replaced (faults.sh found both losing data):
/// appt stops writing, says so, and never checkpoints into a stranger's file.
@Suite struct FileReplacementTests {
  let directory = TemporaryDirectory()

  @Test func writesToADeletedFileAreRefused() async throws {
    let dao = TestStore.fileDAO(in: directory)
    try await dao.saveAppointment(TestStore.appointment("Before", TestClock.date(2026, 12, 1, 9)))
    let path = directory.file("appt.sqlite3").path
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    await #expect(throws: StoreError.replaced(path: path)) {
      try await dao.saveAppointment(TestStore.appointment("Lost", TestClock.date(2026, 12, 1, 10)))
    }
    await #expect(throws: StoreError.replaced(path: path), "and every later call") {
      try await dao.getAllAppointments()
    }
    await dao.database.close()
  }

  @Test func aFileRenamedOverOursIsLeftAlone() async throws {
    let dao = TestStore.fileDAO(in: directory)
    try await dao.saveAppointment(TestStore.appointment("Before", TestClock.date(2026, 12, 1, 9)))
    let path = directory.file("appt.sqlite3").path
    let stranger = directory.file("stranger.txt").path
    try Data("not a database".utf8).write(to: URL(fileURLWithPath: stranger))
    #expect(rename(stranger, path) == 0)
    await #expect(throws: StoreError.replaced(path: path)) {
      try await dao.saveAppointment(TestStore.appointment("Lost", TestClock.date(2026, 12, 1, 10)))
    }
    await dao.database.close()
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("not a database".utf8), "untouched on close")
  }

  @Test func observersHearOfAReplacementOnTheirNextPoll() async throws {
    let dao = TestStore.fileDAO(in: directory)
    let path = directory.file("appt.sqlite3").path
    var snapshots = await dao.observeAppointments(AppointmentQuery(range: nil)).makeAsyncIterator()
    _ = await snapshots.next()
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.write(contentsOf: Data("overwritten in place".utf8))
    try handle.close()
    let last = await snapshots.next()
    #expect(last?.failure == .replaced(path: path))
    #expect(await snapshots.next() == nil, "the failure is the stream's last event")
    await dao.database.close()
  }

  @Test func failedWritesMapToDiskFullByTheirOSError() throws {
    let connection = try SQLiteConnection(filename: ":memory:", displayPath: "/x.sqlite3", flags: SQLITE_OPEN_READWRITE)
    let ioWrite = SQLITE_IOERR | (3 << 8)
    #expect(
      connection.error(code: ioWrite, message: "disk I/O error", systemErrno: ENOSPC) == .diskFull(path: "/x.sqlite3")
    )
    #expect(
      connection.error(code: ioWrite, message: "disk I/O error", systemErrno: EFBIG) == .diskFull(path: "/x.sqlite3")
    )
    #expect(connection.error(code: SQLITE_FULL, message: "full") == .diskFull(path: "/x.sqlite3"))
    #expect(
      connection.error(code: ioWrite, message: "disk I/O error", systemErrno: EIO)
        == .sqlite(code: ioWrite, message: "disk I/O error")
    )
  }
}
