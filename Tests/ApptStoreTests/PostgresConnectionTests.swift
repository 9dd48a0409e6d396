// PostgresConnection: the pure parts (placeholders, display names, integer parsing) always;
// the libpq round trips only against the throwaway server APPT_TEST_PG names, with one fresh
// database per test.

import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

@Suite("PostgresConnection without a server")
struct PostgresConnectionTests {
  @Test(
    "? becomes $n outside literals, identifiers, comments and dollar quotes",
    arguments: [
      ("SELECT ?", "SELECT $1", 1),
      ("INSERT INTO t VALUES (?, ?,?)", "INSERT INTO t VALUES ($1, $2,$3)", 3),
      ("SELECT 'a?''?b', ?", "SELECT 'a?''?b', $1", 1),
      ("SELECT '' || ?", "SELECT '' || $1", 1),
      (#"SELECT E'it\'s ?', e'\\', ?"#, #"SELECT E'it\'s ?', e'\\', $1"#, 1),
      (#"SELECT 'no\', ?"#, #"SELECT 'no\', $1"#, 1),
      (#"SELECT "we?ird""?" FROM t WHERE x = ?"#, #"SELECT "we?ird""?" FROM t WHERE x = $1"#, 1),
      ("SELECT ? -- what?\n, ?", "SELECT $1 -- what?\n, $2", 2),
      ("SELECT ? -- what?", "SELECT $1 -- what?", 1),
      ("SELECT /* a ? /* nested ? */ still ? */ ?", "SELECT /* a ? /* nested ? */ still ? */ $1", 1),
      ("SELECT 4/2, ?", "SELECT 4/2, $1", 1),
      ("SELECT 4-?", "SELECT 4-$1", 1),
      ("SELECT $$ ? $$, $tag$ ? $$ ? $tag$, ?", "SELECT $$ ? $$, $tag$ ? $$ ? $tag$, $1", 1),
      ("SELECT $1, ?", "SELECT $1, $1", 1),
      ("SELECT x$y$ + ?, $_é$?$_é$", "SELECT x$y$ + $1, $_é$?$_é$", 1),
      ("SELECT 'équipe ?', ? -- ü?", "SELECT 'équipe ?', $1 -- ü?", 1),
      ("SELECT '?", "SELECT '?", 0),
      ("SELECT $q$ ?", "SELECT $q$ ?", 0),
      ("", "", 0),
    ]
  )
  func placeholders(sql: String, expected: String, count: Int) {
    let rewritten = PostgresConnection.numberingPlaceholders(in: sql)
    #expect(rewritten.sql == expected)
    #expect(rewritten.count == count)
  }

  @Test("many placeholders are numbered past one digit")
  func manyPlaceholders() {
    let sql = "VALUES (" + Array(repeating: "?", count: 150).joined(separator: ", ") + ")"
    let rewritten = PostgresConnection.numberingPlaceholders(in: sql)
    #expect(rewritten.count == 150)
    #expect(rewritten.sql == "VALUES (" + (1...150).map { "$\($0)" }.joined(separator: ", ") + ")")
  }

  @Test(
    "the display name is user@host:port/dbname, never with the password",
    arguments: [
      ("postgresql://appt:s3cret@db.example.com:5433/appt", "appt@db.example.com:5433/appt"),
      ("postgres://appt:p%40s3cret%2F@localhost/appt?sslmode=disable", "appt@localhost/appt"),
      ("postgresql://:s3cret@localhost", "localhost"),
      ("host=db.example.com port=5433 user=appt password=s3cret dbname=appt", "appt@db.example.com:5433/appt"),
      ("host=db.example.com password='s3cret s3cret'", "db.example.com"),
      ("postgresql://appt@h1:1,h2:2/appt", "appt@h1:1,h2:2/appt"),
      ("postgresql://h1,h2:5432/appt", "h1,h2:5432/appt"),  // h1 on the default port
      ("host=h1,h2 port=5432 dbname=appt", "h1:5432,h2:5432/appt"),  // one port serves all
      ("postgresql:///appt?host=%2Fvar%2Frun%2Fpostgresql", "/var/run/postgresql/appt"),
      ("host=/tmp port=5433", "/tmp:5433"),
      ("postgresql://u:pa@s3cret@host/db", "u@host/db"),
      ("postgresql://appt:s3cret@localhost/appt?password=s3cret", "appt@localhost/appt"),
      ("dbname=postgresql://u:s3cret@h/db", "PostgreSQL"),
      ("postgresql://", "PostgreSQL"),
      ("", "PostgreSQL"),
      ("postgresql://u:s3cret@[::1/db", "PostgreSQL"),
      ("host=x password=s3cret s3cret", "PostgreSQL"),
      ("postgresql://u:s3cret@host/db?nonsense=s3cret", "PostgreSQL"),
    ]
  )
  func displayName(url: String, expected: String) {
    let name = PostgresConnection.displayName(of: url)
    #expect(name == expected)
    #expect(!name.contains("s3cret"))
  }

  @Test("a URL libpq cannot parse is refused without quoting its password")
  func unparsableURL() {
    for url in [
      "postgresql://u:s3cret@[::1/db",
      "host=x password=s3cret s3cret",
      "postgresql://u:s3cret@host/db?nonsense=s3cret",
      "postgresql://u:%zzs3cret@host/db",
      // Quotes in a password once escaped a filter of libpq's quoted text (review).
      "postgresql://u:pw\"s3cret\"x%zz@localhost/db",
      "postgresql://u:a\"s3cret%zz@localhost/db",
    ] {
      #expect {
        _ = try PostgresConnection(url: url)
      } throws: { error in
        guard case .cannotConnect(let server, let reason) = error as? StoreError else { return false }
        return server == "PostgreSQL" && !reason.isEmpty && !"\(error)".contains("s3cret")
      }
    }
  }

  @Test("integers are read from PostgreSQL's text as SQLite would read them")
  func parseInt64() {
    let cases: [(String, Int64)] = [
      ("0", 0), ("42", 42), ("-42", -42), ("+7", 7),
      ("9223372036854775807", .max), ("-9223372036854775808", .min),
      ("9223372036854775808", .max), ("-9223372036854775809", .min), ("123456789012345678901234", .max),
      ("12.75", 12), ("-0.5", 0), ("t", 1), ("f", 0), ("", 0), ("abc", 0),
    ]
    for (text, expected) in cases {
      let value = Array(text.utf8).withUnsafeBufferPointer { PostgresRow.parseInt64($0) }
      #expect(value == expected, "\(text)")
    }
  }

  @Test("bindings are sent as text; a NUL character is refused, not cut short")
  func parameterTexts() throws {
    let texts = try PostgresConnection.parameterTexts([
      .null, .integer(.min), .real(0.1), .real(-.infinity), .real(.nan), .text("é"),
    ])
    #expect(texts == [nil, "-9223372036854775808", "0.1", "-Infinity", "NaN", "é"])
    #expect {
      _ = try PostgresConnection.parameterTexts([.text("before\u{0}after")])
    } throws: { error in
      guard case .constraint(let message) = error as? StoreError else { return false }
      return message.contains("NUL")
    }
  }

  @Test("libpq's multi-line messages become one line")
  func oneLineMessages() {
    let text =
      "connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n"
      + "\tIs the server running on that host and accepting TCP/IP connections?\n"
    #expect(
      PostgresConnection.message(text)
        == "connection to server at \"127.0.0.1\", port 1 failed: Connection refused"
        + " Is the server running on that host and accepting TCP/IP connections?"
    )
    #expect(PostgresConnection.message(nil) == "unknown error")
  }
}

