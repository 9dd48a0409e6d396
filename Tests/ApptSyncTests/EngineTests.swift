// The sync engine against FakeServer, on both stores (the fake and the real DAO): each of
// the sync's rules, and faults at every request of a sync followed by one more sync that must
// converge with nothing duplicated and nothing lost.

import ApptCalDAV
import ApptCore
import ApptSync
import Foundation
import Testing

@testable import ApptStore

enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case fake
  case sqlite
  /// The throwaway server of Tests/pg/with-server.sh (APPT_TEST_PG), a database per test.
  case postgres
  var testDescription: String { rawValue }

  /// The stores there are: PostgreSQL only under its test server.
  static var available: [StoreKind] {
    [.fake, .sqlite] + (ProcessInfo.processInfo.environment["APPT_TEST_PG"].map { $0.isEmpty ? [] : [.postgres] } ?? [])
  }

  func make() throws -> any TestStore {
    switch self {
    case .fake: FakeStore()
    case .sqlite: DAOTestStore(location: .inMemory)
    case .postgres: DAOTestStore(location: .postgres(url: try postgresDatabase()))
    }
  }
}

/// A new empty database on the APPT_TEST_PG server; its URL.
func postgresDatabase() throws -> String {
  let server = try #require(ProcessInfo.processInfo.environment["APPT_TEST_PG"])
  var components = try #require(URLComponents(string: server))
  let name = "appt_sync_test_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
  try PostgresConnection(url: server).execute("CREATE DATABASE \(name)")
  components.path = "/\(name)"
  return try #require(components.string)
}

/// A server event as another client writes it.
func event(_ uid: String, _ summary: String, day: Int = 1) -> String {
  let stamp = "20261201T120000Z"
  let dayText = String(format: "202612%02d", min(28, max(1, day)))
  return """
    BEGIN:VCALENDAR\r
    VERSION:2.0\r
    PRODID:-//tests//peer//EN\r
    BEGIN:VEVENT\r
    UID:\(uid)\r
    DTSTAMP:\(stamp)\r
    DTSTART:\(dayText)T100000Z\r
    DTEND:\(dayText)T110000Z\r
    SUMMARY:\(summary)\r
    X-PEER-PROPERTY:kept\r
    END:VEVENT\r
    END:VCALENDAR\r

    """
}

struct Harness {
  let server: FakeServer
  let local: any TestStore
  let engine: SyncEngine
  static let calendar = "acct/Work"

  init(_ kind: StoreKind, server: FakeServer = FakeServer()) throws {
    self.server = server
    local = try kind.make()
    engine = SyncEngine(store: local.store, clock: testClock)
  }

  var client: CalDAVClient {
    CalDAVClient(baseURL: FakeServer.base, credentials: Credentials(username: "u", password: "p"), transport: server)
  }

  @discardableResult
  func sync() async throws -> [CalendarSummary] {
    try await engine.sync(account: "acct", client: client)
  }

  /// Syncs and expects it to succeed for the one calendar; its summary.
  @discardableResult
  func good() async throws -> CalendarSummary {
    let summaries = try await sync()
    try #require(summaries.count == 1, "\(summaries)")
    #expect(summaries[0].error == nil, "\(summaries[0].error ?? "")")
    return summaries[0]
  }

  /// The server's events: UID -> SUMMARY.
  func serverTitles() async -> [String: String] {
    var titles: [String: String] = [:]
    for ics in await server.objects("work").values {
      let result = ICalendar.read(ics, clock: testClock)
      for appointment in result.appointments where appointment.override == nil {
        if let uid = appointment.uid {
          #expect(titles[uid] == nil, "UID \(uid) twice on the server")
          titles[uid] = appointment.title
        }
      }
    }
    return titles
  }

  func methods() async -> [String] {
    await server.requests.map { request in
      let body = String(decoding: request.body ?? Data(), as: UTF8.self)
      if request.method == "REPORT" { return body.contains("multiget") ? "MULTIGET" : "SYNC" }
      return request.method
    }
  }
}

@Suite("sync engine", .serialized)
struct EngineTests {
  static let kinds = StoreKind.available

