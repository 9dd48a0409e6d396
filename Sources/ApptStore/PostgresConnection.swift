import CLibPQ
import Foundation
import LibPQLoader

/// One PostgreSQL connection: the only owner of a `PGconn*` in appt.
///
/// Deliberately not `Sendable`, like `SQLiteConnection`: its owner keeps it on `DatabaseActor`,
/// and `deinit` closes the handle. (libpq allows one thread at a time on a `PGconn`.)
public final class PostgresConnection: Connection {
  /// The rows the current write transaction noted it changed.
  public let journal: WriteJournal? = WriteJournal()
  private let handle: OpaquePointer
  /// `user@host:port/dbname` for messages; never the password.
  public let path: String
  /// Server-side prepared statements by the SQL appt wrote (with `?`).
  private var statements: [String: PreparedStatement] = [:]
  private var nextStatementNumber = 1
  /// How many `stream` cursors are open.
  private var streamDepth = 0

  /// Connects to `url`: a `postgresql://` URL or a `key=value` connection string. Passwords
  /// follow libpq's own rules (the URL, `PGPASSWORD`, `~/.pgpass`).
  public convenience init(url: String) throws(StoreError) {
    try self.init(url: url, overriding: [])
  }

  /// Connects to `url` with `overrides` taking precedence over it (tests connect to a
  /// scratch database of the server the URL names this way).
  init(url: String, overriding overrides: [(keyword: String, value: String)]) throws(StoreError) {
    if let problem = Self.loadLibPQ() { throw .cannotConnect(server: Self.unparsableName, reason: problem) }
    var options = Self.connectionOptions(of: url)
    for (keyword, value) in overrides { options?[keyword] = value }
    let display = options.map { Self.displayName(options: $0) } ?? Self.unparsableName
    // Keywords are applied in order, so our defaults come before `dbname` (which libpq expands
    // into the URL's own settings, overriding them) and the overrides after it.
    // fallback_application_name yields to both the URL and PGAPPNAME.
    var parameters: [(String, String)] = [("fallback_application_name", "appt")]
    if getenv("PGCONNECT_TIMEOUT") == nil { parameters.append(("connect_timeout", "5")) }
    // A server that vanishes without closing the connection (a network cut) must still be
    // noticed: probe idle connections, and give up on unacknowledged sends after 30 s.
    parameters += [
      ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
      ("tcp_user_timeout", "30000"),
    ]
    parameters.append(("dbname", url))
    parameters += overrides.map { ($0.keyword, $0.value) }

    let connection = Self.withCStrings(parameters) { keywords, values in
      PQconnectdbParams(keywords, values, 1)
    }
    guard let connection, PQstatus(connection) == CONNECTION_OK else {
      let reason = connection.map { Self.message(PQerrorMessage($0)) } ?? "out of memory"
      PQfinish(connection)
      throw .cannotConnect(server: display, reason: Self.sanitized(reason, of: url))
    }
    handle = connection
    path = display
    // libpq prints NOTICEs and WARNINGs ("there is no transaction in progress") to stderr,
    // which would land in the middle of the terminal UI.
    PQsetNoticeProcessor(handle, { _, _ in }, nil)
    // Results are decoded as UTF-8 and the SQL quotes with `''` only; neither may depend on
    // the server's or the URL's settings, nor may anything the server prints about time.
    do {
      try execute("SET client_encoding = 'UTF8'; SET TimeZone = 'UTC'; SET standard_conforming_strings = on")
    } catch {
      throw .cannotConnect(server: display, reason: error.description)
    }
  }

  deinit {
    statements.removeAll()  // the server drops its prepared statements with the session
    PQfinish(handle)
  }

  // MARK: - Statements

  /// Runs one or more statements that take no bindings and return no rows.
  public func execute(_ sql: String) throws(StoreError) {
    let result = PQexec(handle, sql)
    defer { PQclear(result) }
    try check(result)
  }

  /// Runs `sql` with `bindings` and calls `row` for each result row.
  public func query(
    _ sql: String,
    _ bindings: [SQLValue],
    row: (Row) throws(StoreError) -> Void
  ) throws(StoreError) {
    let result = try executePrepared(sql, bindings)
    defer { PQclear(result) }
    let count = PQntuples(result)
    var index: Int32 = 0
    while index < count {
      try row(Row(.postgres(PostgresRow(result: result, row: index))))
      index += 1
    }
  }

