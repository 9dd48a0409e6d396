import ApptCore
import ApptStore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptRemind

/// One wake-up of the daemon (`fireDue`) with several alarms due: each is notified once, and
/// all are recorded in ONE transaction before the first notification (on PostgreSQL the rows'
/// `xmin` says which transaction wrote them).
@Suite("Reminder daemon records a wake-up's alarms at once")
struct DaemonRecordingTests {
  static let paris = TimeZone(identifier: "Europe/Paris") ?? .gmt
  static let nine = ReminderScheduleTests.date(2026, 12, 3, 9)

  final class Lines: Sendable {
    let lines = Locked<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
  }

  static func events() -> [Appointment] {
    ["Standup", "Review", "Lunch"].map {
      ReminderScheduleTests.event(
        $0,
        at: nine,
        alarms: [ReminderScheduleTests.block("ACTION:DISPLAY", "DESCRIPTION:\($0)", "TRIGGER:-PT15M")]
      )
    }
  }

  /// Fires what is due at 08:45:01 (three alarms) on `dao`, then once more; returns the lines.
  @MainActor
  static func wake(_ dao: AppointmentDAO) async throws -> [String] {
    for event in events() { try await dao.saveAppointment(event) }
    let clock = Clock.fixed(nine.addingTimeInterval(-899), timeZone: paris)
    let output = Lines()
    let daemon = ReminderDaemon(
      dao: dao,
      clock: clock,
      configuration: RemindConfiguration(grace: 3600, method: .standardOutput, lockPath: "/nonexistent/lock"),
      log: { _ in },
      output: { output.append($0) }
    )
    _ = try await daemon.fireDue()
    let first = output.all
    _ = try await daemon.fireDue()
    #expect(output.all == first, "recorded: a second wake notifies nothing")
    return first
  }

  @Test("three alarms due at one wake-up: three notifications, three records")
  func inMemory() async throws {
    let configuration = DatabaseConfiguration(location: .inMemory, migrations: Schema.migrations)
    let dao = AppointmentDAO(
      service: DatabaseService(database: AsyncDatabase(configuration: configuration)),
      clock: Clock.fixed(Self.nine, timeZone: Self.paris)
    )
    let lines = try await Self.wake(dao)
    #expect(lines.count == 3)
    #expect(lines.allSatisfy { $0.hasPrefix("reminder: ") })
    #expect(try await dao.recordedAlarmKeys(from: Self.nine.addingTimeInterval(-3600)).count == 3)
    await dao.database.close()
  }

  @Test(
    "on PostgreSQL the three records are written by one transaction",
    .enabled(if: ProcessInfo.processInfo.environment["APPT_TEST_PG"].map { !$0.isEmpty } ?? false)
  )
  func oneTransaction() async throws {
    let admin = try #require(ProcessInfo.processInfo.environment["APPT_TEST_PG"])
    var components = try #require(URLComponents(string: admin))
    let name = "appt_test_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    try PostgresConnection(url: admin).execute("CREATE DATABASE \(name)")
    components.path = "/\(name)"
    let url = try #require(components.string)
    let configuration = DatabaseConfiguration(location: .postgres(url: url), migrations: Schema.migrations)
    let dao = AppointmentDAO(
      service: DatabaseService(database: AsyncDatabase(configuration: configuration)),
      clock: Clock.fixed(Self.nine, timeZone: Self.paris)
    )
    do {
      let lines = try await Self.wake(dao)
      #expect(lines.count == 3)
      let writers = try await dao.database.read { connection throws(StoreError) in
        try connection.scalar("SELECT count(DISTINCT xmin::text) FROM alarm_fired")?.int64
      }
      #expect(writers == 1)
    } catch {
      Issue.record(error)
    }
    await dao.database.close()
    try PostgresConnection(url: admin).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
  }
}
