import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// Schema 9: the count of VALARMs on each row, and the records of what the
/// reminder daemon fired, on every engine.
@Suite("Alarm records in the store", .hangBackstop)
struct AlarmRecordTests {
  static let twoAlarms = [
    "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M", "DESCRIPTION:Soon", "END:VALARM",
    "X-OTHER:kept", "begin:valarm", "ACTION:AUDIO", "TRIGGER:-P1D", "end:valarm",
  ]

  static func alarms(_ dao: AppointmentDAO) async throws -> [String: Int64] {
    try await dao.database.read { connection throws(StoreError) in
      var counts: [String: Int64] = [:]
      try connection.query("SELECT title, alarms FROM appointment", []) { row throws(StoreError) in
        counts[row.string(at: 0)] = row.int64(at: 1)
      }
      return counts
    }
  }

  // MARK: - Migration

  @Test(
    "schema 9 migrates a schema-8 store: each row's VALARMs are counted from its extras",
    arguments: StoreKind.shared
  )
  func migratesFromSchema8(kind: StoreKind) async throws {
    try await withSharedStore(kind) { store in
      let old = store.dao(migrations: Array(Schema.migrations.prefix(8)))
      let extras = Appointment.extrasText(ICalendarExtras(lines: Self.twoAlarms))
      let plain = Appointment.extrasText(ICalendarExtras(lines: ["X-OTHER:BEGIN:VALARM in a value"]))
      try await old.database.write { connection throws(StoreError) in
        for (index, (title, text)) in [("Dentist", extras), ("Plain", plain), ("None", "")].enumerated() {
          // Schema 8's columns only (this build's row writer adds `alarms`).
          try connection.run(
            """
            INSERT INTO appointment (id, title, start_ms, end_ms, created_ms, updated_ms, extras, calendar_id)
            VALUES (?, ?, ?, ?, 0, 0, ?, ?)
            """,
            [
              .text(AppointmentID().description), .text(title),
              .integer(december(3 + index, 9).millisecondsSince1970),
              .integer(december(3 + index, 10).millisecondsSince1970), .text(text), .text(Schema.personalCalendarID),
            ]
          )
        }
      }
      await old.database.close()
      let dao = store.dao()
      #expect(try await Self.alarms(dao) == ["Dentist": 2, "Plain": 0, "None": 0])
      let dentist = try #require(try await dao.getAllAppointments().first { $0.title == "Dentist" })
      #expect(dentist.extras.lines == Self.twoAlarms, "the blocks stay verbatim")
      let recorded = try await dao.recordAlarm(
        key: "k",
        appointmentID: dentist.id.description,
        fireAt: december(3, 8, 45),
        outcome: .fired,
        at: december(3, 8, 45)
      )
      #expect(recorded)
      let version = try await dao.database.read { connection throws(StoreError) in
        try connection.scalar(kind == .postgres ? "SELECT count(*) FROM appt_schema" : "PRAGMA user_version")?.int64
      }
      #expect(version == Int64(Schema.migrations.count))
    }
  }

  // MARK: - The row writer

