import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// Files written by every shipped schema version must open in this build with their data
/// intact. `Fixtures/schema-vN.sqlite3` is a real file made by the build that shipped
/// schema N (four appointments: a note, CJK and emoji, a cancelled one, a two-day one).
@Suite struct SchemaFixtureTests {
  static let fixtures: [Int: String] = [1: "schema-v1"]

  @Test(arguments: fixtures.keys.sorted())
  func migratesForwardWithDataIntact(version: Int) async throws {
    #expect(Self.fixtures.count == Schema.migrations.count, "add a fixture for every new schema version")
    let name = try #require(Self.fixtures[version])
    let source = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "sqlite3"))
    let directory = TemporaryDirectory()
    let copy = directory.file("\(name).sqlite3")
    try FileManager.default.copyItem(at: source, to: copy)

    let dao = AppointmentDAO(file: copy, clock: TestClock.clock)
    let all = try await dao.getAllAppointments()
    #expect(all.map(\.title) == ["Dentist", "会議 🎉", "Cancelled one", "Multi-day conference"])
    #expect(all.map(\.status) == [.scheduled, .scheduled, .cancelled, .scheduled])
    #expect(all[0].note == "bring the x-rays")
    #expect(all[0].duration == 45 * 60)
    #expect(all[3].duration == 2 * 86_400)
    #expect(all[0].id.description == "f34ea7af-b1f6-426d-9ef5-22cef3add6b0")
    #expect(try await dao.database.integrityCheck() == ["ok"])
    let current = try await dao.database.read { connection throws(StoreError) in
      try connection.scalar("PRAGMA user_version")?.int64
    }
    #expect(current == Int64(Schema.migrations.count))
  }
}
