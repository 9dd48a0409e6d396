import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// Files appt creates, and files it must refuse without changing a byte.
@Suite("Database files")
struct FileSafetyTests {
  static let sidecars = ["-wal", "-shm", "-journal"]

  /// Makes a real appt file with one appointment and closes it (checkpointing the WAL).
  static func makeApptFile(at url: URL) async throws -> Appointment {
    let dao = fileDAO(at: url)
    var stored = appointment("Dentist", from: december(1, 10), to: december(1, 11))
    stored = try await dao.saveAppointment(stored)
    await dao.database.close()
    return stored
  }

  /// Asserts that opening `url` fails with `expected` and leaves the file and its directory as
  /// they were (no bytes changed, no -wal/-shm/-journal created).
  static func expectRefused(
    _ url: URL,
    with expected: StoreError,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    let directory = url.deletingLastPathComponent()
    let bytes = try fileBytes(url)
    let files = try listing(directory)
    let mode = permissions(url.path)

    let dao = fileDAO(at: url)
    await #expect(throws: expected, sourceLocation: sourceLocation) { try await dao.getAllAppointments() }
    await #expect(throws: expected, sourceLocation: sourceLocation) {
      try await dao.saveAppointment(appointment("x", from: december(1, 9), to: december(1, 10)))
    }
    await #expect(throws: expected, sourceLocation: sourceLocation) { try await dao.database.prepare() }
    var iterator = await dao.observeAppointments(AppointmentQuery(range: nil)).makeAsyncIterator()
    #expect(await iterator.next()?.failure == expected, sourceLocation: sourceLocation)
    #expect(await iterator.next() == nil, sourceLocation: sourceLocation)
    await dao.database.close()

