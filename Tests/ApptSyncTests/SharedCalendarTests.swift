// Calendars shared with other clients: an event is (calendar, UID), so one UID may live in
// two calendars, and an event another client moves between two calendars of the account
// moves here too, keeping its id, and an edit not yet sent meets it as a conflict.

import ApptCalDAV
import ApptCore
import ApptSync
import Foundation
import Testing

@testable import ApptStore

@Suite("shared calendars", .serialized)
struct SharedCalendarTests {
  static let kinds = StoreKind.available
  static let home = "acct/Home"

  func harness(_ kind: StoreKind) async throws -> Harness {
    try Harness(kind, server: FakeServer(calendars: ["work", "home"]))
  }

  @Test("one UID in two calendars is two events, each kept on its own server", arguments: kinds)
  func oneUIDInTwoCalendars(kind: StoreKind) async throws {
    let h = try await harness(kind)
    await h.server.clientPut("work", "m.ics", event("m", "Board (work invitation)"))
    await h.server.clientPut("home", "m.ics", event("m", "Board (home invitation)"))
    let summaries = try await h.sync()
    #expect(summaries.map(\.new) == [1, 1] && summaries.allSatisfy { $0.error == nil })
    #expect(try await h.local.titles(Harness.calendar) == ["m": "Board (work invitation)"])
    #expect(try await h.local.titles(Self.home) == ["m": "Board (home invitation)"])
    await h.server.resetRequests()
    let again = try await h.sync()
    #expect(again.map(\.pushed) == [0, 0] && again.map(\.deleted) == [0, 0])
    #expect(await h.methods().filter { $0 == "DELETE" || $0 == "PUT" }.isEmpty)
    let (work, home) = (await h.server.objects("work"), await h.server.objects("home"))
    #expect(work.count == 1 && home.count == 1)
  }

  @Test("an event another client moves between calendars moves here, keeping its id", arguments: kinds)
  func movedByAnotherClient(kind: StoreKind) async throws {
    for (from, to, fromName, toName) in [
      ("work", "home", Harness.calendar, Self.home), ("home", "work", Self.home, Harness.calendar),
    ] {
      let h = try await harness(kind)
      await h.server.clientPut(from, "t.ics", event("t", "Trip"))
      try await h.sync()
      let id = try #require(try await h.local.id(fromName, uid: "t"))
      // The phone: a PUT in the other calendar and a DELETE here.
      await h.server.clientPut(to, "t.ics", event("t", "Trip (moved)"))
      await h.server.clientDelete(from, "t.ics")
      let summaries = try await h.sync()
      #expect(summaries.allSatisfy { $0.error == nil && $0.pushed == 0 }, "\(summaries)")
      #expect(try await h.local.titles(fromName).isEmpty, "\(from) -> \(to)")
      #expect(try await h.local.titles(toName) == ["t": "Trip (moved)"])
      #expect(try await h.local.id(toName, uid: "t") == id, "the same appointment, \(from) -> \(to)")
      #expect(try await h.local.conflictCount() == 0)
      let (left, reached) = (await h.server.objects(from), await h.server.objects(to))
      #expect(left.isEmpty && reached.count == 1)
    }
  }

  @Test("a move that meets an edit not yet sent is a conflict: nothing lost", arguments: kinds)
  func moveMeetsLocalEdit(kind: StoreKind) async throws {
    let h = try await harness(kind)
    await h.server.clientPut("work", "t.ics", event("t", "Trip"))
    try await h.sync()
    let id = try #require(try await h.local.id(Harness.calendar, uid: "t"))
    try await h.local.editLocal(Harness.calendar, uid: "t", title: "Trip, with the tickets")
    await h.server.clientPut("home", "t.ics", event("t", "Trip"))
    await h.server.clientDelete("work", "t.ics")
    let summaries = try await h.sync()
    #expect(summaries.map(\.conflicts) == [0, 1], "the conflict is the moved event's: \(summaries)")
    #expect(try await h.local.titles(Harness.calendar).isEmpty)
    #expect(try await h.local.titles(Self.home) == ["t": "Trip"])
    #expect(try await h.local.id(Self.home, uid: "t") == id)
    #expect(try await h.local.conflictCount() == 1, "the edit is kept, to be settled")
    // Not sent back to where it was, and the server's copy is not overwritten.
    #expect(await h.server.objects("work").isEmpty)
    #expect(await h.serverTitles(in: "home") == ["t": "Trip"])
  }
}

