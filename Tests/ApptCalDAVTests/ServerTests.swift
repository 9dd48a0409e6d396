// CalDAVClient against real servers: Radicale and Xandikos on loopback, started by
// Tests/caldav/with-servers.sh (`make test`). Without them these suites skip, unless
// APPT_REQUIRE_CALDAV=1 says they must run.

import ApptCalDAV
import Foundation
import Testing

@Test("under make test, the CalDAV servers are there (no silent skip)")
func caldavServersWhenRequired() {
  if TestServer.environment["APPT_REQUIRE_CALDAV"] == "1" {
    #expect(
      TestServer.available,
      "APPT_REQUIRE_CALDAV is set but APPT_TEST_RADICALE_URL, _XANDIKOS_URL, _HTTPS_URL or _CA_FILE is not"
    )
  }
}

/// A calendar object with this UID.
func event(_ uid: String, summary: String) -> String {
  """
  BEGIN:VCALENDAR\r
  VERSION:2.0\r
  PRODID:-//appt//tests//EN\r
  BEGIN:VEVENT\r
  UID:\(uid)\r
  DTSTAMP:20261201T120000Z\r
  DTSTART:20261207T100000Z\r
  DTEND:20261207T110000Z\r
  SUMMARY:\(summary)\r
  END:VEVENT\r
  END:VCALENDAR\r

  """
}

@Suite("CalDAV against real servers", .enabled(if: TestServer.plain.count == 4), .serialized)
struct ServerTests {
  @Test("discovery finds the seeded calendar with its name, colour and tokens", arguments: TestServer.plain)
  func discovery(server: TestServer) async throws {
    let client = server.client()
    let discovery = try await client.discover()
    #expect(discovery.principal != nil)
    #expect(!discovery.calendarHomes.isEmpty)
    let work = try #require(discovery.calendars.first { $0.displayName == "Work" })
    #expect(work.colorHex == "#ff8800")
    #expect(work.syncToken?.isEmpty == false)
    #expect(work.ctag?.isEmpty == false)
    #expect(work.components?.contains("VEVENT") != false)
    #expect(work.url.path.hasSuffix("/work"))
    let again = try await client.calendar(at: work.url)
    #expect(again.displayName == "Work" && again.syncToken == work.syncToken)
  }

  @Test("put, get, conditional put and delete: 412 where the precondition fails", arguments: TestServer.plain)
  func conditionalWrites(server: TestServer) async throws {
    let client = server.client()
    let work = try await server.workCalendar(client)
    let uid = "appt-\(UUID().uuidString)"
    let href = work.href + uid + ".ics"

    let created = try await client.put(href, ics: event(uid, summary: "First"), .create)
    await #expect(
      throws: CalDAVError.preconditionFailed(url: displayURL(work.url.appendingPathComponent(uid + ".ics")))
    ) {
      try await client.put(href, ics: event(uid, summary: "Again"), .create)
    }
    let read = try await client.get(href)
    #expect(read.ics.contains("SUMMARY:First"))
    let etag = try #require(created ?? read.etag)
    #expect(read.etag == etag)

