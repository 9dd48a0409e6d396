import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// Files written by every shipped schema version must open in this build with their data
/// intact. `Fixtures/schema-vN.sqlite3` is a real file made by the build that shipped
/// schema N: four appointments (a note, CJK and emoji, a cancelled one, a two-day one), and
/// from v2 on a weekly series with one cancelled occurrence and a two-day whole-day one, and
/// from v3 on revisions (the dentist's note edited twice: revision 3), from v4 on search keys
/// (v3's file opened by v4, and "Straße ÉTÉ" added).
@Suite struct SchemaFixtureTests {
  static let fixtures: [Int: String] = [1: "schema-v1", 2: "schema-v2", 3: "schema-v3", 4: "schema-v4"]

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
    let byTitle = Dictionary(all.map { ($0.title, $0) }, uniquingKeysWith: { first, _ in first })
    for title in ["Dentist", "会議 🎉", "Cancelled one", "Multi-day conference"] {
      #expect(byTitle[title] != nil, "\(title) is missing")
    }
    #expect(byTitle["Cancelled one"]?.status == .cancelled)
    #expect(byTitle["Dentist"]?.note == "bring the x-rays")
    #expect(byTitle["Dentist"]?.duration == TimeInterval(45 * 60))
    #expect(byTitle["Multi-day conference"]?.duration == TimeInterval(2 * 86_400))
    if version >= 2 {
      let series = try #require(byTitle["Weekly sync"])
      #expect(series.recurrence == Recurrence(frequency: .weekly, weekdays: [.monday, .wednesday], count: 10))
      #expect(series.exceptions.count == 1)
      #expect(byTitle["Holiday"]?.isAllDay == true)
      let week = DateInterval(start: TestClock.date(2026, 12, 7), end: TestClock.date(2026, 12, 14))
      let listed = try await dao.appointments(matching: AppointmentQuery(range: week, includeCancelled: true))
      let occurrences = listed.filter { $0.title == "Weekly sync" }
      #expect(occurrences.map(\.status) == [.scheduled, .cancelled], "Mon, and Wed cancelled alone")
    } else {
      #expect(all.allSatisfy { $0.recurrence == nil && !$0.isAllDay && $0.timeZone.isEmpty })
    }
    if version >= 3 {
      #expect(byTitle["Dentist"]?.revision == 3)
      #expect(byTitle["Cancelled one"]?.revision == 2)
      #expect(byTitle["Weekly sync"]?.revision == 2, "one occurrence cancelled")
    } else {
      #expect(all.allSatisfy { $0.revision == 1 }, "rows from before revisions start at 1")
    }
    // Search keys are filled in for rows written before they existed.
    let search = { (text: String) async throws in
      try await dao.appointments(matching: AppointmentQuery(range: nil, includeCancelled: true, search: text))
        .map(\.title)
    }
    #expect(try await search("DENTIST") == ["Dentist"])
    #expect(try await search("X-RAYS") == ["Dentist"], "the note too")
    #expect(try await search("会議") == ["会議 🎉"])
    if version >= 4 { #expect(try await search("strasse ete") == ["Straße ÉTÉ"]) }
    #expect(try await dao.database.integrityCheck() == ["ok"])
    let current = try await dao.database.read { connection throws(StoreError) in
      try connection.scalar("PRAGMA user_version")?.int64
    }
    #expect(current == Int64(Schema.migrations.count))
  }
}
