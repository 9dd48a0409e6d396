import ApptCore
import ApptTestSupport
import Testing

/// `TextSearch` is what "matches" means everywhere; the same table is run through the
/// calendar's `/` (ApptUITests) and `list --search` on both engines (ApptStoreTests).
@Suite struct TextSearchTests {
  @Test(arguments: SearchCases.table)
  func matchesAsTheTableSays(_ example: SearchCases.Case) {
    #expect(TextSearch(example.search).matches(example.text) == example.matches)
  }

  @Test func theTitleOrTheNote() {
    let appointment = Appointment(
      title: "Dentist",
      start: .distantPast,
      end: .distantFuture,
      note: "X-rays",
      location: "Straße 5",
      created: .now
    )
    #expect(TextSearch("x-RAYS").matches(appointment))
    #expect(TextSearch("STRASSE").matches(appointment), "the location too")
    #expect(TextSearch("dentist").matches(appointment))
    #expect(!TextSearch("dentist x-rays").matches(appointment), "not across the two")
  }

  @Test func foldedIsAFixedPoint() {
    for example in SearchCases.table {
      for text in [example.search, example.text] {
        let folded = TextSearch.folded(text)
        #expect(TextSearch.folded(folded) == folded, "\(text)")
      }
    }
  }
}