    let replaced = try await client.put(href, ics: event(uid, summary: "Second"), .replace(etag: etag))
    let reread = try await client.get(href).etag
    let newETag = try #require(replaced ?? reread)
    #expect(newETag != etag)
    await #expect(throws: CalDAVError.self) {
      try await client.put(href, ics: event(uid, summary: "Stale"), .replace(etag: etag))
    }
    do {
      try await client.put(href, ics: event(uid, summary: "Stale"), .replace(etag: etag))
      Issue.record("a put with a stale ETag went through")
    } catch .preconditionFailed {
    } catch { Issue.record("expected preconditionFailed, got \(error)") }
    #expect(try await client.get(href).ics.contains("SUMMARY:Second"))

    do {
      try await client.delete(href, ifMatch: etag)
      Issue.record("a delete with a stale ETag went through")
    } catch .preconditionFailed {
    } catch { Issue.record("expected preconditionFailed, got \(error)") }
    try await client.delete(href, ifMatch: newETag)
    do {
      _ = try await client.get(href)
      Issue.record("the deleted item is still there")
    } catch .notFound {
    } catch { Issue.record("expected notFound, got \(error)") }
  }

  @Test("sync-collection: what changed since a token, and what went", arguments: TestServer.plain)
  func syncCollection(server: TestServer) async throws {
    let client = server.client()
    let work = try await server.workCalendar(client)
    let start = try await client.changes(in: work.url, since: nil)
    let a = "appt-\(UUID().uuidString)"
    let b = "appt-\(UUID().uuidString)"
    try await client.put(work.href + a + ".ics", ics: event(a, summary: "A"), .create)
    try await client.put(work.href + b + ".ics", ics: event(b, summary: "B"), .create)

    let added = try await client.changes(in: work.url, since: start.token)
    #expect(added.token != start.token)
    #expect(Set(added.changed.map(\.href)).isSuperset(of: [work.href + a + ".ics", work.href + b + ".ics"]))
    #expect(added.changed.allSatisfy { $0.etag != nil })
    #expect(added.removed.isEmpty)

    let listed = try await client.list(work.url)
    for item in added.changed {
      #expect(listed.contains(item), "\(item) not in the ETag listing")
    }
    let fetched = try await client.fetch([work.href + a + ".ics", work.href + "nothing-here.ics"], from: work.url)
    #expect(fetched.objects.count == 1 && fetched.objects[0].ics.contains("UID:\(a)"))
    #expect(fetched.objects[0].etag == added.changed.first { $0.href == work.href + a + ".ics" }?.etag)
    #expect(fetched.missing == [work.href + "nothing-here.ics"])

    try await client.delete(work.href + a + ".ics", ifMatch: nil)
    let removed = try await client.changes(in: work.url, since: added.token)
    #expect(removed.removed.contains(work.href + a + ".ics"))
    #expect(!removed.changed.contains { $0.href == work.href + a + ".ics" })

    let none = try await client.changes(in: work.url, since: removed.token)
    #expect(none.changed.isEmpty && none.removed.isEmpty)
    try await client.delete(work.href + b + ".ics", ifMatch: nil)
  }

  @Test("a token the server never gave is refused as such (the caller falls back)", arguments: TestServer.plain)
  func refusedToken(server: TestServer) async throws {
    let client = server.client()
    let work = try await server.workCalendar(client)
    await #expect(throws: CalDAVError.invalidSyncToken(url: displayURL(work.url))) {
      try await client.changes(in: work.url, since: "http://example.com/not-a-token/1")
    }
  }

  @Test("multiget in chunks returns every item once", arguments: TestServer.plain)
  func chunkedFetch(server: TestServer) async throws {
    var client = server.client()
    client.multigetChunk = 2
    let work = try await server.workCalendar(client)
    let uids = (0..<5).map { _ in "appt-\(UUID().uuidString)" }
    for uid in uids { try await client.put(work.href + uid + ".ics", ics: event(uid, summary: uid), .create) }
    let result = try await client.fetch(uids.map { work.href + $0 + ".ics" }, from: work.url)
    #expect(Set(result.objects.map(\.href)) == Set(uids.map { work.href + $0 + ".ics" }))
    #expect(result.objects.count == 5 && result.missing.isEmpty)
    for uid in uids { try await client.delete(work.href + uid + ".ics", ifMatch: nil) }
  }

  @Test("an event written by Python's caldav comes back with every property", arguments: TestServer.plain)
  func otherClient(server: TestServer) async throws {
    let client = server.client()
    let work = try await server.workCalendar(client)
    let start = try await client.changes(in: work.url, since: nil)
    let uid = "python-\(UUID().uuidString)"
    _ = try pythonClient(["put-event", work.url.absoluteString, uid], credentials: server.credentials)
    let changes = try await client.changes(in: work.url, since: start.token)
    #expect(changes.changed.count == 1)
    let fetched = try await client.fetch(changes.changed.map(\.href), from: work.url)
    let ics = try #require(fetched.objects.first?.ics)
    let unfolded = ics.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n ", with: "")
    for line in [
      "UID:\(uid)", "DTSTART;TZID=Europe/Berlin:20261207T100000", "DTEND;TZID=Europe/Berlin:20261207T113000",
      "SUMMARY:Dentist\\, with \\; a semicolon", "LOCATION:Praxis Dr. Weiß\\, Hauptstr. 1",
      "DESCRIPTION:Bring the forms.\\nSecond line.", "CATEGORIES:health,errands", "STATUS:CONFIRMED",
      "RRULE:FREQ=WEEKLY;COUNT=3", "X-PHONE-APP-FLAG:kept verbatim", "BEGIN:VALARM", "TRIGGER:-PT15M",
      "BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
    ] {
      #expect(unfolded.contains(line + "\n"), "\(server.name) lost \(line)")
    }
    // And what appt writes, Python's caldav reads.
    let text = try pythonClient(["get-event", work.url.absoluteString, uid], credentials: server.credentials)
    #expect(text.contains("UID:\(uid)"))
    try await client.delete(changes.changed[0].href, ifMatch: changes.changed[0].etag)
  }

  @Test("a server that is not running is unreachable, with its URL and what to do")
  func stoppedServer() async throws {
    let url = testURL("http://127.0.0.1:\(try closedPort())/")
    let transport = CurlTransport(timeout: 5)
    let client = CalDAVClient(baseURL: url, credentials: TestServer.credentials, transport: transport)
    do {
      _ = try await client.discover()
      Issue.record("\(transport): discovery on a closed port succeeded")
    } catch {
      guard case .unreachable(let where_, _) = error else {
        Issue.record("\(transport): expected unreachable, got \(error)")
        return
      }
      #expect(where_.hasPrefix("http://127.0.0.1:"))
      #expect(error.isUnavailable)
      #expect("\(error)".contains("check the account's url"))
    }
  }
}

