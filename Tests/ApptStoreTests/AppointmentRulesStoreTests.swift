import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// `import` once did not apply `add`'s rules (a 5,000-character SUMMARY, a 50,000-character
/// DESCRIPTION and a raw NUL were stored). Every write path of the DAO now ends in
/// `AppointmentRules.validate`, so no caller can bypass it; a refused write changes nothing.
@Suite struct AppointmentRulesStoreTests {
  static let longTitle = String(repeating: "t", count: AppointmentRules.maximumTitleLength + 1)
  static let longNote = String(repeating: "n", count: 50_000)

  /// What the store holds, to compare before and after a refused write.
  func everything(_ dao: AppointmentDAO) async throws -> [Appointment] {
    try await dao.getAllAppointments()
  }

  @Test(arguments: StoreKind.allCases)
  func saveRefusesWhatAddWouldRefuse(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      let cases: [(Appointment, String)] = [
        (appointment(Self.longTitle, from: december(1, 10), to: december(1, 11)), "the title is 501 characters long"),
        (appointment("Note", from: december(1, 10), to: december(1, 11), note: Self.longNote), "the note is 50000"),
        (appointment("Nul\u{0}here", from: december(1, 10), to: december(1, 11)), "NUL byte at character 4"),
        (appointment("Nul", from: december(1, 10), to: december(1, 11), note: "a\u{0}"), "NUL byte"),
        (appointment("  ", from: december(1, 10), to: december(1, 11)), "the title is empty"),
        (appointment("Backwards", from: december(1, 11), to: december(1, 10)), "is before the start"),
        (
          appointment(
            "Late",
            from: AppointmentRules.latest.addingTimeInterval(-1800),
            to: AppointmentRules.latest + 1800
          ),
          "the end 9999-12-31 00:30 UTC is out of range"
        ),
        (
          appointment("Early", from: AppointmentRules.earliest - 3600, to: AppointmentRules.earliest),
          "the start 1582-12-31 23:00 UTC is out of range"
        ),
      ]
      for (bad, needle) in cases {
        do {
          try await dao.saveAppointment(bad)
          Issue.record("stored: \(bad.title.prefix(20)) (\(needle))")
        } catch {
          guard case .invalidRequest(let message) = error as? StoreError else {
            Issue.record("\(needle): \(error)")
            continue
          }
          #expect(message.contains(needle), "\(message)")
        }
      }
      #expect(try await everything(dao).isEmpty)
      let edge = appointment("Edge", from: AppointmentRules.latest - 3600, to: AppointmentRules.latest)
      #expect(try await dao.saveAppointment(edge).revision == 1, "up to the last supported instant is fine")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func importIsAllOrNothingUnderTheRules(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      var good = appointment("Good", from: december(1, 10), to: december(1, 11))
      good.uid = "good@example.com"
      var bad = appointment("Bad", from: december(2, 10), to: december(2, 11), note: "x\u{0}y")
      bad.uid = "bad@example.com"
      await #expect(throws: StoreError.self) { try await dao.importAppointments([good, bad]) }
      #expect(try await everything(dao).isEmpty, "nothing of a refused import is stored")
      var long = good
      long.title = Self.longTitle
      await #expect(throws: StoreError.self) { try await dao.importAppointments([long]) }
      #expect(try await dao.importAppointments([good]).added == 1)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func updatesAndOccurrenceEditsAreCheckedAfterTheChange(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      let stored = try await dao.saveAppointment(appointment("Dentist", from: december(1, 10), to: december(1, 11)))
      do {
        try await dao.updateAppointment(id: stored.id) { $0.end = AppointmentRules.latest + 1 }
        Issue.record("an end past the supported times was stored")
      } catch {
        guard case .invalidRequest(let message) = error as? StoreError else { throw error }
        #expect(message.hasPrefix("\"Dentist\": the end 9999-12-31 00:00 UTC is out of range"), "\(message)")
      }
      await #expect(throws: StoreError.self) {
        try await dao.updateAppointment(id: stored.id) { $0.title = Self.longTitle }
      }
      #expect(try await everything(dao) == [stored], "a refused update changes nothing")

      let start = TestClock.date(2026, 11, 30, 9)
      let series = try await dao.saveAppointment(
        Appointment(
          title: "Sync",
          start: start,
          end: start.addingTimeInterval(3600),
          created: TestClock.now,
          timeZone: "Europe/Paris",
          recurrence: Recurrence(frequency: .daily, count: 10)
        )
      )
      await #expect(throws: StoreError.self) {
        try await dao.editOccurrence(id: series.id, on: TestClock.date(2026, 12, 2)) { $0.note = Self.longNote }
      }
      #expect(try await dao.getAppointment(id: series.id) == series, "the series does not skip that day")
      #expect(try await everything(dao).count == 2)
    }
  }
}