  /// Reads the result through a cursor (`DECLARE`, then `FETCH` `batch` rows at a time), so
  /// neither the server's reply nor this process ever holds the whole result.
  public func stream(
    _ sql: String,
    _ bindings: [SQLValue],
    batch: Int,
    row: (Row) throws(StoreError) -> Bool
  ) throws(StoreError) {
    // One name per nesting level (a stream inside another's row callback), so the prepared
    // DECLARE is reused from one stream to the next.
    let cursor = "appt_stream_\(streamDepth)"
    streamDepth += 1
    defer { streamDepth -= 1 }
    PQclear(try executePrepared("DECLARE \(cursor) NO SCROLL CURSOR FOR \(sql)", bindings))
    defer {
      // Done or stopped early, the cursor goes now (a failed transaction drops it itself).
      if PQtransactionStatus(handle) == PQTRANS_INTRANS { PQclear(PQexec(handle, "CLOSE \(cursor)")) }
    }
    let fetch = "FETCH FORWARD \(max(1, batch)) FROM \(cursor)"
    while true {
      let result = PQexec(handle, fetch)
      defer { PQclear(result) }
      try check(result)
      guard let result else { return }
      let rows = PQntuples(result)
      var index: Int32 = 0
      while index < rows {
        guard try row(Row(.postgres(PostgresRow(result: result, row: index)))) else { return }
        index += 1
      }
      if rows < Int32(max(1, batch)) { return }
    }
  }

  /// Runs a statement that returns no rows and reports how many rows it changed.
  @discardableResult
  public func run(_ sql: String, _ bindings: [SQLValue]) throws(StoreError) -> Int {
    let result = try executePrepared(sql, bindings)
    defer { PQclear(result) }
    // Empty for commands that count nothing (CREATE, SET...).
    guard let tuples = PQcmdTuples(result) else { return 0 }
    return Int(String(cString: tuples)) ?? 0
  }

  /// True while a transaction is open (or failed and awaits ROLLBACK, or the state is unknown
  /// because the connection broke).
  public var isInTransaction: Bool { PQtransactionStatus(handle) != PQTRANS_IDLE }

  /// The server process serving this connection (what `pg_terminate_backend` takes, and the
  /// pid a NOTIFY sent from here carries).
  public var backendPID: Int32 { PQbackendPID(handle) }

  /// The connection's socket (-1 when there is none): what the reminder daemon polls to learn
  /// that a notification arrived (`takeNotifications` then reads it).
  public var socketDescriptor: Int32 { PQsocket(handle) }

  /// True once libpq has given up on the connection: every later call throws `.connectionLost`.
  public var isBroken: Bool { PQstatus(handle) == CONNECTION_BAD }

  // MARK: - Notifications

  /// Reads what the server has sent without waiting, and returns the NOTIFYs received so far
  /// on channels this connection LISTENs to.
  public func takeNotifications() throws(StoreError) -> [PostgresNotification] {
    // libpq keeps its socket non-blocking, so this reads only what has already arrived.
    guard PQconsumeInput(handle) == 1 else {
      throw .connectionLost(server: path, reason: Self.message(PQerrorMessage(handle)))
    }
    var notifications: [PostgresNotification] = []
    while let notify = PQnotifies(handle) {
      defer { PQfreemem(notify) }
      notifications.append(
        PostgresNotification(
          channel: String(cString: notify.pointee.relname),
          payload: notify.pointee.extra.map { String(cString: $0) } ?? "",
          pid: notify.pointee.be_pid
        )
      )
    }
    // A terminated backend's farewell can arrive in the same read as its last notifications,
    // before libpq sees the socket close: report those first, the breakage on the next call.
    if notifications.isEmpty && isBroken {
      throw .connectionLost(server: path, reason: Self.message(PQerrorMessage(handle)))
    }
    return notifications
  }

  // MARK: - Prepared statements

  private struct PreparedStatement {
    let name: String
    let parameterCount: Int
  }