// MARK: - Against a server

/// The throwaway server's URL; its role may CREATE DATABASE.
private let serverURL = ProcessInfo.processInfo.environment["APPT_TEST_PG"] ?? ""

@Suite(
  "PostgresConnection against a server (APPT_TEST_PG)",
  .enabled(if: ProcessInfo.processInfo.environment["APPT_TEST_PG"] != nil),
  .hangBackstop
)
struct PostgresConnectionLiveTests {
  /// Runs `body` with a connector to a fresh database, dropped afterwards (with whatever
  /// connections are still on it).
  func withScratchDatabase(_ body: (_ connect: () throws -> PostgresConnection) throws -> Void) throws {
    let admin = try PostgresConnection(url: serverURL)
    let name = "appt_test_\(UInt64.random(in: 0...UInt64.max))"
    try admin.execute("CREATE DATABASE \(name)")
    defer { try? admin.execute("DROP DATABASE \(name) WITH (FORCE)") }
    try body { try PostgresConnection(url: serverURL, overriding: [("dbname", name)]) }
  }

  /// The error `body` throws, or nil.
  func storeError(_ body: () throws -> Void) -> StoreError? {
    do {
      try body()
      return nil
    } catch {
      return error as? StoreError
    }
  }

  func values(_ connection: PostgresConnection, _ sql: String, _ bindings: [SQLValue] = []) throws -> [[SQLValue]] {
    var rows: [[SQLValue]] = []
    try connection.query(sql, bindings) { row throws(StoreError) in
      rows.append((0..<5).map { row.value(at: Int32($0)) })
    }
    return rows
  }

