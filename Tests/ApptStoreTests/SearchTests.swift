import ApptCore
import ApptStore
import ApptTestSupport
import Foundation
import Testing

/// `list --search` finds on every engine exactly what `TextSearch` (the calendar's `/`)
/// matches: the same table of cases, each text stored as a title and as a note.
@Suite struct SearchTests {
  @Test("a search finds what TextSearch matches, and nothing else", arguments: StoreKind.allCases)
  func sameAsTextSearch(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      let start = TestClock.date(2026, 12, 1, 9)
      let texts = Array(Set(SearchCases.table.map(\.text))).sorted()
      var stored: [Appointment] = []
      for (index, text) in texts.enumerated() {
        let at = start.addingTimeInterval(TimeInterval(index * 3600))
        stored.append(try await dao.saveAppointment(appointment(text, from: at, to: at.addingTimeInterval(1800))))
        let noted = appointment("note \(index)", from: at, to: at.addingTimeInterval(1800), note: text)
        stored.append(try await dao.saveAppointment(noted))
      }
      let window = DateInterval(start: start, duration: TimeInterval(texts.count * 3600))
      for example in SearchCases.table {
        let search = TextSearch(example.search)
        let expected = Set(stored.filter(search.matches).map(\.id))
        for range in [nil, window] {
          let found = try await dao.appointments(matching: AppointmentQuery(range: range, search: example.search))
          #expect(Set(found.map(\.id)) == expected, "\(example) (\(range == nil ? "--all" : "a window"))")
        }
        let asTitle = try #require(stored.first { $0.title == example.text })
        let asNote = try #require(stored.first { $0.note == example.text })
        #expect(expected.contains(asTitle.id) == example.matches, "\(example) as a title")
        #expect(expected.contains(asNote.id) == example.matches, "\(example) as a note")
      }
    }
  }
}