  /// Prepares `sql` once (numbering its `?`), runs it with `bindings`, and returns the
  /// successful result; the caller clears it.
  private func executePrepared(_ sql: String, _ bindings: [SQLValue]) throws(StoreError) -> OpaquePointer {
    let statement = try prepare(sql)
    guard bindings.count == statement.parameterCount else {
      // The server would answer with a protocol violation (class 08), which reads as a
      // lost connection; this is a programming error instead.
      throw .postgres(
        sqlState: "07001",
        message: "\(bindings.count) values bound to a statement with \(statement.parameterCount) parameters"
      )
    }
    let texts = try Self.parameterTexts(bindings)
    let result = Self.withCStrings(texts) { values in
      PQexecPrepared(handle, statement.name, Int32(values.count), values.baseAddress, nil, nil, 0)
    }
    do {
      try check(result)
    } catch {
      PQclear(result)
      // The server forgot the statement (DISCARD ALL) or cannot reuse its plan (a table it
      // reads with `*` changed shape): prepare afresh next time. Never retried here: inside a
      // transaction the failure has already aborted it.
      if case .postgres(let state, _) = error, state == "26000" || state == "0A000" {
        statements[sql] = nil
      }
      throw error
    }
    // check(_:) throws for a nil result, so one is here.
    guard let result else { throw .connectionLost(server: path, reason: "no result") }
    return result
  }

  private func prepare(_ sql: String) throws(StoreError) -> PreparedStatement {
    if let cached = statements[sql] { return cached }
    let (numbered, count) = Self.numberingPlaceholders(in: sql)
    let name = "appt_\(nextStatementNumber)"
    // No parameter types: the server infers each from its context, as it would for a literal.
    let result = PQprepare(handle, name, numbered, Int32(count), nil)
    defer { PQclear(result) }
    try check(result)
    nextStatementNumber += 1
    let statement = PreparedStatement(name: name, parameterCount: count)
    statements[sql] = statement
    return statement
  }

  /// The text form of each binding, nil for NULL. PostgreSQL's text parameters end at the
  /// first NUL, so text containing one is refused rather than cut short.
  static func parameterTexts(_ bindings: [SQLValue]) throws(StoreError) -> [String?] {
    var texts: [String?] = []
    texts.reserveCapacity(bindings.count)
    for value in bindings {
      switch value {
      case .null: texts.append(nil)
      case .integer(let int): texts.append(String(int))
      case .real(let double):
        // Swift prints the shortest text that reads back as the same double; PostgreSQL
        // spells the special values its own way.
        if double.isNaN {
          texts.append("NaN")
        } else if double.isInfinite {
          texts.append(double < 0 ? "-Infinity" : "Infinity")
        } else {
          texts.append("\(double)")
        }
      case .text(let text):
        guard !text.utf8.contains(0) else {
          throw .constraint(message: "text contains a NUL character, which PostgreSQL cannot store")
        }
        texts.append(text)
      }
    }
    return texts
  }

  // MARK: - Placeholders

