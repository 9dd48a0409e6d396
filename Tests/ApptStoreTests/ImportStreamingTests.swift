import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// `importCalendar`: a file parsed and stored a batch at a time inside ONE transaction, so
/// memory stays flat in the file's size while an import is still all or nothing.
@Suite struct ImportStreamingTests {
  func calendar(_ lines: [String]) -> [UInt8] {
    Array(
      ((["BEGIN:VCALENDAR", "VERSION:2.0"] + lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n").utf8
    )
  }

  func event(_ uid: String, day: Int, sequence: Int = 0, title: String? = nil, _ more: [String] = []) -> [String] {
    let start = "202612\(day < 10 ? "0" : "")\(day)T090000Z"
    return ["BEGIN:VEVENT", "UID:\(uid)", "SEQUENCE:\(sequence)", "SUMMARY:\(title ?? uid)", "DTSTART:\(start)"]
      + ["DURATION:PT1H"] + more + ["END:VEVENT"]
  }

  func events(_ count: Int) -> [String] {
    (1...count).flatMap { event("e\($0)@example.com", day: $0) }
  }

  @Test(arguments: StoreKind.allCases)
  func anImportHoldsOneBatchAtATime(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let report = try await dao.importCalendar(
        bytes: calendar(events(9)),
        clock: TestClock.clock,
        partial: false,
        batchSize: 2
      )
      #expect(report.stored && report.added == 9 && report.read.count == 9)
      #expect(report.mostHeld == 2, "never more than one batch of parsed events")
      #expect(try await dao.getAllAppointments().count == 9)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aProblemInALaterBatchLeavesTheStoreUnchanged(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let kept = try await dao.saveAppointment(TestStore.appointment("Kept", TestClock.date(2026, 12, 20, 9)))
      // Three batches stored before the event without DTSTART in the last one is read.
      let file = calendar(events(6) + ["BEGIN:VEVENT", "UID:broken@example.com", "END:VEVENT"])
      let refused = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: false, batchSize: 2)
      #expect(!refused.stored && refused.read.problems.count == 1)
      #expect(try await dao.getAllAppointments() == [kept], "nothing of the earlier batches stays")
      let partial = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: true, batchSize: 2)
      #expect(partial.stored && partial.added == 6 && partial.read.count == 6)
      #expect(try await dao.getAllAppointments().count == 7)
    }
  }

  @Test func aStoreFailureInALaterBatchLeavesTheStoreUnchanged() async throws {
    try await withStore(.file) { dao in
      let first = try await dao.importCalendar(bytes: calendar(events(2)), clock: TestClock.clock, partial: false)
      #expect(first.added == 2)
      let before = try await dao.getAllAppointments()
      // A write the file cannot make fail, made to fail: the fifth event, in the third batch.
      try await dao.database.write { connection throws(StoreError) in
        try connection.execute(
          """
          CREATE TRIGGER refuse_e5 BEFORE INSERT ON appointment WHEN NEW.uid = 'e5@example.com'
          BEGIN SELECT RAISE(ABORT, 'refused'); END
          """
        )
      }
      await #expect(throws: StoreError.self) {
        try await dao.importCalendar(bytes: calendar(events(6)), clock: TestClock.clock, partial: false, batchSize: 2)
      }
      #expect(try await dao.getAllAppointments() == before, "e3 and e4, stored in the batch before, are gone too")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aLaterCopyInTheSameBatchFindsTheFirstAndAStoredUIDIsUpdated(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      // Stored before: b. In one batch: a, b again (changed), a again (a later SEQUENCE), c.
      _ = try await dao.importCalendar(
        bytes: calendar(event("b@example.com", day: 2)),
        clock: TestClock.clock,
        partial: false
      )
      let file = calendar(
        event("a@example.com", day: 1, sequence: 1) + event("b@example.com", day: 2, title: "b, renamed")
          + event("a@example.com", day: 4, sequence: 2, title: "a, moved") + event("c@example.com", day: 3)
      )
      let report = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: false)
      #expect((report.added, report.updated, report.unchanged) == (2, 1, 0))
      let stored = try await dao.getAllAppointments()
      #expect(stored.count == 3)
      #expect(Set(stored.map(\.title)) == ["a, moved", "b, renamed", "c@example.com"])
      #expect(stored.first { $0.uid == "a@example.com" }?.start == TestClock.date(2026, 12, 4, 10))
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aLaterCopyInALaterBatchCountsOnce(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let file = calendar(
        event("a@example.com", day: 1, sequence: 1) + event("b@example.com", day: 2) + event("c@example.com", day: 3)
          + event("a@example.com", day: 4, sequence: 2, title: "a, moved")
      )
      let report = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: false, batchSize: 1)
      #expect((report.added, report.updated, report.unchanged) == (3, 0, 0) && report.read.count == 3)
      let stored = try await dao.getAllAppointments()
      #expect(Set(stored.map(\.title)) == ["a, moved", "b@example.com", "c@example.com"])
      let again = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: false, batchSize: 1)
      #expect((again.added, again.updated, again.unchanged) == (0, 0, 3))
      #expect(try await dao.getAllAppointments() == stored)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aLaterCopyInTheSameBatchWinsThoughItStartsEarlier(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      // One batch (the reader merges copies within its batches; a caller's array need not),
      // stored in start order but for this: of two copies with the same SEQUENCE the later
      // one wins, so it must still be stored after the first though it starts earlier.
      func copy(_ title: String, day: Int) -> Appointment {
        var appointment = TestStore.appointment(title, TestClock.date(2026, 12, day, 9))
        appointment.uid = "a@example.com"
        return appointment
      }
      let others = [TestStore.appointment("b", TestClock.date(2026, 12, 5, 9))]
      let counts = try await dao.importAppointments([copy("a", day: 9)] + others + [copy("a, moved earlier", day: 2)])
      #expect(counts == (2, 1, 0, 0))
      let stored = try await dao.getAllAppointments()
      #expect(Set(stored.map(\.title)) == ["a, moved earlier", "b"])
      #expect(stored.first { $0.uid == "a@example.com" }?.start == TestClock.date(2026, 12, 2, 9))
    }
  }

  @Test(arguments: StoreKind.allCases)
  func copiesInLaterBatchesAreFoundInTheImportsTableNotInMemory(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      // e2 again with a higher SEQUENCE (it wins), then with one between (it loses), batches
      // after the first; an override of the series twice, in two batches.
      let file = calendar(
        event("series@example.com", day: 1, ["RRULE:FREQ=DAILY;COUNT=5"]) + events(6)
          + event("e2@example.com", day: 12, sequence: 2, title: "e2, moved")
          + event("e2@example.com", day: 13, sequence: 1, title: "e2, older")
          + event("series@example.com", day: 20, title: "moved", ["RECURRENCE-ID:20261202T090000Z"])
          + (7...9).flatMap { event("e\($0)@example.com", day: $0) }
          + event("series@example.com", day: 21, title: "moved again", ["RECURRENCE-ID:20261202T090000Z"])
      )
      let report = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: false, batchSize: 2)
      let whole = ICalendar.read(bytes: file, clock: TestClock.clock)
      #expect(report.stored && report.read.notices == whole.notices, "\(report.read.notices)")
      #expect(whole.notices.count == 3, "one note per copy: \(whole.notices)")
      #expect(report.read.mostKeysHeld == 2, "one batch of keys in memory")
      #expect((report.added, report.updated, report.unchanged) == (11, 0, 0) && report.read.count == 11)
      let stored = try await dao.getAllAppointments()
      #expect(Set(stored.map(\.title)).isSuperset(of: ["e2, moved", "moved again"]))
      #expect(!stored.contains { ["e2@example.com", "e2, older", "moved"].contains($0.title) })
      // The table went with the import: the same file again finds every event stored.
      let again = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: false, batchSize: 2)
      #expect((again.added, again.updated, again.unchanged) == (0, 0, 11))
      #expect(try await dao.getAllAppointments() == stored)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aUIDInAnotherUnicodeFormIsTheSameEventInALaterBatch(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      // "café" composed (U+00E9) first, decomposed (e + U+0301) three batches later: Swift's
      // == holds them equal, so must the import's table.
      let file = calendar(
        event("caf\u{E9}@example.com", day: 1) + events(6)
          + event("cafe\u{301}@example.com", day: 12, sequence: 1, title: "moved")
      )
      let report = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: false, batchSize: 2)
      #expect(report.read.notices == ICalendar.read(bytes: file, clock: TestClock.clock).notices)
      #expect(report.read.notices.count == 1 && report.added == 7, "\(report.read.notices)")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aNestedCalendarBeforeTheFirstEventImportsItsEvents(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let inner = ["BEGIN:VCALENDAR", "VERSION:2.0"] + event("inner@example.com", day: 1) + ["END:VCALENDAR"]
      let file = calendar(inner + events(3))
      let report = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: false, batchSize: 2)
      #expect(report.stored && report.added == 4, "\(report.read.notices)")
      #expect(try await dao.getAllAppointments().contains { $0.uid == "inner@example.com" })
    }
  }

  @Test func aFailureToKeepTheKeysStopsTheReaderWithIt() throws {
    let directory = TemporaryDirectory()
    // A database that cannot be opened: the directory it would be in does not exist.
    let unopenable = directory.file("missing/keys.sqlite3").path
    let file = calendar(events(5))
    let reader = ImportReader(keysFile: unopenable) { kept, sink in
      .read(ICalendar.read(bytes: file, clock: TestClock.clock, batchSize: 2, kept: kept, sink: sink))
    }
    var batches = 0
    var end: ImportReader.ReadStep?
    while end == nil {
      switch reader.next() {
      case .batch: batches += 1
      case .end(let step): end = step
      }
    }
    reader.finish()
    guard case .failed(let error) = end else {
      Issue.record("the reader went on without its keys: \(String(describing: end))")
      return
    }
    #expect(error.description.contains("the import's keys"), "\(error)")
    #expect(batches == 0, "the first batch's keys could not be kept: no batch is handed on")
  }

  @Test(arguments: StoreKind.allCases)
  func aFailureOfTheReaderFailsTheImportAndChangesNothing(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let kept = try await dao.saveAppointment(TestStore.appointment("Kept", TestClock.date(2026, 12, 20, 9)))
      let file = calendar(events(6))
      let failure = StoreError.invalidRequest(message: "import: cannot read f.ics: Input/output error")
      let served = Locked(0)
      var thrown: StoreError?
      do {
        // Two batches stored, then the reader fails (as reading a piece does).
        _ = try await dao.importCalendar(
          chunks: { () throws(StoreError) in
            let count = served.withLock { count in
              count += 1
              return count
            }
            if count > 1 { throw failure }
            return Array(file.prefix(file.count * 2 / 3))
          },
          whole: { () throws(StoreError) in file },
          clock: TestClock.clock,
          partial: true,
          batchSize: 2
        )
      } catch {
        thrown = error as? StoreError
      }
      #expect(thrown == failure)
      #expect(try await dao.getAllAppointments() == [kept], "on every engine")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func anOverrideBeforeItsSeriesInAnEarlierBatchIsLinkedAtItsFirstRevision(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let file = calendar(
        event("daily@example.com", day: 9, title: "moved", ["RECURRENCE-ID:20261208T090000Z"])
          + events(3) + event("daily@example.com", day: 7, title: "Daily", ["RRULE:FREQ=DAILY;COUNT=5"])
      )
      let report = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: false, batchSize: 1)
      #expect(report.added == 5)
      let stored = try await dao.getAllAppointments()
      let series = try #require(stored.first { $0.recurrence != nil })
      let override = try #require(stored.first { $0.override != nil })
      #expect(override.override?.seriesID == series.id && override.revision == 1)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aZoneAfterTheFirstEventIsReadWhole(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let file = calendar(
        ["BEGIN:VEVENT", "UID:z@example.com", "DTSTART;TZID=Custom:20261201T090000", "DURATION:PT1H", "END:VEVENT"]
          + events(3)
          + [
            "BEGIN:VTIMEZONE", "TZID:Custom", "BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:+0500",
            "TZOFFSETTO:+0500", "END:STANDARD", "END:VTIMEZONE",
          ]
      )
      let report = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: false, batchSize: 1)
      #expect(report.added == 4 && report.mostHeld == 4, "read whole, then stored")
      let zoned = try #require(try await dao.getAllAppointments().first { $0.uid == "z@example.com" })
      #expect(zoned.start == TestClock.date(2026, 12, 1, 5), "09:00 at +05:00 is 05:00 in Paris")
    }
  }
  /// `file` as pieces of `size` bytes, the way `import` reads a regular file.
  /// (Sendable: the import's reader thread calls it.)
  func pieces(_ file: [UInt8], size: Int) -> @Sendable () throws(StoreError) -> [UInt8]? {
    let rest = Locked(file[...])
    return { () throws(StoreError) in
      rest.withLock { rest in
        guard !rest.isEmpty else { return nil }
        defer { rest = rest.dropFirst(size) }
        return Array(rest.prefix(size))
      }
    }
  }

  @Test(arguments: StoreKind.allCases)
  func aFileReadInPiecesImportsAsItsBytesDo(kind: StoreKind) async throws {
    try await withStore(kind) { dao in
      let file = calendar(
        event("daily@example.com", day: 9, title: "moved", ["RECURRENCE-ID:20261208T090000Z"])
          + events(5) + event("daily@example.com", day: 7, title: "Daily", ["RRULE:FREQ=DAILY;COUNT=5"])
      )
      let report = try await dao.importCalendar(
        chunks: pieces(file, size: 7),
        whole: { () throws(StoreError) in
          Issue.record("read whole")
          return file
        },
        clock: TestClock.clock,
        partial: false,
        batchSize: 2
      )
      #expect(report.stored && report.added == 7 && report.read.count == 7)
      #expect(report.mostHeld <= 3, "one batch and the override")
      let stored = try await dao.getAllAppointments()
      let again = try await dao.importCalendar(bytes: file, clock: TestClock.clock, partial: false, batchSize: 2)
      #expect((again.added, again.updated, again.unchanged) == (0, 0, 7))
      #expect(try await dao.getAllAppointments() == stored)
    }
  }

  @Test func aFileReadInPiecesIsReadWholeWhenALaterZoneChangesEarlierEvents() async throws {
    try await withStore(.file) { dao in
      let file = calendar(
        ["BEGIN:VEVENT", "UID:z@example.com", "DTSTART;TZID=Custom:20261201T090000", "DURATION:PT1H", "END:VEVENT"]
          + events(3)
          + [
            "BEGIN:VTIMEZONE", "TZID:Custom", "BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:+0500",
            "TZOFFSETTO:+0500", "END:STANDARD", "END:VTIMEZONE",
          ]
      )
      let report = try await dao.importCalendar(
        chunks: pieces(file, size: 5),
        whole: { () throws(StoreError) in file },
        clock: TestClock.clock,
        partial: false,
        batchSize: 1
      )
      #expect(report.added == 4 && report.mostHeld == 4, "read whole, then stored")
      let zoned = try #require(try await dao.getAllAppointments().first { $0.uid == "z@example.com" })
      #expect(zoned.start == TestClock.date(2026, 12, 1, 5), "09:00 at +05:00 is 05:00 in Paris")
    }
  }

  @Test func aFailureToReadAPieceLeavesTheStoreUnchanged() async throws {
    try await withStore(.file) { dao in
      let kept = try await dao.saveAppointment(TestStore.appointment("Kept", TestClock.date(2026, 12, 20, 9)))
      let file = calendar(events(6))
      let next = pieces(file, size: 100)
      let served = Locked(0)
      let failure = StoreError.invalidRequest(message: "import: cannot read f.ics: Input/output error")
      var thrown: StoreError?
      do {
        _ = try await dao.importCalendar(
          chunks: { () throws(StoreError) in
            let count = served.withLock { count in
              count += 1
              return count
            }
            // Cut off after a few events, stored already (a batch of one each).
            if count > 5 { throw failure }
            return try next()
          },
          whole: { () throws(StoreError) in file },
          clock: TestClock.clock,
          partial: true,
          batchSize: 1
        )
      } catch {
        thrown = error as? StoreError
      }
      #expect(thrown == failure)
      #expect(try await dao.getAllAppointments() == [kept], "nothing of the batches stored before stays")
    }
  }
}