  @Test("first sync: the server's events come in, the local one goes out", arguments: kinds)
  func firstSync(kind: StoreKind) async throws {
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    await h.server.clientPut("work", "b.ics", event("b", "Beta"))
    let first = try await h.good()
    #expect(first.calendar == Harness.calendar)
    #expect((first.new, first.changed, first.deleted, first.pushed, first.conflicts) == (2, 0, 0, 0, 0))
    #expect(first.synced != nil && first.pending == 0)
    #expect(try await h.local.titles(Harness.calendar).values.sorted() == ["Alpha", "Beta"])

    let uid = try await h.local.addLocal(Harness.calendar, title: "Gamma", day: 3)
    let second = try await h.good()
    #expect((second.new, second.pushed, second.pending) == (0, 1, 0))
    #expect(await h.serverTitles() == ["a": "Alpha", "b": "Beta", uid: "Gamma"])
    // What another client wrote survives the trip: nothing was sent back for it.
    #expect(await h.server.objects("work").values.filter { $0.contains("X-PEER-PROPERTY:kept") }.count == 2)
  }

  @Test("a sync with no change makes only discovery and the token exchange", arguments: kinds)
  func noChange(kind: StoreKind) async throws {
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    _ = try await h.local.addLocal("personal", title: "not synced", day: 2)
    try await h.good()
    _ = try await h.local.addLocal(Harness.calendar, title: "Mine", day: 2)
    await h.server.resetRequests()
    try await h.good()  // pushes it
    // Our own PUT moved the token: the sync that made it reads the report after it (nothing
    // fetched: the item comes back with the ETag recorded) and keeps that token.
    #expect(await h.methods() == ["PROPFIND", "PROPFIND", "PROPFIND", "PUT", "SYNC"])
    await h.server.resetRequests()
    let after = try await h.good()
    #expect((after.new, after.changed, after.deleted, after.pushed) == (0, 0, 0, 0))
    // The token is the collection's: discovery alone.
    #expect(await h.methods() == ["PROPFIND", "PROPFIND", "PROPFIND"])
  }

  @Test("pull: new, changed and deleted on the server", arguments: kinds)
  func pull(kind: StoreKind) async throws {
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    await h.server.clientPut("work", "b.ics", event("b", "Beta"))
    try await h.good()
    await h.server.clientPut("work", "a.ics", event("a", "Alpha 2"))
    await h.server.clientDelete("work", "b.ics")
    await h.server.clientPut("work", "c.ics", event("c", "Gamma"))
    let summary = try await h.good()
    #expect((summary.new, summary.changed, summary.deleted, summary.pushed, summary.conflicts) == (1, 1, 1, 0, 0))
    #expect(try await h.local.titles(Harness.calendar) == ["a": "Alpha 2", "c": "Gamma"])
  }

  @Test("push: local creates, edits and deletes reach the server", arguments: kinds)
  func push(kind: StoreKind) async throws {
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    await h.server.clientPut("work", "b.ics", event("b", "Beta"))
    try await h.good()
    let new = try await h.local.addLocal(Harness.calendar, title: "New", day: 4)
    try await h.local.editLocal(Harness.calendar, uid: "a", title: "Alpha here")
    try await h.local.deleteLocal(Harness.calendar, uid: "b")
    let summary = try await h.good()
    #expect((summary.new, summary.changed, summary.deleted, summary.pushed, summary.pending) == (0, 0, 0, 3, 0))
    #expect(await h.serverTitles() == ["a": "Alpha here", new: "New"])
    let next = try await h.good()
    #expect((next.new, next.changed, next.pushed) == (0, 0, 0))
  }

  @Test("changed on both sides: the server's version is kept, the local one is a conflict", arguments: kinds)
  func conflict(kind: StoreKind) async throws {
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    try await h.good()
    await h.server.clientPut("work", "a.ics", event("a", "Server's"))
    try await h.local.editLocal(Harness.calendar, uid: "a", title: "Mine")
    let summary = try await h.good()
    #expect((summary.changed, summary.conflicts, summary.pushed, summary.pending) == (1, 1, 0, 0))
    #expect(try await h.local.titles(Harness.calendar) == ["a": "Server's"])
    #expect(await h.serverTitles() == ["a": "Server's"])
    #expect(try await h.local.conflictCount() == 1)
  }