  /// Rewrites appt's `?` placeholders as PostgreSQL's `$1...$n` and counts them. A `?` inside
  /// a string literal (`'...'`, `E'...'`), a quoted identifier, a comment or a dollar-quoted
  /// string is left alone. (PostgreSQL's jsonb `?` operators are therefore not available.)
  static func numberingPlaceholders(in sql: String) -> (sql: String, count: Int) {
    let bytes = Array(sql.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count + 8)
    var count = 0
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      let next = index + 1 < bytes.count ? bytes[index + 1] : 0
      let end: Int
      switch byte {
      case UInt8(ascii: "?"):
        count += 1
        output.append(UInt8(ascii: "$"))
        output += String(count).utf8
        index += 1
        continue
      case UInt8(ascii: "'"):
        // E'...' strings take backslash escapes; plain ones (standard_conforming_strings) do not.
        let escaped =
          index > 0 && (bytes[index - 1] | 0x20) == UInt8(ascii: "e")
          && (index < 2 || !isIdentifierByte(bytes[index - 2]))
        end = quotedEnd(bytes, from: index, quote: byte, backslashEscapes: escaped)
      case UInt8(ascii: "\""):
        end = quotedEnd(bytes, from: index, quote: byte, backslashEscapes: false)
      case UInt8(ascii: "-") where next == UInt8(ascii: "-"):
        end = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
      case UInt8(ascii: "/") where next == UInt8(ascii: "*"):
        end = blockCommentEnd(bytes, from: index)
      case UInt8(ascii: "$") where index == 0 || !isIdentifierByte(bytes[index - 1]):
        end = dollarQuotedEnd(bytes, from: index) ?? index + 1
      default:
        end = index + 1
      }
      output += bytes[index..<end]
      index = end
    }
    return (String(decoding: output, as: UTF8.self), count)
  }

  /// Letters, digits, `_`, `$` and any non-ASCII byte: what continues an unquoted identifier.
  private static func isIdentifierByte(_ byte: UInt8) -> Bool {
    byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
  }

  /// Just past the quote closing the one at `start` (a doubled quote stands for itself);
  /// the end of the text if it is never closed.
  private static func quotedEnd(_ bytes: [UInt8], from start: Int, quote: UInt8, backslashEscapes: Bool) -> Int {
    var index = start + 1
    while index < bytes.count {
      if backslashEscapes && bytes[index] == UInt8(ascii: "\\") {
        index += 2
      } else if bytes[index] == quote {
        if index + 1 < bytes.count && bytes[index + 1] == quote {
          index += 2
        } else {
          return index + 1
        }
      } else {
        index += 1
      }
    }
    return bytes.count
  }

  /// Just past the `*/` closing the comment at `start`; PostgreSQL's block comments nest.
  private static func blockCommentEnd(_ bytes: [UInt8], from start: Int) -> Int {
    var depth = 0
    var index = start
    while index + 1 < bytes.count {
      if bytes[index] == UInt8(ascii: "/") && bytes[index + 1] == UInt8(ascii: "*") {
        depth += 1
        index += 2
      } else if bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/") {
        depth -= 1
        index += 2
        if depth == 0 { return index }
      } else {
        index += 1
      }
    }
    return bytes.count
  }

  /// Just past the `$tag$` closing the dollar-quoted string opening at `start`, or nil when
  /// the `$` opens none (`$1`, a lone `$`).
  private static func dollarQuotedEnd(_ bytes: [UInt8], from start: Int) -> Int? {
    var index = start + 1
    // A tag is an identifier without `$`, and cannot start with a digit.
    if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { return nil }
    while index < bytes.count, bytes[index] != UInt8(ascii: "$"), isIdentifierByte(bytes[index]) { index += 1 }
    guard index < bytes.count, bytes[index] == UInt8(ascii: "$") else { return nil }
    let tag = bytes[start...index]
    var search = index + 1
    while search + tag.count <= bytes.count {
      if bytes[search] == UInt8(ascii: "$") && bytes[search..<search + tag.count].elementsEqual(tag) {
        return search + tag.count
      }
      search += 1
    }
    return bytes.count
  }

  // MARK: - Errors

  /// Throws the error a failed (or missing) result stands for.
  private func check(_ result: OpaquePointer?) throws(StoreError) {
    guard let result else {
      // libpq returns no result only when it could not even build one.
      let message = Self.message(PQerrorMessage(handle))
      throw isBroken ? .connectionLost(server: path, reason: message) : .postgres(sqlState: "", message: message)
    }
    switch PQresultStatus(result) {
    case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
    default: throw error(from: result)
    }
  }

  /// Maps a failed result to the error a user (or `AsyncDatabase`) can act on.
  private func error(from result: OpaquePointer) -> StoreError {
    let state = PQresultErrorField(result, appt_pg_diag_sqlstate).map { String(cString: $0) } ?? ""
    let message =
      PQresultErrorField(result, appt_pg_diag_message_primary).map { Self.message($0) }
      ?? Self.message(PQresultErrorMessage(result))
    switch state {
    case _ where state.hasPrefix("23"): return .constraint(message: message)
    case "40001", "40P01": return .serializationFailure(message: message)
    case "53100": return .diskFull(path: path)
    case "25006": return .readOnly(path: path)
    case _ where state.hasPrefix("08"), "57P01", "57P02", "57P03":
      return .connectionLost(server: path, reason: message)
    case "" where isBroken:
      // libpq's own report ("server closed the connection unexpectedly") has no SQLSTATE.
      return .connectionLost(server: path, reason: message)
    default: return .postgres(sqlState: state, message: message)
    }
  }

  /// libpq's messages end in a newline and may span lines ("...failed: FATAL:  ...\n\tIs the
  /// server running..."): one line, for a message that is printed on one.
  static func message(_ text: UnsafePointer<CChar>?) -> String {
    guard let text else { return "unknown error" }
    let lines = String(cString: text).split(whereSeparator: \.isNewline)
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
    return lines.isEmpty ? "unknown error" : lines.joined(separator: " ")
  }

  /// What is said of a URL libpq cannot parse. libpq's own message quotes the URL, password
  /// included, in ways no filter can undo safely (a password may hold quotes): none of it.
  static let unparsableReason = "not a valid PostgreSQL URL (check its quoting and %-escapes)"

  /// `reason` safe to print for a connection to `url`: a URL with two `@` puts the rest of
  /// its password in the host name, which is cut as the display name cuts it.
  static func sanitized(_ reason: String, of url: String) -> String {
    guard let options = connectionOptions(of: url) else { return unparsableReason }
    var text = reason
    for host in (options["host"] ?? "").split(separator: ",") where host.contains("@") {
      text = text.replacingOccurrences(of: String(host), with: String(visibleHost(host)))
    }
    return text
  }

  /// Loads libpq on first use (see LibPQLoader); nil when it is there, else why not.
  static func loadLibPQ() -> String? {
    var error: UnsafePointer<CChar>?
    return appt_libpq_load(&error) == 1 ? nil : error.map { String(cString: $0) } ?? "cannot load libpq"
  }

  // MARK: - Display name

  static let unparsableName = "PostgreSQL"

  /// `user@host:port/dbname` for messages, leaving out what `url` does not say and always
  /// the password; "PostgreSQL" when libpq cannot parse `url`.
  public static func displayName(of url: String) -> String {
    connectionOptions(of: url).map { displayName(options: $0) } ?? unparsableName
  }

  /// The settings `url` spells out (not libpq's defaults), by keyword; nil if it is invalid.
  static func connectionOptions(of url: String) -> [String: String]? {
    guard loadLibPQ() == nil else { return nil }
    var errorMessage: UnsafeMutablePointer<CChar>?
    guard let options = PQconninfoParse(url, &errorMessage) else {
      PQfreemem(errorMessage)  // may quote the password
      return nil
    }
    defer { PQconninfoFree(options) }
    var result: [String: String] = [:]
    var option = options
    while let keyword = option.pointee.keyword {
      if let value = option.pointee.val, value.pointee != 0 {
        result[String(cString: keyword)] = String(cString: value)
      }
      option += 1
    }
    return result
  }

  static func displayName(options: [String: String]) -> String {
    // Several hosts (`h1:1,h2:2`) come as parallel lists; one port may serve them all.
    let hosts = (options["host"] ?? options["hostaddr"] ?? "").split(separator: ",", omittingEmptySubsequences: false)
    let ports = (options["port"] ?? "").split(separator: ",", omittingEmptySubsequences: false)
    var servers: [String] = []
    for (index, host) in hosts.enumerated() {
      let port = ports.count == hosts.count ? ports[index] : ports.count == 1 ? ports[0] : ""
      servers.append(String(visibleHost(host)) + (port.isEmpty ? "" : ":\(port)"))
    }
    if servers.isEmpty, let port = ports.first, !port.isEmpty { servers = [":\(port)"] }
    var name = servers.joined(separator: ",")
    if let user = options["user"] { name = "\(user)@\(name)" }
    // A dbname that is itself a URL or a connection string (never expanded a second time)
    // could hold a password.
    if let database = options["dbname"], !database.contains("="), !database.contains("://") {
      name += "/\(database)"
    }
    return name.isEmpty ? unparsableName : name
  }

  /// A host name never holds `@`: libpq takes `postgresql://u:pa@ss@host` as password "pa"
  /// and host "ss@host", so everything up to the last `@` is the rest of a password.
  private static func visibleHost(_ host: Substring) -> Substring {
    guard let at = host.lastIndex(of: "@") else { return host }
    return host[host.index(after: at)...]
  }

  // MARK: - C strings

  /// Calls `body` with NULL-terminated arrays of C strings for `pairs`, valid during the call.
  private static func withCStrings<R>(
    _ pairs: [(String, String)],
    _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?) -> R
  ) -> R {
    withCStrings(pairs.map { Optional($0.0) } + [nil]) { keywords in
      withCStrings(pairs.map { Optional($0.1) } + [nil]) { values in body(keywords.baseAddress, values.baseAddress) }
    }
  }

  /// Calls `body` with one C string (or nil) per element, valid during the call. All are
  /// copied into one buffer: one allocation, whatever the number of parameters.
  private static func withCStrings<R>(
    _ strings: [String?],
    _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R
  ) -> R {
    var storage: [CChar] = []
    var offsets: [Int?] = []
    offsets.reserveCapacity(strings.count)
    for string in strings {
      guard let string else {
        offsets.append(nil)
        continue
      }
      offsets.append(storage.count)
      storage += string.utf8.map { CChar(bitPattern: $0) }
      storage.append(0)
    }
    return storage.withUnsafeBufferPointer { buffer in
      let pointers = offsets.map { offset in
        offset.flatMap { offset in buffer.baseAddress.map { UnsafePointer($0 + offset) } }
      }
      return pointers.withUnsafeBufferPointer(body)
    }
  }
}