    #expect(try fileBytes(url) == bytes, "the file changed", sourceLocation: sourceLocation)
    #expect(try listing(directory) == files, "files appeared beside it", sourceLocation: sourceLocation)
    #expect(permissions(url.path) == mode, sourceLocation: sourceLocation)
    #expect(expected.isStorageFailure, sourceLocation: sourceLocation)
  }

  // MARK: - New files

  @Test("a new file is 0600 and new directories 0700")
  func newFileModes() async throws {
    let directory = TemporaryDirectory()
    let url = directory.url.appendingPathComponent("data").appendingPathComponent("appt").appendingPathComponent(
      "appt.sqlite3"
    )
    let dao = fileDAO(at: url)
    try await dao.saveAppointment(appointment("a", from: december(1, 9), to: december(1, 10)))
    #expect(permissions(url.path) == 0o600)
    #expect(permissions(url.deletingLastPathComponent().path) == 0o700)
    #expect(permissions(url.deletingLastPathComponent().deletingLastPathComponent().path) == 0o700)
    // SQLite gives the WAL and its index the database file's mode.
    for suffix in ["-wal", "-shm"] {
      if let mode = permissions(url.path + suffix) { #expect(mode == 0o600, "\(suffix)") }
    }
    await dao.database.close()
    let stat = try RawSQLite(path: url.path, readOnly: true)
    #expect(try stat.integer("PRAGMA application_id") == Int64(Schema.applicationID))
    #expect(try stat.integer("PRAGMA user_version") == Int64(Schema.migrations.count))
    #expect(try stat.column("PRAGMA journal_mode") == ["wal"])
  }

  @Test("opening does not loosen an existing file's mode")
  func existingModeKept() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    _ = try await Self.makeApptFile(at: url)
    try setPermissions(url.path, 0o640)
    let dao = fileDAO(at: url)
    try await dao.saveAppointment(appointment("b", from: december(1, 9), to: december(1, 10)))
    await dao.database.close()
    #expect(permissions(url.path) == 0o640)
  }

  @Test("an empty existing file is adopted")
  func emptyFileAdopted() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
    let stored = try await Self.makeApptFile(at: url)
    let dao = fileDAO(at: url)
    #expect(try await dao.getAllAppointments() == [stored])
    await dao.database.close()
  }

  @Test("an SQLite file with no schema and no application id is adopted")
  func emptySQLiteAdopted() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    do {
      let raw = try RawSQLite(path: url.path)
      try raw.execute("CREATE TABLE scratch (x); DROP TABLE scratch;")
    }
    #expect(try fileBytes(url).count > 100)
    let stored = try await Self.makeApptFile(at: url)
    let dao = fileDAO(at: url)
    #expect(try await dao.getAllAppointments() == [stored])
    await dao.database.close()
  }

  // MARK: - Files that are not ours

  @Test("a file of text is refused as not a database, untouched")
  func garbageFile() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    let hello = Data(String(repeating: "hello", count: 4_096 / 5 + 1).utf8.prefix(4_096))
    #expect(hello.count == 4_096)
    try hello.write(to: url)
    try await Self.expectRefused(url, with: .notADatabase(path: url.path))
  }

  @Test("short and truncated files are refused as not a database, untouched", arguments: [1, 15, 16, 99])
  func shortFiles(length: Int) async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    var data = Data("SQLite format 3\u{0}".utf8)
    data.append(Data(repeating: 0, count: 100))
    try data.prefix(length).write(to: url)
    try await Self.expectRefused(url, with: .notADatabase(path: url.path))
  }

  @Test("another program's SQLite database is refused, untouched")
  func foreignDatabase() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    do {
      let raw = try RawSQLite(path: url.path)
      try raw.execute("CREATE TABLE bookmarks (url TEXT); INSERT INTO bookmarks VALUES ('https://swift.org');")
    }
    try await Self.expectRefused(url, with: .foreignDatabase(path: url.path))
  }

  @Test("a WAL-mode foreign database is refused, untouched")
  func foreignWALDatabase() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    do {
      let raw = try RawSQLite(path: url.path)
      try raw.execute("PRAGMA journal_mode = WAL; CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
    }
    try await Self.expectRefused(url, with: .foreignDatabase(path: url.path))
  }

  @Test("a database with another application id is refused, untouched")
  func foreignApplicationID() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    do {
      let raw = try RawSQLite(path: url.path)
      try raw.execute("PRAGMA application_id = 305419896; CREATE TABLE t (x); DROP TABLE t;")
    }
    try await Self.expectRefused(url, with: .foreignDatabase(path: url.path))
  }

  @Test("the header probe's file: URI escapes a path as Foundation's urlPathAllowed minus ?#% does")
  func uriEscaping() {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "?#%")
    let everyASCII = String(decoding: (1...127).map { UInt8($0) }, as: UTF8.self)
    let paths = [
      "/home/me/.local/share/appt/appt.sqlite3", "/tmp/my calendar #1?%20.sqlite3", everyASCII,
      "/home/zoë/Kalender – privat/日程.sqlite3", "/tmp/🗓️ [x] {y} |z| ^w` \\ \"q\" <a>", "",
    ]
    for path in paths {
      #expect(FileOpener.uriEscaped(path) == path.addingPercentEncoding(withAllowedCharacters: allowed), "\(path)")
    }
  }

  @Test("a foreign database at a path with spaces, # and ? is refused, untouched")
  func foreignDatabaseAtOddPath() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("my calendar #1?%20.sqlite3")
    do {
      let raw = try RawSQLite(path: url.path)
      try raw.execute("CREATE TABLE other (x);")
    }
    try await Self.expectRefused(url, with: .foreignDatabase(path: url.path))
    // And appt's own file at such a path works.
    let own = directory.file("own #2?.sqlite3")
    let stored = try await Self.makeApptFile(at: own)
    let dao = fileDAO(at: own)
    #expect(try await dao.getAllAppointments() == [stored])
    await dao.database.close()
  }

  /// Regression: the header check reads the main file only (`immutable=1` ignores the WAL), so
  /// a foreign WAL database whose writer has not checkpointed looks empty there; `Migrator`
  /// re-checks `application_id` and the schema through SQLite before writing anything.
  @Test("a foreign database still in its writer's WAL is refused, untouched")
  func foreignDatabaseInWAL() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    let writer = try RawSQLite(path: url.path)
    try writer.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
    try writer.execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('not appt''s');")

    let dao = fileDAO(at: url)
    let error = await thrownError { try await dao.getAllAppointments() }
    await dao.database.close()
    let tables = try writer.column("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
    let applicationID = try writer.integer("PRAGMA application_id")
    #expect(error as? StoreError == .foreignDatabase(path: url.path))
    #expect(tables == ["notes"])
    #expect(applicationID == 0)
  }

  @Test("a file from a newer schema is refused, untouched")
  func newerSchema() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    _ = try await Self.makeApptFile(at: url)
    do {
      let raw = try RawSQLite(path: url.path)
      try raw.execute("PRAGMA user_version = 99")
    }
    try await Self.expectRefused(url, with: .newerSchema(path: url.path, found: 99, known: Schema.migrations.count))
  }

  @Test("a path that is a directory cannot be opened")
  func directoryPath() async throws {
    let directory = TemporaryDirectory()
    let dao = fileDAO(at: directory.url)
    let error = await thrownError { try await dao.getAllAppointments() }
    guard case .cannotOpen(let path, _)? = error as? StoreError else {
      Issue.record("expected cannotOpen, got \(String(describing: error))")
      return
    }
    #expect(path == directory.url.path)
  }

  @Test("a directory that cannot be created is reported")
  func uncreatableDirectory() async throws {
    let directory = TemporaryDirectory()
    let blocker = directory.file("not-a-directory")
    try Data("x".utf8).write(to: blocker)
    let url = blocker.appendingPathComponent("appt.sqlite3")
    let dao = fileDAO(at: url)
    let error = await thrownError { try await dao.getAllAppointments() }
    guard case .cannotOpen(let path, _)? = error as? StoreError else {
      Issue.record("expected cannotOpen, got \(String(describing: error))")
      return
    }
    #expect(path == url.path)
    #expect(try fileBytes(blocker) == Data("x".utf8))
  }

  // MARK: - Read-only

  @Test("a read-only file (0444) can be read; writes throw readOnly and change nothing")
  func readOnlyFile() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    let stored = try await Self.makeApptFile(at: url)
    try setPermissions(url.path, 0o444)
    let bytes = try fileBytes(url)

    let dao = fileDAO(at: url)
    #expect(try await dao.getAllAppointments() == [stored])
    #expect(try await dao.getAppointment(id: stored.id) == stored)
    #expect(try await dao.resolveID(stored.id.short) == stored.id)
    var iterator = await dao.observeAppointments(AppointmentQuery(range: nil)).makeAsyncIterator()
    #expect(await iterator.next()?.items == [stored])

    let readOnly = StoreError.readOnly(path: url.path)
    await #expect(throws: readOnly) {
      try await dao.saveAppointment(appointment("new", from: december(2, 9), to: december(2, 10)))
    }
    await #expect(throws: readOnly) { try await dao.cancelAppointment(id: stored.id) }
    await #expect(throws: readOnly) { try await dao.deleteAppointment(id: stored.id) }
    #expect(readOnly.isStorageFailure)
    #expect(try await dao.getAllAppointments() == [stored])
    await dao.database.close()
    #expect(try fileBytes(url) == bytes)
    #expect(permissions(url.path) == 0o444)
  }

  @Test("readOnly: true refuses writes on a writable file and does not create a missing one")
  func readOnlyConfiguration() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    let stored = try await Self.makeApptFile(at: url)
    let dao = fileDAO(at: url, readOnly: true)
    #expect(try await dao.getAllAppointments() == [stored])
    await #expect(throws: StoreError.readOnly(path: url.path)) { try await dao.restoreAppointment(id: stored.id) }
    await dao.database.close()

    let missing = directory.file("missing.sqlite3")
    let none = fileDAO(at: missing, readOnly: true)
    await #expect(throws: StoreError.cannotOpen(path: missing.path, reason: "no such file")) {
      try await none.getAllAppointments()
    }
    #expect(FileManager.default.fileExists(atPath: missing.path) == false)
  }

  @Test("a read-only new (empty) file cannot be given a schema")
  func readOnlyEmptyFile() async throws {
    let directory = TemporaryDirectory()
    let url = directory.file("appt.sqlite3")
    #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
    try setPermissions(url.path, 0o444)
    let dao = fileDAO(at: url)
    await #expect(throws: StoreError.readOnly(path: url.path)) { try await dao.getAllAppointments() }
    #expect(try fileBytes(url).isEmpty)
  }
}