  @Test("the same change on both sides is no conflict", arguments: kinds)
  func sameChange(kind: StoreKind) async throws {
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    try await h.good()
    try await h.local.editLocal(Harness.calendar, uid: "a", title: "Both")
    // The other client makes the same change: the text appt now holds.
    let mine = try #require(try await h.local.store.localItem(calendarID: calendarID(h), uid: "a"))
    await h.server.clientPut("work", "a.ics", mine.ics)
    let summary = try await h.good()
    #expect((summary.conflicts, summary.pushed, summary.pending) == (0, 0, 0))
    #expect(try await h.local.conflictCount() == 0)
    #expect(await h.serverTitles() == ["a": "Both"])
  }

  @Test("deleted here, edited there: the edit comes back", arguments: kinds)
  func deleteHereEditThere(kind: StoreKind) async throws {
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    try await h.good()
    try await h.local.deleteLocal(Harness.calendar, uid: "a")
    await h.server.clientPut("work", "a.ics", event("a", "Edited there"))
    let summary = try await h.good()
    #expect((summary.new, summary.pushed, summary.conflicts) == (1, 0, 0))
    #expect(try await h.local.titles(Harness.calendar) == ["a": "Edited there"])
    #expect(await h.serverTitles() == ["a": "Edited there"])
  }

  @Test("edited here, deleted there: the edit goes back to the server", arguments: kinds)
  func editHereDeleteThere(kind: StoreKind) async throws {
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    try await h.good()
    try await h.local.editLocal(Harness.calendar, uid: "a", title: "Edited here")
    await h.server.clientDelete("work", "a.ics")
    let summary = try await h.good()
    #expect((summary.deleted, summary.pushed, summary.conflicts, summary.pending) == (0, 1, 0, 0))
    #expect(try await h.local.titles(Harness.calendar) == ["a": "Edited here"])
    #expect(await h.serverTitles() == ["a": "Edited here"])
  }

  @Test("412 on PUT: the server's edit made meanwhile is kept, ours a conflict", arguments: kinds)
  func preconditionOnPut(kind: StoreKind) async throws {
    let h = try Harness(kind)
    let href = await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    try await h.good()
    try await h.local.editLocal(Harness.calendar, uid: "a", title: "Mine")
    let edit = event("a", "Theirs")
    await h.server.setFaults { _, request in
      request.method == "PUT" ? .changeFirst(href: href, ics: edit) : nil
    }
    let summary = try await h.good()
    await h.server.clearFaults()
    #expect((summary.conflicts, summary.pushed, summary.pending) == (1, 0, 0))
    #expect(try await h.local.titles(Harness.calendar) == ["a": "Theirs"])
    #expect(await h.serverTitles() == ["a": "Theirs"])
  }

  @Test("412 on PUT with the server's content unchanged (a new ETag only): sent again", arguments: kinds)
  func preconditionOnPutRetried(kind: StoreKind) async throws {
    let h = try Harness(kind)
    let href = await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    try await h.good()
    try await h.local.editLocal(Harness.calendar, uid: "a", title: "Mine")
    let same = await h.server.objects("work")[href] ?? ""
    await h.server.resetRequests()
    // 1-3 discovery (the token is the collection's: no report), 4 the PUT: 412, 5 GET, 6 PUT,
    // 7 the report after the push.
    await h.server.setFaults { number, request in
      request.method == "PUT" && number == 4 ? .changeFirst(href: href, ics: same) : nil
    }
    let summary = try await h.good()
    await h.server.clearFaults()
    #expect(await h.methods() == ["PROPFIND", "PROPFIND", "PROPFIND", "PUT", "GET", "PUT", "SYNC"])
    #expect((summary.conflicts, summary.pushed) == (0, 1))
    #expect(await h.serverTitles() == ["a": "Mine"])
  }