  @Test("every kind of value survives an upsert with ? placeholders")
  func roundTrip() throws {
    try withScratchDatabase { connect in
      let db = try connect()
      try db.execute(
        "CREATE TABLE t (id bigint PRIMARY KEY, i bigint, r double precision, s text, n text)"
      )
      let upsert = """
        INSERT INTO t (id, i, r, s, n) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET i = excluded.i, r = excluded.r, s = excluded.s, n = excluded.n
        """
      let rows: [[SQLValue]] = [
        [.integer(1), .integer(.max), .real(0.1), .text("plain"), .null],
        [.integer(2), .integer(.min), .real(-1e300), .text(#"it's a "quote" ? $1 -- no comment"#), .text("")],
        [.integer(3), .integer(0), .real(.infinity), .text("équipe 🗓 ÉQUIPE\n\ttab"), .null],
        [
          .integer(4), .integer(-1), .real(.leastNonzeroMagnitude), .text(String(repeating: "long ", count: 10_000)),
          .null,
        ],
      ]
      // Inserted with placeholders swapped, then set right by the upsert.
      for row in rows { try db.run(upsert, [row[0], .integer(7), .real(7), .text("old"), .text("old")]) }
      for row in rows { #expect(try db.run(upsert, row) == 1) }
      #expect(try values(db, "SELECT id, i, r, s, n FROM t ORDER BY id") == rows)

      // The typed readers on the same values, and the types PostgreSQL may answer with.
      try db.query("SELECT i, s, n FROM t WHERE id = ?", [.integer(2)]) { row throws(StoreError) in
        #expect(row.int64(at: 0) == .min)
        #expect(row.string(at: 1) == #"it's a "quote" ? $1 -- no comment"#)
        #expect(!row.isNull(at: 2) && row.string(at: 2) == "")
      }
      #expect(
        try values(db, "SELECT TRUE, FALSE, 2.5::numeric, 7::int2 + 8::int4, 1.25::float4")
          == [[.integer(1), .integer(0), .real(2.5), .integer(15), .real(1.25)]]
      )
      #expect(
        try values(
          db,
          "SELECT 'x'::varchar, '2026-12-01'::date, ?::bigint, ?::float8, ?",
          [.integer(3), .real(.nan), .null]
        )
        .first.map { Array($0.prefix(3)) } == [.text("x"), .text("2026-12-01"), .integer(3)]
      )
      var nan: SQLValue?
      try db.query("SELECT ?::float8", [.real(.nan)]) { row throws(StoreError) in nan = row.value(at: 0) }
      if case .real(let value) = nan {
        #expect(value.isNaN)
      } else {
        Issue.record("NaN came back as \(String(describing: nan))")
      }
    }
  }

  @Test("run reports the rows it changed, and a statement is prepared once and reused")
  func rowsChanged() throws {
    try withScratchDatabase { connect in
      let db = try connect()
      #expect(try db.run("CREATE TABLE t (id bigint PRIMARY KEY, v bigint)") == 0)
      for id in 1...3 { #expect(try db.run("INSERT INTO t VALUES (?, 0)", [.integer(Int64(id))]) == 1) }
      #expect(try db.run("UPDATE t SET v = v + 1 WHERE id > ?", [.integer(1)]) == 2)
      #expect(try db.run("UPDATE t SET v = v + 1 WHERE id > ?", [.integer(5)]) == 0)
      #expect(try db.run("DELETE FROM t") == 3)
      // CREATE, INSERT, UPDATE, DELETE and this SELECT: one each, however often run.
      #expect(try db.scalar("SELECT count(*) FROM pg_prepared_statements") == .integer(5))
      // A wrong number of values is the caller's mistake, not a lost connection.
      let error = storeError { try db.run("INSERT INTO t VALUES (?, 0)", []) }
      guard case .postgres(let state, _) = error else {
        Issue.record("expected .postgres, got \(String(describing: error))")
        return
      }
      #expect(state == "07001")
      #expect(!db.isBroken)
    }
  }

  @Test("NULL is bound and read back as NULL")
  func nulls() throws {
    try withScratchDatabase { connect in
      let db = try connect()
      try db.execute("CREATE TABLE t (id bigint, note text)")
      try db.run("INSERT INTO t VALUES (?, ?)", [.integer(1), .null])
      #expect(try db.scalar("SELECT count(*) FROM t WHERE note IS NULL") == .integer(1))
      try db.query("SELECT note, NULL::bigint FROM t") { row throws(StoreError) in
        #expect(row.isNull(at: 0) && row.isNull(at: 1))
        #expect(row.value(at: 0) == .null && row.value(at: 1) == .null)
        #expect(row.string(at: 0) == "" && row.int64(at: 1) == 0)
      }
      #expect(try db.scalar("SELECT ?::text IS NULL", [.null]) == .integer(1))
    }
  }

  @Test("a refused value is .constraint; an unknown table is .postgres with its SQLSTATE")
  func errors() throws {
    try withScratchDatabase { connect in
      let db = try connect()
      try db.execute("CREATE TABLE t (v bigint NOT NULL CHECK (v > 0), s text)")
      let check = storeError { try db.run("INSERT INTO t (v) VALUES (?)", [.integer(-1)]) }
      guard case .constraint(let message) = check else {
        Issue.record("expected .constraint, got \(String(describing: check))")
        return
      }
      #expect(message.contains("t_v_check"))
      let notNull = storeError { try db.run("INSERT INTO t (v) VALUES (?)", [.null]) }
      #expect(notNull.map { if case .constraint = $0 { true } else { false } } == true)
      let nul = storeError { try db.run("INSERT INTO t VALUES (1, ?)", [.text("a\u{0}b")]) }
      #expect(nul.map { if case .constraint = $0 { true } else { false } } == true)
      #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
      try db.execute("BEGIN READ ONLY")
      #expect(storeError { try db.run("INSERT INTO t VALUES (1, 'x')") } == .readOnly(path: db.path))
      try db.execute("ROLLBACK")

      let unknown = storeError { try db.query("SELECT * FROM nowhere") { _ throws(StoreError) in } }
      guard case .postgres(let state, let text) = unknown else {
        Issue.record("expected .postgres, got \(String(describing: unknown))")
        return
      }
      #expect(state == "42P01")
      #expect(text == #"relation "nowhere" does not exist"#)
      #expect(
        storeError { try db.execute("SELEC 1") }
          == .postgres(sqlState: "42601", message: #"syntax error at or near "SELEC""#)
      )
    }
  }

  @Test("isInTransaction follows BEGIN, a failure inside, and COMMIT or ROLLBACK")
  func transactions() throws {
    try withScratchDatabase { connect in
      let db = try connect()
      try db.execute("CREATE TABLE t (v bigint CHECK (v > 0))")
      #expect(!db.isInTransaction)
      try db.execute("BEGIN")
      #expect(db.isInTransaction)
      try db.run("INSERT INTO t VALUES (?)", [.integer(1)])
      #expect(db.isInTransaction)
      try db.execute("COMMIT")
      #expect(!db.isInTransaction)

      // A statement first prepared in a transaction that fails survives the ROLLBACK.
      try db.execute("BEGIN")
      #expect(try db.scalar("SELECT count(*) FROM t WHERE v = ?", [.integer(1)]) == .integer(1))
      #expect(storeError { try db.run("INSERT INTO t VALUES (?)", [.integer(-1)]) } != nil)
      #expect(db.isInTransaction)  // failed, waiting for ROLLBACK
      try db.execute("ROLLBACK")
      #expect(!db.isInTransaction)
      #expect(try db.scalar("SELECT count(*) FROM t WHERE v = ?", [.integer(1)]) == .integer(1))
      // COMMIT outside a transaction only warns, and the warning is not printed.
      try db.execute("COMMIT")
    }
  }

  @Test("a NOTIFY from another connection arrives with the sender's pid")
  func notifications() throws {
    try withScratchDatabase { connect in
      let listener = try connect()
      let sender = try connect()
      try listener.execute("LISTEN appt_changes")
      #expect(try listener.takeNotifications() == [])
      try sender.execute("NOTIFY appt_changes, 'appointment'")
      try sender.run("SELECT pg_notify(?, ?)", [.text("appt_changes"), .text("é")])
      try sender.execute("NOTIFY elsewhere")

      var received: [PostgresNotification] = []
      let deadline = ContinuousClock.now + HangGuard.limit
      while received.count < 2 && ContinuousClock.now < deadline {
        received += try listener.takeNotifications()
        if received.count < 2 { Thread.sleep(forTimeInterval: 0.01) }
      }
      #expect(
        received == [
          PostgresNotification(channel: "appt_changes", payload: "appointment", pid: sender.backendPID),
          PostgresNotification(channel: "appt_changes", payload: "é", pid: sender.backendPID),
        ]
      )
      #expect(sender.backendPID != listener.backendPID)
    }
  }

  @Test("a wrong password is .cannotConnect naming the host, never the password")
  func wrongPassword() throws {
    let options = try #require(PostgresConnection.connectionOptions(of: serverURL))
    let host = try #require(options["host"] ?? options["hostaddr"])
    let error = storeError {
      _ = try PostgresConnection(url: serverURL, overriding: [("password", "wr0ng-s3cret")])
    }
    guard case .cannotConnect(let server, let reason) = error, let error else {
      Issue.record("expected .cannotConnect, got \(String(describing: error))")
      return
    }
    #expect(server == PostgresConnection.displayName(of: serverURL))
    #expect(reason.contains("password authentication failed"))
    #expect(!reason.contains("\n"))
    #expect(error.description.contains(host))
    #expect(!error.description.contains("wr0ng-s3cret"))
    if let real = options["password"] { #expect(!error.description.contains(real)) }
  }

  @Test("a closed port is .cannotConnect at once")
  func closedPort() throws {
    // A bound socket that does not listen: the kernel refuses connections to its port, and
    // no other process can take it meanwhile.
    let socket = try #require(ClosedPort())
    let error = storeError {
      _ = try PostgresConnection(url: serverURL, overriding: [("host", "127.0.0.1"), ("port", "\(socket.port)")])
    }
    guard case .cannotConnect(let server, let reason) = error else {
      Issue.record("expected .cannotConnect, got \(String(describing: error))")
      return
    }
    #expect(server.contains("127.0.0.1:\(socket.port)"))
    #expect(reason.contains("Connection refused"))
  }

  @Test("a terminated backend makes the next call throw .connectionLost")
  func terminatedBackend() throws {
    try withScratchDatabase { connect in
      let victim = try connect()
      let other = try connect()
      #expect(try victim.scalar("SELECT 1") == .integer(1))
      #expect(!victim.isBroken)
      // The timeout makes pg_terminate_backend wait until the process is gone.
      #expect(
        try other.scalar("SELECT pg_terminate_backend(?, 5000)", [.integer(Int64(victim.backendPID))]) == .integer(1)
      )

      let error = storeError { _ = try victim.scalar("SELECT 1") }
      guard case .connectionLost(let server, _) = error else {
        Issue.record("expected .connectionLost, got \(String(describing: error))")
        return
      }
      #expect(server == victim.path)
      #expect(victim.isBroken)
      // Broken for good: every later call says so too.
      #expect(
        storeError { try victim.execute("SELECT 1") }.map { if case .connectionLost = $0 { true } else { false } }
          == true
      )
      #expect(
        storeError { _ = try victim.takeNotifications() }.map { if case .connectionLost = $0 { true } else { false } }
          == true
      )
      #expect(try other.scalar("SELECT 1") == .integer(1))
    }
  }
}