  @Test("every write of a row stores how many VALARMs its extras hold", arguments: StoreKind.allCases)
  func rowWriterCounts(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      var item = appointment("Dentist", from: december(3, 9), to: december(3, 10))
      item.extras = ICalendarExtras(lines: Self.twoAlarms)
      try await dao.saveAppointment(item)
      #expect(try await Self.alarms(dao) == ["Dentist": 2])
      item = try await dao.getAppointment(id: item.id)
      item.extras = ICalendarExtras(lines: Array(Self.twoAlarms.prefix(6)))
      try await dao.saveAppointment(item)
      #expect(try await Self.alarms(dao) == ["Dentist": 1])
      item = try await dao.getAppointment(id: item.id)
      item.extras = .none
      try await dao.saveAppointment(item)
      #expect(try await Self.alarms(dao) == ["Dentist": 0])
    }
  }

  @Test("the alarm query reads the rows with alarms through their partial index, not every row's extras")
  func alarmQueryUsesTheIndex() async throws {
    try await withStore(.file) { dao in
      let plan = try await dao.database.read { connection throws(StoreError) in
        var lines: [String] = []
        try connection.query(
          "EXPLAIN QUERY PLAN SELECT id FROM appointment WHERE \(AppointmentDAO.carriesAlarms) ORDER BY start_ms",
          []
        ) { row throws(StoreError) in lines.append(row.string(at: 3)) }
        return lines.joined(separator: "\n")
      }
      #expect(plan.contains("USING INDEX appointment_with_alarms"), "\(plan)")
    }
  }

  // MARK: - Records

  @Test(
    "an instance is recorded once: the second record of its key says so and changes nothing",
    arguments: StoreKind.allCases
  )
  func recordsOnce(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let fireAt = december(3, 8, 45)
      let first = try await dao.recordAlarm(
        key: "a/1",
        appointmentID: "a",
        fireAt: fireAt,
        outcome: .late,
        at: december(3, 9)
      )
      let again = try await dao.recordAlarm(
        key: "a/1",
        appointmentID: "a",
        fireAt: fireAt,
        outcome: .fired,
        at: december(3, 10)
      )
      #expect(first && !again)
      let outcome = try await dao.recordedAlarmOutcome(key: "a/1")
      #expect(outcome == .late, "the first record stands")
      let other = try await dao.recordAlarm(
        key: "b/1",
        appointmentID: "b",
        fireAt: december(5, 8),
        outcome: .missed,
        at: december(5, 10)
      )
      #expect(other)
      #expect(try await dao.recordedAlarmKeys(from: december(3)) == ["a/1", "b/1"])
      #expect(try await dao.recordedAlarmKeys(from: december(4)) == ["b/1"])
      #expect(try await dao.pruneAlarmRecords(before: december(4)) == 1)
      #expect(try await dao.recordedAlarmKeys(from: december(1)) == ["b/1"])
      let pruned = try await dao.recordedAlarmOutcome(key: "a/1")
      #expect(pruned == nil)
    }
  }

  @Test(
    "a batch of records is one transaction: the keys taken now come back, one recorded already is not",
    arguments: StoreKind.allCases
  )
  func recordsABatchInOneTransaction(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      #expect(
        try await dao.recordAlarm(key: "a/1", appointmentID: "a", fireAt: december(3), outcome: .fired, at: december(3))
      )
      let batch = ["a/1", "b/1", "c/1", "d/1"].map {
        AlarmRecord(key: $0, appointmentID: String($0.prefix(1)), fireAt: december(3, 9), outcome: .late)
      }
      let taken = try await dao.recordAlarms(batch, at: december(3, 10))
      #expect(taken == ["b/1", "c/1", "d/1"])
      #expect(try await dao.recordedAlarmKeys(from: december(1)) == ["a/1", "b/1", "c/1", "d/1"])
      #expect(try await dao.recordedAlarmOutcome(key: "a/1") == .fired, "the first record stands")
      #expect(try await dao.recordAlarms([], at: december(3)).isEmpty)
      if kind == .postgres {
        // Each row's xmin is the transaction that wrote it: the batch's three rows, one.
        let writers = try await Self.writingTransactions(dao, keys: ["b/1", "c/1", "d/1"])
        #expect(writers == 1)
      }
    }
  }

  /// How many PostgreSQL transactions wrote the records of `keys`.
  static func writingTransactions(_ dao: AppointmentDAO, keys: [String]) async throws -> Int64? {
    try await dao.database.read { connection throws(StoreError) in
      let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
      return try connection.scalar(
        "SELECT count(DISTINCT xmin::text) FROM alarm_fired WHERE key IN (\(marks))",
        keys.map { .text($0) }
      )?.int64
    }
  }

  @Test(
    "two clients recording the same instances at once: each key is taken by exactly one",
    arguments: StoreKind.shared
  )
  func racingRecorders(kind: StoreKind) async throws {
    try await withSharedStore(kind) { store in
      let first = store.dao()
      let second = store.dao()
      let keys = (0..<40).map { "k/\($0)" }
      async let a = Self.record(keys, with: first)
      async let b = Self.record(keys, with: second)
      let (takenByA, takenByB) = try await (a, b)
      #expect(takenByA.isDisjoint(with: takenByB))
      #expect(takenByA.union(takenByB) == Set(keys))
    }
  }

  static func record(_ keys: [String], with dao: AppointmentDAO) async throws -> Set<String> {
    var taken: Set<String> = []
    for key in keys {
      if try await dao.recordAlarm(key: key, appointmentID: "x", fireAt: december(3), outcome: .fired, at: december(3))
      {
        taken.insert(key)
      }
    }
    return taken
  }

  @Test("a record is not a change observers hear of, and other processes see data_version move")
  func recordsAreQuiet() async throws {
    try await withSharedStore(.file) { store in
      let daemon = store.dao()
      let other = store.dao()
      let before = try #require(try await daemon.externalDataVersion())
      _ = try await daemon.recordAlarm(
        key: "k",
        appointmentID: "x",
        fireAt: december(3),
        outcome: .fired,
        at: december(3)
      )
      #expect(try await daemon.externalDataVersion() == before, "its own write does not move its data_version")
      try await other.saveAppointment(appointment("Other", from: december(3, 9), to: december(3, 10)))
      #expect(try await daemon.externalDataVersion() != before, "another connection's commit does")
    }
  }
}