extension SharedCalendarTests {
  @Test("a move cut at any request of its sync is a move after the next", arguments: [StoreKind.fake, .sqlite])
  func moveInterruptedAnywhere(kind: StoreKind) async throws {
    for (from, to, fromName, toName) in [
      ("work", "home", Harness.calendar, Self.home), ("home", "work", Self.home, Harness.calendar),
    ] {
      /// Synced, then moved by the phone; the requests of the next sync counted from 1.
      func moved() async throws -> (Harness, AppointmentID) {
        let h = try await harness(kind)
        await h.server.clientPut(from, "t.ics", event("t", "Trip"))
        try await h.sync()
        let id = try #require(try await h.local.id(fromName, uid: "t"))
        await h.server.clientPut(to, "t.ics", event("t", "Trip (moved)"))
        await h.server.clientDelete(from, "t.ics")
        await h.server.resetRequests()
        return (h, id)
      }
      let (clean, _) = try await moved()
      try await clean.sync()
      let total = await clean.server.requests.count
      for fault in [FakeServer.Fault.unreachable, .lostAnswer, .status(500)] {
        for cut in 1...total {
          let (h, id) = try await moved()
          await h.server.setFaults { number, _ in number == cut ? fault : nil }
          try await h.sync()
          await h.server.clearFaults()
          let summaries = try await h.sync()
          let what = "\(from) -> \(to), \(fault) at request \(cut)"
          #expect(summaries.allSatisfy { $0.error == nil }, "\(what): \(summaries)")
          #expect(try await h.local.titles(fromName).isEmpty, "\(what)")
          #expect(try await h.local.titles(toName) == ["t": "Trip (moved)"], "\(what)")
          #expect(try await h.local.id(toName, uid: "t") == id, "the same appointment: \(what)")
          #expect(try await h.local.conflictCount() == 0, "\(what)")
          let (left, reached) = (await h.server.objects(from), await h.server.objects(to))
          #expect(left.isEmpty && reached.count == 1, "\(what)")
        }
      }
    }
  }

  @Test("an event the server moves to another href of its calendar stays, with its id", arguments: StoreKind.available)
  func newHrefInOneCalendar(kind: StoreKind) async throws {
    let h = try await harness(kind)
    await h.server.clientPut("work", "x.ics", event("x", "Exam"))
    try await h.sync()
    let id = try #require(try await h.local.id(Harness.calendar, uid: "x"))
    await h.server.clientDelete("work", "x.ics")
    await h.server.clientPut("work", "renamed.ics", event("x", "Exam (room 2)"))
    let summaries = try await h.sync()
    #expect(summaries.allSatisfy { $0.error == nil && $0.deleted == 0 }, "\(summaries)")
    #expect(try await h.local.titles(Harness.calendar) == ["x": "Exam (room 2)"])
    #expect(try await h.local.id(Harness.calendar, uid: "x") == id)
    let held = await h.server.objects("work").keys
    #expect(held.count == 1 && held.allSatisfy { $0.hasSuffix("/renamed.ics") }, "\(held)")
  }
}

extension Harness {
  /// The server's events of `calendar`: UID -> SUMMARY.
  func serverTitles(in calendar: String) async -> [String: String] {
    var titles: [String: String] = [:]
    for ics in await server.objects(calendar).values {
      for appointment in ICalendar.read(ics, clock: testClock).appointments where appointment.override == nil {
        if let uid = appointment.uid { titles[uid] = appointment.title }
      }
    }
    return titles
  }
}