extension PostgresConnectionLiveTests {
  @Test("a listener whose backend is terminated learns it from takeNotifications")
  func terminatedListener() throws {
    try withScratchDatabase { connect in
      let listener = try connect()
      let other = try connect()
      try listener.execute("LISTEN appt_changes")
      try other.execute("NOTIFY appt_changes")
      // The listener's next command ends with the server sending the NOTIFY (before its
      // ReadyForQuery), so libpq holds it when the backend goes: the test does not depend on
      // whether the server forwarded it before being terminated, which it may not.
      #expect(try listener.scalar("SELECT 1") == .integer(1))
      #expect(
        try other.scalar("SELECT pg_terminate_backend(?, 5000)", [.integer(Int64(listener.backendPID))]) == .integer(1)
      )
      // What was sent before the end is still handed over; then the loss is reported.
      var received: [PostgresNotification] = []
      var lost: StoreError?
      let deadline = ContinuousClock.now + HangGuard.limit
      while lost == nil && ContinuousClock.now < deadline {
        do {
          received += try listener.takeNotifications()
        } catch {
          lost = error as? StoreError
        }
        Thread.sleep(forTimeInterval: 0.01)
      }
      #expect(received.map(\.channel) == ["appt_changes"])
      #expect(lost.map { if case .connectionLost = $0 { true } else { false } } == true)
      #expect(listener.isBroken)
    }
  }
}

/// A TCP port on 127.0.0.1 that refuses connections while this value lives.
private final class ClosedPort {
  let descriptor: Int32
  let port: UInt16

  init?() {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
      }
    }
    guard bound else {
      close(descriptor)
      return nil
    }
    self.descriptor = descriptor
    port = UInt16(bigEndian: address.sin_port)
  }

  deinit { close(descriptor) }
}
