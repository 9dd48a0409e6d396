// The engine against the real servers of Tests/caldav/with-servers.sh (Radicale, Xandikos,
// Radicale over https with a private CA), on both stores. Skipped without them, unless
// APPT_REQUIRE_CALDAV=1 says they must be there. Each run touches only its own UIDs (the
// servers' "work" calendar belongs to the CalDAV client's tests, which run meanwhile: each test
// here makes a calendar of its own and writes only there).

import ApptCalDAV
import ApptCore
import ApptSync
import Foundation
import Testing

struct LiveServer: Sendable, CustomTestStringConvertible {
  let name: String
  let url: URL
  let username: String?
  let password: String?
  let caFile: String?
  var testDescription: String { name }

  static let environment = ProcessInfo.processInfo.environment

  static var all: [LiveServer] {
    let user = environment["APPT_TEST_CALDAV_USER"]
    let password = environment["APPT_TEST_CALDAV_PASSWORD"]
    var servers: [LiveServer] = []
    if let url = environment["APPT_TEST_RADICALE_URL"].flatMap(URL.init(string:)) {
      servers.append(LiveServer(name: "Radicale", url: url, username: user, password: password, caFile: nil))
    }
    if let url = environment["APPT_TEST_XANDIKOS_URL"].flatMap(URL.init(string:)) {
      servers.append(LiveServer(name: "Xandikos", url: url, username: nil, password: nil, caFile: nil))
    }
    if let url = environment["APPT_TEST_HTTPS_URL"].flatMap(URL.init(string:)),
      let ca = environment["APPT_TEST_CA_FILE"]
    {
      servers.append(LiveServer(name: "Radicale (https)", url: url, username: user, password: password, caFile: ca))
    }
    return servers
  }

  static var cases: [(LiveServer, StoreKind)] {
    all.flatMap { server in [StoreKind.fake, .sqlite].map { (server, $0) } }
  }

  /// A new calendar on the server (made by Python's caldav), for one test: its display name.
  func makeCalendar() throws -> String {
    let id = "sync-" + String(UUID().uuidString.prefix(8)).lowercased()
    _ = try python(["seed", url.absoluteString, id, "Sync \(id)", "#3366CCFF"])
    return "Sync \(id)"
  }

  func client() -> CalDAVClient {
    CalDAVClient(url: url, username: username, password: password, caFile: caFile, timeout: 20)
  }

  /// Runs Tests/caldav/client.py (Python's caldav) against this server.
  func python(_ arguments: [String]) throws -> String {
    let script = try #require(Self.environment["APPT_TEST_CALDAV_CLIENT"])
    var environment: [String: String] = [:]
    if let username, let password {
      environment["APPT_CALDAV_USER"] = username
      environment["APPT_CALDAV_PASSWORD"] = password
    }
    if let caFile { environment["APPT_CALDAV_CA_FILE"] = caFile }
    environment["PATH"] = Self.environment["PATH"] ?? "/usr/bin:/bin"
    let ran = try run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script] + arguments, environment: environment)
    try #require(ran.status == 0, "client.py \(arguments): \(ran.stderr)")
    return ran.stdout
  }
}

@Test("under make test, the CalDAV servers are there for the sync tests")
func syncServersWhenRequired() {
  if LiveServer.environment["APPT_REQUIRE_CALDAV"] == "1" {
    #expect(LiveServer.all.count == 3, "APPT_REQUIRE_CALDAV is set but the servers' variables are not")
  }
}