@Suite("CalDAV credentials", .enabled(if: TestServer.plain.first { $0.name == "Radicale" } != nil))
struct CredentialTests {
  @Test("a wrong password is refused as credentials, and the password shows nowhere")
  func wrongPassword() async throws {
    let radicale = try #require(TestServer.plain.first { $0.name == "Radicale" })
    let wrong = Credentials(username: "appt", password: "wrong-\(UUID().uuidString)")
    let transport = CurlTransport(timeout: 20)
    let client = CalDAVClient(baseURL: radicale.url, credentials: wrong, transport: transport)
    do {
      _ = try await client.discover()
      Issue.record("\(transport): a wrong password was accepted")
    } catch {
      guard case .credentialsRefused(_, let status) = error else {
        Issue.record("\(transport): expected credentialsRefused, got \(error)")
        return
      }
      #expect(status == 401)
      #expect(!"\(error)".contains("wrong-"))
      #expect("\(error)".contains("password_command"))
    }
  }
}

@Suite("CalDAV over https with a private CA", .enabled(if: TestServer.https != nil && TestServer.caFile != nil))
struct HTTPSTests {
  @Test("with the CA file, discovery and a round trip work (libcurl, CURLOPT_CAINFO)")
  func withCAFile() async throws {
    let server = try #require(TestServer.https)
    let client = CalDAVClient(
      url: server.url,
      username: TestServer.environment["APPT_TEST_CALDAV_USER"],
      password: TestServer.environment["APPT_TEST_CALDAV_PASSWORD"],
      caFile: TestServer.caFile,
      timeout: 20
    )
    let work = try await server.workCalendar(client)
    #expect(work.url.scheme == "https" && work.colorHex == "#ff8800")
    let uid = "appt-\(UUID().uuidString)"
    try await client.put(work.href + uid + ".ics", ics: event(uid, summary: "Over TLS"), .create)
    #expect(try await client.get(work.href + uid + ".ics").ics.contains("SUMMARY:Over TLS"))
    try await client.delete(work.href + uid + ".ics", ifMatch: nil)
  }

  @Test("without it, the certificate is refused with a clear message")
  func withoutCAFile() async throws {
    let server = try #require(TestServer.https)
    let transport = CurlTransport(timeout: 20)
    let client = CalDAVClient(baseURL: server.url, credentials: server.credentials, transport: transport)
    do {
      _ = try await client.discover()
      Issue.record("\(transport): an untrusted certificate was accepted")
    } catch {
      guard case .certificateRejected(let url, let reason) = error else {
        Issue.record("\(transport): expected certificateRejected, got \(error)")
        return
      }
      #expect(url.hasPrefix("https://localhost:"))
      #expect(reason.lowercased().contains("certificate"), "\(reason)")
      #expect("\(error)".contains("set ca_file"))
      #expect(error.isUnavailable)
    }
  }

  @Test("a CA file that cannot be read is named in the error")
  func unreadableCAFile() async throws {
    let server = try #require(TestServer.https)
    let missing = "/nonexistent/appt-ca-\(UUID().uuidString).pem"
    let client = CalDAVClient(
      baseURL: server.url,
      credentials: server.credentials,
      transport: CurlTransport(caFile: missing)
    )
    await #expect(
      throws: CalDAVError.certificateRejected(
        url: displayURL(server.url.appendingPathComponent(".well-known/caldav")),
        reason: "the CA file \(missing) cannot be read"
      )
    ) {
      _ = try await client.discover()
    }
  }
}

@Suite("CalDAV timeouts")
struct TimeoutTests {
  @Test("a server that accepts and never answers times out")
  func silent() async throws {
    let (port, process) = try silentServer()
    defer { process.terminate() }
    let url = testURL("http://127.0.0.1:\(port)/cal/")
    let transport = CurlTransport(timeout: 1)
    let client = CalDAVClient(baseURL: url, credentials: nil, transport: transport)
    do {
      _ = try await client.list(url)
      Issue.record("\(transport): a silent server answered")
    } catch {
      #expect(error == .timedOut(url: "http://127.0.0.1:\(port)/cal/", seconds: 1), "\(transport)")
      #expect("\(error)".contains("did not answer within 1 s"))
    }
  }
}
