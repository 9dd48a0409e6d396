// Series with changed occurrences go both ways as one server object (master and overrides,
// one UID), and a conflict keeps the local version where `appt conflicts` finds it: on the
// real store.

import ApptCalDAV
import ApptCore
import ApptStore
import ApptSync
import Foundation
import Testing

@Suite("sync engine: series and conflicts on the real store", .serialized)
struct SeriesTests {
  static let kinds = StoreKind.available.filter { $0 != .fake }

  /// A weekly series of 4 with its second occurrence moved and renamed.
  static let seriesWithOverride = """
    BEGIN:VCALENDAR\r
    VERSION:2.0\r
    PRODID:-//tests//peer//EN\r
    BEGIN:VEVENT\r
    UID:series-1\r
    DTSTAMP:20261201T120000Z\r
    DTSTART:20261207T100000Z\r
    DTEND:20261207T110000Z\r
    RRULE:FREQ=WEEKLY;COUNT=4\r
    SUMMARY:Weekly\r
    END:VEVENT\r
    BEGIN:VEVENT\r
    UID:series-1\r
    DTSTAMP:20261201T120000Z\r
    RECURRENCE-ID:20261214T100000Z\r
    DTSTART:20261214T150000Z\r
    DTEND:20261214T160000Z\r
    SUMMARY:Weekly (moved)\r
    END:VEVENT\r
    END:VCALENDAR\r

    """

  @Test("a series with an override comes in as one item and goes back with a new override", arguments: kinds)
  func seriesBothWays(kind: StoreKind) async throws {
    let h = try Harness(kind)
    let local = try #require(h.local as? DAOTestStore)
    await h.server.clientPut("work", "series-1.ics", Self.seriesWithOverride)
    let first = try await h.good()
    #expect(first.new == 1)
    let rows = try await local.rows(Harness.calendar)
    #expect(rows.count == 2)
    let master = try #require(rows.first { $0.override == nil })
    #expect(rows.first { $0.override != nil }?.title == "Weekly (moved)")
    #expect(rows.first { $0.override != nil }?.override?.seriesID == master.id)

    // Here: the third occurrence is renamed (a second override).
    var edit = EditRequest(id: master.id.description, title: "Weekly (third)")
    edit.occurrence = testClock.startOfDay(Date(timeIntervalSince1970: 1_797_847_200))  // 2026-12-21 10:00Z
    _ = try await local.dao.editAppointment(edit)
    let pushed = try await h.good()
    #expect((pushed.pushed, pushed.conflicts, pushed.pending) == (1, 0, 0))
    let object = try #require(await h.server.objects("work")["/cal/u/work/series-1.ics"])
    #expect(object.components(separatedBy: "BEGIN:VEVENT").count - 1 == 3)
    #expect(object.contains("SUMMARY:Weekly (third)") && object.contains("SUMMARY:Weekly (moved)"))
    #expect(object.components(separatedBy: "RECURRENCE-ID").count - 1 == 2)
    #expect(await h.server.objects("work").count == 1)

    // There: the override is dropped again (the series as it was): it goes here too.
    await h.server.clientPut("work", "series-1.ics", Self.seriesWithOverride)
    let pulled = try await h.good()
    #expect((pulled.changed, pulled.conflicts) == (1, 0))
    #expect(try await local.rows(Harness.calendar).count == 2)
  }

  @Test("the local version that lost is kept as a conflict, resolve --keep local sends it", arguments: kinds)
  func conflictThenResolve(kind: StoreKind) async throws {
    let h = try Harness(kind)
    let local = try #require(h.local as? DAOTestStore)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    try await h.good()
    await h.server.clientPut("work", "a.ics", event("a", "Server's"))
    try await local.editLocal(Harness.calendar, uid: "a", title: "Mine")
    #expect(try await h.good().conflicts == 1)
    let conflicts = try await local.dao.conflicts()
    #expect(conflicts.count == 1)
    #expect(conflicts.first?.title == "Mine" && conflicts.first?.calendar == Harness.calendar)
    #expect(conflicts.first?.localICS.contains("SUMMARY:Mine") == true)
    let id = try #require(conflicts.first?.id)
    _ = try await local.dao.resolveConflict(id: id.description, keep: .local)
    let sent = try await h.good()
    #expect((sent.pushed, sent.conflicts, sent.pending) == (1, 0, 0))
    #expect(await h.serverTitles() == ["a": "Mine"])
  }
}