@Suite("sync engine against real servers", .enabled(if: !LiveServer.all.isEmpty), .serialized)
struct LiveTests {
  @Test(
    "both ways: another client's event comes in whole; appt's edits and deletes go out",
    arguments: LiveServer.cases
  )
  func bothWays(server: LiveServer, kind: StoreKind) async throws {
    let local = try kind.make()
    let engine = SyncEngine(store: local.store, clock: testClock)
    let client = server.client()
    let name = try server.makeCalendar()
    let calendar = "live/\(name)"
    func sync() async throws -> CalendarSummary {
      let summaries = try await engine.sync(account: "live", client: client)
      let mine = try #require(summaries.first { $0.calendar == calendar }, "\(summaries)")
      #expect(mine.error == nil, "\(mine.error ?? "")")
      #expect(mine.pending == 0)
      return mine
    }
    let work = try await {
      let discovery = try await client.discover()
      return try #require(discovery.calendars.first { $0.displayName == name })
    }()
    // Another client (Python caldav) makes an event with many properties.
    let theirs = "peer-\(UUID().uuidString)"
    _ = try server.python(["put-event", work.url.absoluteString, theirs])
    _ = try await sync()
    #expect(try await local.titles(calendar)[theirs] == "Dentist, with ; a semicolon")
    // A second sync with nothing changed reads and writes nothing.
    let quiet = try await sync()
    #expect((quiet.new, quiet.changed, quiet.deleted, quiet.pushed) == (0, 0, 0, 0))

    // appt adds one and edits theirs: both on the server, their unknown properties kept.
    let mine = try await local.addLocal(calendar, title: "Made in appt", day: 3)
    try await local.editLocal(calendar, uid: theirs, title: "Dentist (moved)")
    let pushed = try await sync()
    #expect(pushed.pushed == 2)
    let theirsNow = try server.python(["get-event", work.url.absoluteString, theirs])
    #expect(theirsNow.contains("SUMMARY:Dentist (moved)"))
    #expect(theirsNow.contains("X-PHONE-APP-FLAG:kept verbatim") && theirsNow.contains("BEGIN:VALARM"))
    #expect(theirsNow.contains("CATEGORIES:health,errands"))
    let mineNow = try server.python(["get-event", work.url.absoluteString, mine])
    #expect(mineNow.contains("SUMMARY:Made in appt"))
    let settled = try await sync()
    #expect((settled.new, settled.changed, settled.pushed, settled.conflicts) == (0, 0, 0, 0))

    // Deleted in appt: gone from the server; the other, deleted on the server: gone here.
    try await local.deleteLocal(calendar, uid: mine)
    #expect(try await sync().pushed == 1)
    let items = try await client.list(work.url)
    #expect(!items.contains { $0.href.contains(mine) })
    let theirsItem = try #require(
      try await local.store.syncItems(calendarID: try calendarID(local, calendar)).first { $0.uid == theirs }
    )
    try await client.delete(theirsItem.href, ifMatch: nil)
    #expect(try await sync().deleted == 1)
    #expect(try await local.titles(calendar)[theirs] == nil)
  }

  @Test("changed on both sides: the server's kept, appt's a conflict", arguments: LiveServer.cases)
  func conflict(server: LiveServer, kind: StoreKind) async throws {
    let local = try kind.make()
    let engine = SyncEngine(store: local.store, clock: testClock)
    let client = server.client()
    let name = try server.makeCalendar()
    let calendar = "live/\(name)"
    let discovery = try await client.discover()
    let work = try #require(discovery.calendars.first { $0.displayName == name })
    let uid = "both-\(UUID().uuidString)"
    let href = work.href + uid + ".ics"
    try await client.put(href, ics: event(uid, "Original"), .create)
    _ = try await engine.sync(account: "live", client: client)
    let etag = try await client.get(href).etag
    try await client.put(href, ics: event(uid, "Server's"), .replace(etag: try #require(etag)))
    try await local.editLocal(calendar, uid: uid, title: "Mine")
    let summaries = try await engine.sync(account: "live", client: client)
    let summary = try #require(summaries.first { $0.calendar == calendar })
    #expect(summary.error == nil && summary.conflicts == 1)
    #expect(try await local.titles(calendar)[uid] == "Server's")
    #expect(try await client.get(href).ics.contains("SUMMARY:Server's"))
    #expect(try await local.conflictCount() == 1)
    try await client.delete(href, ifMatch: nil)
  }

  func calendarID(_ local: any TestStore, _ name: String) async throws -> String {
    try #require(try await local.store.remoteCalendars(account: "live").first { $0.name == name }).id
  }
}