  @Test("412 on every PUT and DELETE though nothing changed there: no conflict, the changes wait", arguments: kinds)
  func preconditionAlways(kind: StoreKind) async throws {
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    await h.server.clientPut("work", "b.ics", event("b", "Beta"))
    try await h.good()
    try await h.local.editLocal(Harness.calendar, uid: "a", title: "Mine")
    try await h.local.deleteLocal(Harness.calendar, uid: "b")
    await h.server.setFaults { _, request in ["PUT", "DELETE"].contains(request.method) ? .status(412) : nil }
    let refused = try await h.sync()
    await h.server.clearFaults()
    #expect(refused.first?.error?.contains("(HTTP 412)") == true, "\(refused)")
    #expect(refused.first?.unavailable == false)
    #expect((refused.first?.conflicts, refused.first?.pending) == (0, 2))
    #expect(try await h.local.conflictCount() == 0)
    #expect(try await h.local.titles(Harness.calendar) == ["a": "Mine"])
    let summary = try await h.good()
    #expect((summary.pushed, summary.conflicts, summary.pending) == (2, 0, 0))
    #expect(await h.serverTitles() == ["a": "Mine"])
  }

  @Test("412 on DELETE: the server's edit comes back", arguments: kinds)
  func preconditionOnDelete(kind: StoreKind) async throws {
    let h = try Harness(kind)
    let href = await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    try await h.good()
    try await h.local.deleteLocal(Harness.calendar, uid: "a")
    let edit = event("a", "Theirs")
    await h.server.setFaults { _, request in
      request.method == "DELETE" ? .changeFirst(href: href, ics: edit) : nil
    }
    let summary = try await h.good()
    await h.server.clearFaults()
    #expect((summary.pushed, summary.conflicts, summary.pending) == (0, 0, 0))
    #expect(try await h.local.titles(Harness.calendar) == ["a": "Theirs"])
    #expect(await h.serverTitles() == ["a": "Theirs"])
  }

  @Test("a PUT whose answer was lost: the next sync finds it by UID, no duplicate", arguments: kinds)
  func lostPutAnswer(kind: StoreKind) async throws {
    let h = try Harness(kind)
    try await h.good()
    let uid = try await h.local.addLocal(Harness.calendar, title: "Mine", day: 2)
    await h.server.setFaults { _, request in request.method == "PUT" ? .lostAnswer : nil }
    let failed = try await h.sync()
    await h.server.clearFaults()
    #expect(failed.first?.error?.contains("Connection reset") == true)
    #expect(failed.first?.unavailable == true)
    #expect(failed.first?.pending == 1)
    let summary = try await h.good()
    #expect((summary.new, summary.changed, summary.pushed, summary.conflicts, summary.pending) == (0, 0, 0, 0, 0))
    #expect(await h.serverTitles() == [uid: "Mine"])
    #expect(try await h.local.titles(Harness.calendar) == [uid: "Mine"])
  }

  /// Found by the e2e suite (interrupted_push_then_change): a PUT that reached the server with
  /// its answer lost, then a local change before the next sync. The server's copy is appt's
  /// own (noted before the PUT), so the change goes out: a delete is not undone, a second
  /// edit is not a conflict with the first.
  @Test("a PUT whose answer was lost, then a local delete or edit: the change goes out", arguments: kinds)
  func lostPutAnswerThenChange(kind: StoreKind) async throws {
    let h = try Harness(kind)
    try await h.good()
    let made = try await h.local.addLocal(Harness.calendar, title: "Made", day: 2)
    let twice = try await h.local.addLocal(Harness.calendar, title: "Twice", day: 3)
    try await h.good()
    // Made: edited, its PUT's answer lost, then deleted. Twice: edited, lost, edited again.
    try await h.local.editLocal(Harness.calendar, uid: made, title: "Made, v2")
    try await h.local.editLocal(Harness.calendar, uid: twice, title: "Twice, v2")
    await h.server.setFaults { _, request in request.method == "PUT" ? .lostAnswer : nil }
    _ = try await h.sync()
    await h.server.clearFaults()
    let reached = await h.serverTitles()
    #expect(reached[made] == "Made, v2" || reached[twice] == "Twice, v2", "a PUT reached the server")
    try await h.local.deleteLocal(Harness.calendar, uid: made)
    try await h.local.editLocal(Harness.calendar, uid: twice, title: "Twice, v3")
    let after = try await h.good()
    #expect(after.conflicts == 0, "appt's own edit is no conflict")
    let summary = try await h.good()
    #expect(summary.conflicts == 0 && summary.pending == 0)
    #expect(await h.serverTitles() == [twice: "Twice, v3"], "the delete and the second edit went out")
    #expect(try await h.local.titles(Harness.calendar) == [twice: "Twice, v3"], "nothing came back")
  }

