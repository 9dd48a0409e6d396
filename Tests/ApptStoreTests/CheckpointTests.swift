import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// SQLite's write-ahead log is copied back into the file after a commit and its observers,
/// never inside the COMMIT (where it made one commit in a few hundred late to its frame).
@Suite struct CheckpointTests {
  let directory = TemporaryDirectory()

  /// About 1,500 pages of log: past the 1,000 at which a checkpoint is due.
  static let fill = """
    CREATE TABLE IF NOT EXISTS filler (bytes BLOB);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
    INSERT INTO filler SELECT randomblob(3000) FROM n;
    """

  func fileSize(_ url: URL) throws -> Int {
    try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
  }

  @Test func aLongCommitLeavesItsLogForTheCheckpointAfterIt() throws {
    let url = directory.file("plain.sqlite3")
    let connection = try FileOpener(configuration: DatabaseConfiguration(location: .file(url), migrations: [])).open()
    try connection.execute("BEGIN IMMEDIATE; \(Self.fill) COMMIT;")
    let afterCommit = try fileSize(url)
    #expect(afterCommit < 1_000_000, "the COMMIT copied nothing into the file (\(afterCommit) bytes)")
    #expect(try fileSize(URL(fileURLWithPath: url.path + "-wal")) > 4_000_000)
    connection.checkpointIfLong()
    #expect(try fileSize(url) > 4_000_000, "the checkpoint copied the log into the file")
  }

  @Test func aShortLogIsLeftAsItIs() throws {
    let url = directory.file("short.sqlite3")
    let connection = try FileOpener(configuration: DatabaseConfiguration(location: .file(url), migrations: [])).open()
    let opened = try fileSize(url)
    try connection.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
    connection.checkpointIfLong()
    #expect(try fileSize(url) == opened, "a few pages wait in the log, as SQLite's own auto-checkpoint lets them")
    #expect(try fileSize(URL(fileURLWithPath: url.path + "-wal")) > 0)
  }

  @Test func theStoreCheckpointsOnceItsWriteIsCommitted() async throws {
    let dao = TestStore.fileDAO(in: directory)
    try await dao.saveAppointment(TestStore.appointment("Before", TestClock.date(2026, 12, 1, 9)))
    let url = directory.file("appt.sqlite3")
    let before = try fileSize(url)
    try await dao.database.write { connection throws(StoreError) in try connection.execute(Self.fill) }
    #expect(try fileSize(url) > before + 4_000_000, "the write's log is in the file when write returns")
    #expect(try await dao.getAllAppointments().map(\.title) == ["Before"])
    await dao.database.close()
  }
}
