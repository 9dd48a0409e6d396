// After our own write of a few one-offs, an observed window is patched with their rows
// instead of read again (`AppointmentDAO.patch`): what it shows must be what the query reads.

import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

@Suite("Window patches", .hangBackstop)
struct WindowPatchTests {
  /// The windows a calendar and a script observe: a day of the shown calendars, a week with
  /// the cancelled ones, one calendar's week.
  static let queries = [
    AppointmentQuery(range: window(december(2), december(3)), onlyShownCalendars: true),
    AppointmentQuery(range: window(december(1), december(8)), includeCancelled: true),
    AppointmentQuery(range: window(december(1), december(8)), calendars: ["work"]),
  ]

  /// Random writes (seeded): one-offs added, moved, retitled onto a tie, cancelled, restored
  /// and deleted, with now and then a series, an occurrence changed, a calendar hidden or
  /// shown (which the patch leaves to the query). After each, the window the observer holds
  /// is the one its query reads now, and most writes were patched.
  @Test(arguments: StoreKind.allCases)
  func aPatchedWindowIsWhatItsQueryReads(kind: StoreKind) async throws {
    for (index, query) in Self.queries.enumerated() {
      try await withStore(kind) { dao in
        var random = SplitMix64(seed: UInt64(40 + index))
        try await dao.addCalendar(name: "work")
        var iterator = await dao.observeAppointments(query).makeAsyncIterator()
        var shown = try await nextSnapshot(&iterator).items
        var oneOffs: [AppointmentID] = []
        var series: [AppointmentID] = []
        for step in 0..<60 {
          try await randomWrite(dao, &random, oneOffs: &oneOffs, series: &series)
          // A write that changed the window has its snapshot pending; one that did not, none.
          if await dao.database.observationHorizon.pending {
            shown = try await nextSnapshot(&iterator).items
          }
          let read = try await dao.appointments(matching: query)
          #expect(shown == read, "query \(index), step \(step)")
          guard shown == read else { return }
        }
        let patched = await dao.database.patchedRefreshes
        #expect(patched >= 30, "query \(index): \(patched) of 60 writes patched")
      }
    }
  }

  /// One random write, on December 1-7 (Paris) and the days either side.
  func randomWrite(
    _ dao: AppointmentDAO,
    _ random: inout SplitMix64,
    oneOffs: inout [AppointmentID],
    series: inout [AppointmentID]
  ) async throws {
    func someStart() -> Date {
      // Few distinct times, so ties (same start and end) are common.
      december(Int.random(in: 0...8, using: &random) + 1, [9, 10, 23][Int.random(in: 0..<3, using: &random)])
    }
    let roll = Int.random(in: 0..<100, using: &random)
    switch roll {
    case 0..<30,
      _ where oneOffs.isEmpty:
      let start = someStart()
      var request = AddRequest(
        title: ["Dentist", "Standup", "Lunch"][Int.random(in: 0..<3, using: &random)],
        start: start,
        end: start.addingTimeInterval([1_800, 3_600, 7_200][Int.random(in: 0..<3, using: &random)])
      )
      if Bool.random(using: &random) { request.calendar = "work" }
      oneOffs.append(try await dao.addAppointment(request).id)
    case 30..<45:
      let id = oneOffs[Int.random(in: 0..<oneOffs.count, using: &random)]
      _ = try await dao.editAppointment(EditRequest(id: id.description, start: someStart()))
    case 45..<55:
      let id = oneOffs[Int.random(in: 0..<oneOffs.count, using: &random)]
      _ = try await dao.editAppointment(
        EditRequest(id: id.description, title: ["Dentist", "Standup", "Lunch"][Int.random(in: 0..<3, using: &random)])
      )
    case 55..<65:
      try await dao.cancelAppointment(id: oneOffs[Int.random(in: 0..<oneOffs.count, using: &random)])
    case 65..<72:
      try await dao.restoreAppointment(id: oneOffs[Int.random(in: 0..<oneOffs.count, using: &random)])
    case 72..<82:
      let id = oneOffs.remove(at: Int.random(in: 0..<oneOffs.count, using: &random))
      try await dao.deleteAppointment(id: id)
    case 82..<88:
      let start = someStart()
      var request = AddRequest(title: "Series", start: start, end: start.addingTimeInterval(3_600))
      request.recurrence = Recurrence(frequency: .daily, count: 4)
      series.append(try await dao.addAppointment(request).id)
    case 88..<94 where !series.isEmpty:
      let id = series[Int.random(in: 0..<series.count, using: &random)]
      let occurrence = try await dao.appointments(matching: AppointmentQuery(range: window(december(1), december(14))))
        .first { $0.id == id }
      if let day = occurrence.map({ TestClock.clock.startOfDay($0.start) }) {
        _ = try await dao.editAppointment(EditRequest(id: id.description, title: "Moved", occurrence: day))
      }
    default:
      let shown = try await dao.calendar(named: "work").isShown
      try await dao.setCalendarShown("work", !shown)
    }
  }

  /// What the patch refuses, and so leaves to the query: more rows than it patches, a write
  /// that changed rows it did not note, and a window with a search.
  @Test func thePatchLeavesToTheQueryWhatItCannotTell() async throws {
    try await withStore(.file) { dao in
      let query = AppointmentQuery(range: window(december(1), december(2)))
      var iterator = await dao.observeAppointments(query).makeAsyncIterator()
      _ = try await nextSnapshot(&iterator)
      let before = await dao.database.patchedRefreshes
      // An import of 40 events: more than a journal keeps.
      let events = (0..<40).map { appointment("Imported \($0)", from: december(1, 8), to: december(1, 9)) }
      _ = try await dao.importAppointments(events)
      #expect(try await nextSnapshot(&iterator).items.count == 40)
      #expect(await dao.database.patchedRefreshes == before, "read again, not patched")
      // A row changed behind the journal's back (the same transaction notes another).
      let noted = try await dao.database.write { connection throws(StoreError) in
        try connection.run("UPDATE appointment SET title = 'Renamed' WHERE title = 'Imported 0'")
        let row = appointment("Noted", from: december(1, 10), to: december(1, 11)).atRevision(1)
        try Appointment.upsert(row, in: connection)
        return row
      }
      let after = try await nextSnapshot(&iterator).items
      #expect(after.contains { $0.title == "Renamed" } && after.contains { $0.id == noted.id })
      #expect(await dao.database.patchedRefreshes == before, "the engine counted a change nobody noted")
      // A search window is read again.
      var search = await dao.observeAppointments(
        AppointmentQuery(range: window(december(1), december(2)), search: "dentist")
      ).makeAsyncIterator()
      _ = try await nextSnapshot(&search)
      try await dao.saveAppointment(appointment("Dentist", from: december(1, 12), to: december(1, 13)))
      #expect(try await nextSnapshot(&search).items.map(\.title) == ["Dentist"])
      #expect(await dao.database.patchedRefreshes == before + 1, "the plain window was patched, the search read")
    }
  }
}