  @Test("the same event made on both sides (If-None-Match fails): one copy, no duplicate", arguments: kinds)
  func createdOnBothSides(kind: StoreKind) async throws {
    let h = try Harness(kind)
    try await h.good()
    let uid = try await h.local.addLocal(Harness.calendar, title: "Mine", day: 2)
    let mine = try #require(try await h.local.store.localItem(calendarID: calendarID(h), uid: uid))
    let href = "/cal/u/work/" + uid + ".ics"
    await h.server.setFaults { _, request in
      request.method == "PUT" ? .changeFirst(href: href, ics: mine.ics) : nil
    }
    let summary = try await h.good()
    await h.server.clearFaults()
    #expect((summary.conflicts, summary.pending) == (0, 0))
    #expect(await h.serverTitles() == [uid: "Mine"])
  }

  @Test("server failures: 500, 401, malformed XML, timeout; the next sync finishes", arguments: kinds)
  func serverFailures(kind: StoreKind) async throws {
    let faults: [(FakeServer.Fault, String, Bool)] = [
      (.status(500), "SYNC", true), (.status(401), "PROPFIND", true), (.malformed, "MULTIGET", false),
      (.timeout, "PUT", true), (.status(503), "PUT", true), (.status(403), "PUT", false),
      (.status(404), "MULTIGET", false),
    ]
    // And a 404 to a PUT of an edit (the server says it is gone, but it is not).
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    try await h.good()
    try await h.local.editLocal(Harness.calendar, uid: "a", title: "Mine")
    await h.server.resetRequests()
    // Requests 1-3 are discovery (the token is the collection's: no report), 4 the PUT.
    await h.server.setFaults { number, request in request.method == "PUT" && number == 4 ? .status(404) : nil }
    let summary404 = try await h.good()
    await h.server.clearFaults()
    #expect(await h.methods() == ["PROPFIND", "PROPFIND", "PROPFIND", "PUT", "PUT", "GET", "PUT", "SYNC"])
    #expect((summary404.pushed, summary404.conflicts, summary404.pending) == (1, 0, 0))
    #expect(try await h.local.conflictCount() == 0)
    #expect(await h.serverTitles() == ["a": "Mine"])
    for (fault, method, unavailable) in faults {
      let h = try Harness(kind)
      await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
      try await h.good()
      await h.server.clientPut("work", "b.ics", event("b", "Beta"))
      let uid = try await h.local.addLocal(Harness.calendar, title: "Mine", day: 2)
      await h.server.setFaults { _, request in
        let body = String(decoding: request.body ?? Data(), as: UTF8.self)
        let name = request.method == "REPORT" ? (body.contains("multiget") ? "MULTIGET" : "SYNC") : request.method
        return name == method ? fault : nil
      }
      let failed = try await h.sync()
      await h.server.clearFaults()
      #expect(failed.count == 1 && failed[0].error != nil, "\(fault) on \(method)")
      #expect(failed[0].unavailable == unavailable, "\(fault) on \(method): \(failed[0].error ?? "")")
      #expect(failed[0].synced == nil)
      let summary = try await h.good()
      #expect(summary.pending == 0)
      #expect(await h.serverTitles() == ["a": "Alpha", "b": "Beta", uid: "Mine"], "\(fault) on \(method)")
      #expect(try await h.local.titles(Harness.calendar) == ["a": "Alpha", "b": "Beta", uid: "Mine"])
    }
  }

