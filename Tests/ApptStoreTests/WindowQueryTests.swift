import ApptCore
import ApptStore
import ApptTestSupport
import Foundation
import Testing

/// `AppointmentDAO.appointments(matching:)`: windows, cancelled, search, limit and order.
@Suite("Window queries")
struct WindowQueryTests {
  /// The window of Tuesday 1 December 2026 (Paris).
  let day = window(december(1), december(2))

  @Test("a window holds the appointments intersecting [start, end)", arguments: StoreKind.allCases)
  func overlapSemantics(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      let endsAtStart = appointment(
        "ends at window start",
        from: december(1).addingTimeInterval(-3_600),
        to: december(1)
      )
      let startsAtEnd = appointment("starts at window end", from: december(2), to: december(2, 1))
      let startsAtStart = appointment("starts at window start", from: december(1), to: december(1, 1))
      let endsJustInside = appointment(
        "ends 1 ms inside",
        from: december(1).addingTimeInterval(-600),
        to: december(1).addingTimeInterval(0.001)
      )
      let startsJustInside = appointment(
        "starts 1 ms before the end",
        from: december(2).addingTimeInterval(-0.001),
        to: december(2, 2)
      )
      let spansAll = appointment("spans the window", from: december(1).addingTimeInterval(-60), to: december(2, 0, 1))
      let middle = appointment("middle", from: december(1, 12), to: december(1, 13))
      let otherDay = appointment("other day", from: december(3, 12), to: december(3, 13))
      for item in [
        endsAtStart, startsAtEnd, startsAtStart, endsJustInside, startsJustInside, spansAll, middle, otherDay,
      ] {
        try await dao.saveAppointment(item)  // stored at revision 1
      }

      let found = try await dao.appointments(matching: AppointmentQuery(range: day))
      #expect(found.map(\.title) == [endsJustInside, spansAll, startsAtStart, middle, startsJustInside].map(\.title))
      #expect(found.map(\.id) == [endsJustInside, spansAll, startsAtStart, middle, startsJustInside].map(\.id))
    }
  }

  @Test(
    "an appointment that started days before the window and ends inside it is included",
    arguments: StoreKind.allCases
  )
  func longAppointmentStartingBeforeTheWindow(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      // Three days long, ending at 10:00 on the observed day.
      var conference = appointment(
        "Conference",
        from: december(1, 10).addingTimeInterval(-3 * 86_400),
        to: december(1, 10)
      )
      // Many short ones before the window, so a scan bounded by a short length would miss it.
      for index in 0..<20 {
        let start = december(1).addingTimeInterval(Double(-(index + 1)) * 3_600 * 5)
        try await dao.saveAppointment(appointment("short \(index)", from: start, to: start.addingTimeInterval(1_800)))
      }
      conference = try await dao.saveAppointment(conference)
      var lunch = appointment("Lunch", from: december(1, 12), to: december(1, 13))
      lunch = try await dao.saveAppointment(lunch)

      #expect(try await dao.appointments(matching: AppointmentQuery(range: day)) == [conference, lunch])
      // A window entirely inside the conference.
      let inside = window(december(1).addingTimeInterval(-2 * 86_400), december(1).addingTimeInterval(-86_400))
      #expect(try await dao.appointments(matching: AppointmentQuery(range: inside)).contains(conference))
      // The longest one bounds the scan even when it is cancelled and the query shows cancelled ones.
      try await dao.cancelAppointment(id: conference.id)
      #expect(try await dao.appointments(matching: AppointmentQuery(range: day)) == [lunch])
      let withCancelled = try await dao.appointments(matching: AppointmentQuery(range: day, includeCancelled: true))
      #expect(withCancelled.map(\.id) == [conference.id, lunch.id])
    }
  }

  @Test("cancelled appointments are hidden unless asked for", arguments: StoreKind.allCases)
  func cancelledHidden(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      var kept = appointment("kept", from: december(1, 9), to: december(1, 10))
      var dropped = appointment("dropped", from: december(1, 11), to: december(1, 12), status: .cancelled)
      kept = try await dao.saveAppointment(kept)
      dropped = try await dao.saveAppointment(dropped)
      #expect(try await dao.appointments(matching: AppointmentQuery(range: day)) == [kept])
      #expect(try await dao.appointments(matching: AppointmentQuery(range: nil)) == [kept])
      #expect(
        try await dao.appointments(matching: AppointmentQuery(range: day, includeCancelled: true)) == [kept, dropped]
      )
      #expect(
        try await dao.appointments(matching: AppointmentQuery(range: nil, includeCancelled: true)) == [kept, dropped]
      )
    }
  }

  @Test("search looks in the title and the note, ignoring case", arguments: StoreKind.allCases)
  func search(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      let dentist = appointment("Dentist", from: december(1, 9), to: december(1, 10), note: "bring the X-RAYS")
      let lunch = appointment(
        "Lunch with Ana",
        from: december(1, 12),
        to: december(1, 13),
        note: "at the dentist's corner"
      )
      let percent = appointment("100% review_meeting", from: december(1, 14), to: december(1, 15))
      let cancelled = appointment("Dentist again", from: december(1, 16), to: december(1, 17), status: .cancelled)
      for item in [dentist, lunch, percent, cancelled] { try await dao.saveAppointment(item) }

      func titles(_ text: String, cancelled: Bool = false) async throws -> [String] {
        try await dao.appointments(matching: AppointmentQuery(range: day, includeCancelled: cancelled, search: text))
          .map(\.title)
      }
      #expect(try await titles("DENTIST") == ["Dentist", "Lunch with Ana"])
      #expect(try await titles("x-ray") == ["Dentist"])
      #expect(try await titles("ana") == ["Lunch with Ana"])
      #expect(try await titles("dentist", cancelled: true) == ["Dentist", "Lunch with Ana", "Dentist again"])
      // Not LIKE patterns: % and _ are plain characters.
      #expect(try await titles("%") == ["100% review_meeting"])
      #expect(try await titles("w_m") == ["100% review_meeting"])
      #expect(try await titles("nothing like it").isEmpty)
      // An empty search is no search.
      #expect(try await titles("").count == 3)
      // Search without a window looks everywhere.
      let anywhere = try await dao.appointments(matching: AppointmentQuery(range: nil, search: "LUNCH"))
      #expect(anywhere == [lunch.atRevision(1)])
    }
  }

  /// Regression: the haystack was folded with SQLite's `lower()` (ASCII only), so "ÉQUIPE" was
  /// not found by "équipe" nor "Été" by "ÉTÉ"; the search keys fold as `TextSearch` does (SearchTests).
  @Test("search ignores case beyond ASCII", arguments: StoreKind.allCases)
  func searchNonASCII(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      var meeting = appointment("Réunion ÉQUIPE", from: december(1, 9), to: december(1, 10), note: "Ordre du jour: Été")
      meeting = try await dao.saveAppointment(meeting)
      // Same case as stored works.
      #expect(try await dao.appointments(matching: AppointmentQuery(range: nil, search: "Réunion")) == [meeting])
      let byTitle = try await dao.appointments(matching: AppointmentQuery(range: nil, search: "équipe"))
      let byNote = try await dao.appointments(matching: AppointmentQuery(range: nil, search: "ÉTÉ"))
      #expect(byTitle == [meeting])
      #expect(byNote == [meeting])
    }
  }

  @Test("limit keeps the first appointments in display order", arguments: StoreKind.allCases)
  func limit(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      var saved: [Appointment] = []
      for hour in [15, 9, 12, 10, 17] {
        var item = appointment("at \(hour)", from: december(1, hour), to: december(1, hour, 30))
        item = try await dao.saveAppointment(item)
        saved.append(item)
      }
      let ordered = saved.sorted(by: Appointment.displayOrder)
      #expect(try await dao.appointments(matching: AppointmentQuery(range: day, limit: 2)) == Array(ordered.prefix(2)))
      #expect(try await dao.appointments(matching: AppointmentQuery(range: nil, limit: 3)) == Array(ordered.prefix(3)))
      #expect(try await dao.appointments(matching: AppointmentQuery(range: day, limit: 0)).isEmpty)
      #expect(try await dao.appointments(matching: AppointmentQuery(range: day, limit: 100)) == ordered)
    }
  }

  @Test("display order is start, end, title, id", arguments: StoreKind.allCases)
  func displayOrder(kind: StoreKind) async throws {
    try await withStore(kind) { dao async throws in
      let idLow = try craftedID("00000000-0000-4000-8000-000000000001")
      let idHigh = try craftedID("ffffffff-0000-4000-8000-000000000001")
      let items = [
        appointment("B same", from: december(1, 10), to: december(1, 11), id: idHigh),
        appointment("B same", from: december(1, 10), to: december(1, 11), id: idLow),
        appointment("A title", from: december(1, 10), to: december(1, 11)),
        appointment("Z shorter", from: december(1, 10), to: december(1, 10, 30)),
        appointment("Y earliest", from: december(1, 9), to: december(1, 12)),
        appointment("a lower-case title sorts after upper-case", from: december(1, 10), to: december(1, 11)),
      ]
      for item in items { try await dao.saveAppointment(item) }
      let expected = items.map { $0.atRevision(1) }.sorted(by: Appointment.displayOrder)
      #expect(
        expected.map(\.title) == [
          "Y earliest", "Z shorter", "A title", "B same", "B same", "a lower-case title sorts after upper-case",
        ]
      )
      #expect(expected[3].id == idLow)
      #expect(try await dao.appointments(matching: AppointmentQuery(range: day)) == expected)
      #expect(try await dao.getAllAppointments() == expected)
    }
  }

  @Test("random windows agree with a plain filter over all appointments")
  func modelBased() async throws {
    let dao = TestStore.memoryDAO()
    var random = SplitMix64(seed: 0xA11_0CA7E)
    let base = december(1)
    var all: [Appointment] = []
    for index in 0..<300 {
      let start = base.addingTimeInterval(Double(Int.random(in: -20 * 24...20 * 24, using: &random)) * 3_600)
      // Mostly short, sometimes days long.
      let minutes =
        Bool.random(using: &random)
        ? Int.random(in: 5...240, using: &random) : Int.random(in: 1...(5 * 1_440), using: &random)
      let status: Appointment.Status = Int.random(in: 0..<5, using: &random) == 0 ? .cancelled : .scheduled
      let title = ["alpha", "Beta", "gamma", "Delta"][Int.random(in: 0..<4, using: &random)] + " \(index % 7)"
      let item = appointment(title, from: start, to: start.addingTimeInterval(Double(minutes * 60)), status: status)
      all.append(item.atRevision(1))  // the generic layer stores values as they are
    }
    try await dao.service.save(all: all)

    for _ in 0..<60 {
      let from = base.addingTimeInterval(Double(Int.random(in: -25 * 24...25 * 24, using: &random)) * 3_600)
      let to = from.addingTimeInterval(Double(Int.random(in: 1...(10 * 24), using: &random)) * 3_600)
      let includeCancelled = Bool.random(using: &random)
      let search: String? =
        Bool.random(using: &random) ? ["ALPHA", "a 3", "ta"][Int.random(in: 0..<3, using: &random)] : nil
      let limit: Int? = Bool.random(using: &random) ? Int.random(in: 0...10, using: &random) : nil
      let query = AppointmentQuery(
        range: window(from, to),
        includeCancelled: includeCancelled,
        search: search,
        limit: limit
      )

      var expected = all.filter { item in
        item.overlaps(from: from, to: to) && (includeCancelled || item.status == .scheduled)
          && (search.map { item.title.lowercased().contains($0.lowercased()) } ?? true)
      }.sorted(by: Appointment.displayOrder)
      if let limit { expected = Array(expected.prefix(limit)) }
      let found = try await dao.appointments(matching: query)
      #expect(found == expected, "query \(query)")
    }
  }
}