/// A NOTIFY received on a channel the connection LISTENs to.
public struct PostgresNotification: Sendable, Equatable {
  public var channel: String
  public var payload: String
  /// The server process that sent it: the sender's `backendPID`.
  public var pid: Int32

  public init(channel: String, payload: String, pid: Int32) {
    self.channel = channel
    self.payload = payload
    self.pid = pid
  }
}

/// One row of a PostgreSQL result (text format). Valid while the result is, that is inside
/// the `query` callback.
struct PostgresRow {
  let result: OpaquePointer
  let row: Int32

  // Type OIDs from PostgreSQL's catalog (pg_type.dat); libpq does not export them.
  private static let boolOID: Oid = 16
  private static let int8OID: Oid = 20
  private static let int2OID: Oid = 21
  private static let int4OID: Oid = 23
  private static let float4OID: Oid = 700
  private static let float8OID: Oid = 701
  private static let numericOID: Oid = 1700

  func bytes(at index: Int32) -> UnsafeBufferPointer<UInt8> {
    guard let value = PQgetvalue(result, row, index) else { return UnsafeBufferPointer(start: nil, count: 0) }
    let count = Int(PQgetlength(result, row, index))
    return UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self), count: count)
  }

  /// The column as an integer: 0 for NULL; 1 and 0 for a boolean.
  func int64(at index: Int32) -> Int64 { Self.parseInt64(bytes(at: index)) }

  /// The column's text: "" for NULL.
  func string(at index: Int32) -> String { String(decoding: bytes(at: index), as: UTF8.self) }

  func isNull(at index: Int32) -> Bool { PQgetisnull(result, row, index) == 1 }

  func value(at index: Int32) -> SQLValue {
    if isNull(at: index) { return .null }
    switch PQftype(result, index) {
    case Self.int8OID, Self.int4OID, Self.int2OID, Self.boolOID: return .integer(int64(at: index))
    case Self.float8OID, Self.float4OID, Self.numericOID:
      // Swift's parser ignores the C locale (the terminal sets LC_NUMERIC), unlike strtod, and
      // reads PostgreSQL's "Infinity" and "NaN".
      return Double(string(at: index)).map(SQLValue.real) ?? .text(string(at: index))
    default: return .text(string(at: index))
    }
  }

  /// Reads a decimal integer as PostgreSQL prints one, without allocating (it runs for every
  /// row of a large result): optional sign and digits, stopping at anything else ("12.5" is 12,
  /// as in SQLite), saturating at the Int64 bounds; "t" and "f" (booleans) are 1 and 0.
  static func parseInt64(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64 {
    guard let first = bytes.first else { return 0 }
    if first == UInt8(ascii: "t") { return 1 }
    let negative = first == UInt8(ascii: "-")
    var index = negative || first == UInt8(ascii: "+") ? 1 : 0
    // Accumulated negatively: Int64.min has no positive counterpart.
    var value: Int64 = 0
    while index < bytes.count {
      let digit = bytes[index] &- UInt8(ascii: "0")
      guard digit < 10 else { break }
      let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
      let (next, overflow2) = shifted.subtractingReportingOverflow(Int64(digit))
      if overflow1 || overflow2 { return negative ? .min : .max }
      value = next
      index += 1
    }
    if negative { return value }
    return value == .min ? .max : -value
  }
}