  @Test("an account refused before its calendars are known reports each calendar it had", arguments: kinds)
  func accountFailureNamesKnownCalendars(kind: StoreKind) async throws {
    let h = try Harness(kind)
    let fresh = try await h.sync()
    #expect(fresh.map(\.calendar) == [Harness.calendar])
    _ = try await h.local.addLocal(Harness.calendar, title: "Waiting", day: 2)
    await h.server.setFaults { _, _ in .status(401) }
    let refused = try await h.sync()
    #expect(refused.map(\.calendar) == [Harness.calendar])
    #expect(refused.first?.url == "http://dav.test/cal/u/work/")
    #expect(refused.first?.unavailable == true && refused.first?.pending == 1 && refused.first?.synced == nil)
    #expect(refused.first?.error?.contains("refused the user name or password (HTTP 401)") == true)
    // Before any sync there is no calendar to name: one summary for the account.
    let other = try await h.engine.accountFailed("other", url: "http://x/", message: "no", unavailable: true)
    #expect(other.map(\.calendar) == [nil] && other.first?.url == "http://x/")
  }

  @Test("a refused sync token, or no sync-collection at all: an ETag listing", arguments: kinds)
  func listingFallback(kind: StoreKind) async throws {
    let h = try Harness(kind)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha"))
    await h.server.clientPut("work", "b.ics", event("b", "Beta"))
    try await h.good()
    await h.server.forgetTokens()
    await h.server.clientDelete("work", "b.ics")
    await h.server.clientPut("work", "c.ics", event("c", "Gamma"))
    let summary = try await h.good()
    #expect((summary.new, summary.deleted) == (1, 1))
    await h.server.setSupportsSync("work", false)
    await h.server.clientPut("work", "a.ics", event("a", "Alpha 2"))
    let listed = try await h.good()
    #expect(listed.changed == 1)
    #expect(try await h.local.titles(Harness.calendar) == ["a": "Alpha 2", "c": "Gamma"])
  }

  @Test("collections without VEVENT are skipped; every event calendar syncs", arguments: kinds)
  func calendarsOfTheAccount(kind: StoreKind) async throws {
    let server = FakeServer(calendars: ["work", "home"])
    await server.addCollection("tasks", components: ["VTODO"])
    let h = try Harness(kind, server: server)
    let summaries = try await h.sync()
    #expect(summaries.map(\.calendar) == ["acct/Work", "acct/Home"])
    #expect(summaries.allSatisfy { $0.error == nil })
  }

