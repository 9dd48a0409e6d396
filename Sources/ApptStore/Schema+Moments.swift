import ApptCore

// An event may end where it starts (RFC 5545: a DTSTART time without DTEND or DURATION is an
// event of no length): the CHECK on `appointment` becomes `end_ms >= start_ms`. Every row kept
// the stricter rule, so nothing is read again; a row made one second long before (how appt
// stored such an event) stays so until it is imported or synced again.
extension Schema {
  static let strictEnd = "CHECK (end_ms > start_ms)"
  static let momentsAllowed = "CHECK (end_ms >= start_ms)"

  static func allowMoments(engine: Engine, connection: any Connection) throws(StoreError) {
    switch engine {
    case .postgres:
      try connection.execute(
        """
        ALTER TABLE appointment DROP CONSTRAINT "end_ms > start_ms",
          ADD CONSTRAINT "end_ms >= start_ms" \(momentsAllowed) NOT VALID;
        ALTER TABLE appointment VALIDATE CONSTRAINT "end_ms >= start_ms";
        """
      )
    case .sqlite:
      // SQLite changes no constraint in place; its documented way to loosen one is to edit the
      // table's text in sqlite_schema and bump the schema version (a rebuild would copy every
      // row). The migration's transaction holds the write lock meanwhile.
      let version = try connection.scalar("PRAGMA schema_version")?.int64 ?? 0
      try connection.execute("PRAGMA writable_schema = ON")
      do {
        _ = try connection.run(
          "UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'appointment'",
          [.text(strictEnd), .text(momentsAllowed)]
        )
        try connection.execute("PRAGMA schema_version = \(version + 1)")
      } catch {
        // A rollback does not turn the pragma off: the connection would keep its schema writable.
        try connection.execute("PRAGMA writable_schema = OFF")
        throw error
      }
      try connection.execute("PRAGMA writable_schema = OFF")
      let text = try connection.scalar("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'appointment'")
      guard text?.string?.contains(momentsAllowed) == true else {
        throw .invalidRequest(message: "the appointment table has no CHECK (end_ms > start_ms) to loosen")
      }
    }
  }
}