  @Test("a calendar gone from the server is kept here, and said so", arguments: kinds)
  func calendarGone(kind: StoreKind) async throws {
    let notes = Notes()
    let local = try kind.make()
    let engine = SyncEngine(store: local.store, clock: testClock) { notes.add($0) }
    let both = FakeServer(calendars: ["work", "home"])
    _ = try await engine.sync(
      account: "acct",
      client: CalDAVClient(baseURL: FakeServer.base, credentials: nil, transport: both)
    )
    #expect(notes.lines.isEmpty)
    let onlyWork = FakeServer(calendars: ["work"])
    let summaries = try await engine.sync(
      account: "acct",
      client: CalDAVClient(baseURL: FakeServer.base, credentials: nil, transport: onlyWork)
    )
    #expect(summaries.map(\.calendar) == ["acct/Work"])
    #expect(
      notes.lines == [
        "acct/Home: the server no longer has this calendar; it is kept here, unsynced ('appt calendar delete' removes it)"
      ]
    )
  }

  @Test("an object appt cannot read fails the sync, naming it, until it can be read", arguments: kinds)
  func unreadableObject(kind: StoreKind) async throws {
    let notes = Notes()
    let server = FakeServer()
    let local = try kind.make()
    let engine = SyncEngine(store: local.store, clock: testClock) { notes.add($0) }
    await server.clientPut(
      "work",
      "bad.ics",
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:garbage\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    await server.clientPut("work", "a.ics", event("a", "Alpha"))
    let client = CalDAVClient(baseURL: FakeServer.base, credentials: nil, transport: server)
    let summaries = try await engine.sync(account: "acct", client: client)
    // The rest came in; the calendar's sync failed, naming the object.
    #expect(summaries.first?.new == 1)
    let error = try #require(summaries.first?.error)
    #expect(error.hasPrefix("/cal/u/work/bad.ics: 4: DTSTART: "), "\(error)")
    #expect(error.hasSuffix("; appt cannot read it, left on the server"))
    #expect(summaries.first?.unavailable == false)
    #expect(summaries.first?.synced == nil)
    #expect(notes.lines.isEmpty, "said once, as the calendar's failure: \(notes.lines)")
    #expect(await server.objects("work").count == 2)
    // Asked for again next time (the token stayed), and read once the server's copy is fixed.
    let again = try await engine.sync(account: "acct", client: client)
    #expect(again.first?.error == error)
    await server.clientPut("work", "bad.ics", event("x", "Fixed"))
    let fixed = try await engine.sync(account: "acct", client: client)
    #expect(fixed.first?.error == nil)
    #expect(fixed.first?.new == 1)
    #expect(try await local.titles(Harness.calendar) == ["a": "Alpha", "x": "Fixed"])
  }

  @Test("a task in a calendar of events is a note, not a failure", arguments: kinds)
  func taskIsNotAFailure(kind: StoreKind) async throws {
    let notes = Notes()
    let server = FakeServer()
    let local = try kind.make()
    let engine = SyncEngine(store: local.store, clock: testClock) { notes.add($0) }
    await server.clientPut(
      "work",
      "task.ics",
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:t\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
    )
    await server.clientPut("work", "a.ics", event("a", "Alpha"))
    let client = CalDAVClient(baseURL: FakeServer.base, credentials: nil, transport: server)
    let summaries = try await engine.sync(account: "acct", client: client)
    #expect(summaries.first?.error == nil)
    #expect(summaries.first?.new == 1)
    #expect(notes.lines == ["acct/Work: /cal/u/work/task.ics: 1: it holds no event; left on the server"])
    #expect(try await engine.sync(account: "acct", client: client).first?.error == nil)
  }

  @Test("the engine's href for a UID is percent-encoded under the calendar", arguments: kinds)
  func hrefOfNewItems(kind: StoreKind) async throws {
    let h = try Harness(kind)
    try await h.good()
    let uid = try await h.local.addLocal(Harness.calendar, title: "Mine", day: 2)
    try await h.good()
    let hrefs = await h.server.objects("work").keys.sorted()
    #expect(hrefs == ["/cal/u/work/\(uid).ics"])
  }

  @Test("a big first sync reports its progress, multiget by multiget", arguments: kinds)
  func progress(kind: StoreKind) async throws {
    let events = Events()
    let server = FakeServer()
    for index in 0..<250 {
      await server.clientPut("work", "e\(index).ics", event("e\(index)", "Event \(index)", day: index % 28))
    }
    let local = try kind.make()
    let engine = SyncEngine(store: local.store, clock: testClock) { events.add($0) }
    let client = CalDAVClient(baseURL: FakeServer.base, credentials: nil, transport: server)
    let summaries = try await engine.sync(account: "acct", client: client)
    #expect(summaries.first?.new == 250)
    #expect(
      events.all == [
        .progress(calendar: "acct/Work", fetched: 100, total: 250),
        .progress(calendar: "acct/Work", fetched: 200, total: 250),
        .progress(calendar: "acct/Work", fetched: 250, total: 250),
      ]
    )
    #expect(try await local.titles("acct/Work").count == 250)
    // 100 objects or fewer: no progress line.
    await server.clientPut("work", "e1.ics", event("e1", "Changed"))
    _ = try await engine.sync(account: "acct", client: client)
    #expect(events.all.count == 3)
  }

  func calendarID(_ h: Harness) async throws -> String {
    try #require(try await h.local.store.remoteCalendars(account: "acct").first).id
  }
}

final class Events: Sendable {
  private let stored = Locked<[SyncEvent]>([])
  func add(_ event: SyncEvent) { stored.withLock { $0.append(event) } }
  var all: [SyncEvent] { stored.withLock { $0 } }
}

final class Notes: Sendable {
  private let stored = Locked<[String]>([])
  func add(_ event: SyncEvent) {
    if case .note(let text) = event { stored.withLock { $0.append(text) } }
  }
  var lines: [String] { stored.withLock { $0 } }
}
