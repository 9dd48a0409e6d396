// CalDAVClient and the transport plumbing against a scripted transport: redirects, statuses
// turned into errors, and the password kept out of every message.

import Foundation
import Testing

@testable import ApptCalDAV

@Suite("CalDAV client (scripted transport)")
struct ClientTests {
  let base = testURL("https://dav.example.com/dav/")
  let secret = Credentials(username: "alice", password: "s3cret-hunter2")

  @Test("credentials never show: description, reflection, messages")
  func passwordHidden() async {
    #expect("\(secret)" == "alice:***")
    #expect(!String(reflecting: secret).contains("s3cret"))
    var dumped = ""
    dump(secret, to: &dumped)
    #expect(!dumped.contains("s3cret"))
    let transport = ScriptedTransport { request in
      .success(HTTPResponse(status: 401, headers: [:], body: Data(), url: request.url))
    }
    let client = CalDAVClient(baseURL: base, credentials: secret, transport: transport)
    let error = await #expect(throws: CalDAVError.self) { try await client.list(self.base) }
    #expect(error == .credentialsRefused(url: "https://dav.example.com/dav/", status: 401))
    #expect(error.map { "\($0)" }?.contains("s3cret") == false)
    #expect(error?.isUnavailable == true)
  }

  @Test("Basic auth over http goes to the account's host only, never to a host a redirect names")
  func credentialsStayHome() async throws {
    let plain = testURL("http://dav.example.com/dav/")
    let transport = ScriptedTransport { request in
      if request.url.host == "dav.example.com" {
        return ScriptedTransport.respond(
          status: 301,
          headers: ["Location": "http://other.example.net/x/"],
          url: request.url
        )
      }
      return ScriptedTransport.respond(status: 207, body: "<multistatus xmlns='DAV:'/>", url: request.url)
    }
    let client = CalDAVClient(baseURL: plain, credentials: secret, transport: transport)
    _ = try await client.list(plain)
    let sent = await transport.sent
    #expect(sent.count == 2)
    let auth = sent.map { $0.headers.first { $0.name == "Authorization" }?.value }
    #expect(auth[0] == "Basic " + Data("alice:s3cret-hunter2".utf8).base64EncodedString())
    #expect(auth[1] == nil)
    #expect(sent[1].method == "PROPFIND" && sent[1].body == sent[0].body)
    #expect(sent.allSatisfy { !$0.url.absoluteString.contains("s3cret") })
  }

  @Test("over https, a redirect to another https host (well-known to the provider) keeps the credentials")
  func credentialsFollowHTTPS() async throws {
    let transport = ScriptedTransport { request in
      if request.url.host == "dav.example.com" {
        return ScriptedTransport.respond(
          status: 301,
          headers: ["Location": "https://dav.provider.net/x/"],
          url: request.url
        )
      }
      return ScriptedTransport.respond(status: 207, body: "<multistatus xmlns='DAV:'/>", url: request.url)
    }
    _ = try await CalDAVClient(baseURL: base, credentials: secret, transport: transport).list(base)
    let sent = await transport.sent
    #expect(sent.map(\.url.host) == ["dav.example.com", "dav.provider.net"])
    #expect(sent.allSatisfy { $0.headers.contains { $0.name == "Authorization" } })
  }

  @Test("a redirect from https to http is refused; a relative one is followed")
  func redirectSchemes() async throws {
    let downgrade = ScriptedTransport { request in
      ScriptedTransport.respond(status: 302, headers: ["Location": "http://dav.example.com/dav/"], url: request.url)
    }
    let error = await #expect(throws: CalDAVError.self) {
      try await CalDAVClient(baseURL: self.base, credentials: self.secret, transport: downgrade).list(self.base)
    }
    guard case .redirectRefused(_, let location, let reason)? = error else {
      Issue.record("expected redirectRefused, got \(String(describing: error))")
      return
    }
    #expect(location == "http://dav.example.com/dav/" && reason.contains("scheme"))
    #expect(await downgrade.sent.count == 1)

    let relative = ScriptedTransport { request in
      request.url.path == "/.well-known/caldav"
        ? ScriptedTransport.respond(status: 301, headers: ["Location": "/remote.php/dav/"], url: request.url)
        : ScriptedTransport.respond(status: 404, url: request.url)
    }
    let client = CalDAVClient(baseURL: base, credentials: secret, transport: relative)
    _ = await #expect(throws: CalDAVError.self) { try await client.discover() }
    #expect(await relative.sent.map(\.url.path).prefix(2) == ["/.well-known/caldav", "/remote.php/dav"])
  }

  @Test("a redirect loop ends with an error")
  func redirectLoop() async {
    let loop = ScriptedTransport { request in
      ScriptedTransport.respond(status: 307, headers: ["Location": request.url.absoluteString], url: request.url)
    }
    let error = await #expect(throws: CalDAVError.self) {
      try await CalDAVClient(baseURL: self.base, credentials: nil, transport: loop).list(self.base)
    }
    #expect(error.map { "\($0)" }?.contains("more than 5 redirects") == true)
    #expect(await loop.sent.count == 6)
  }

  @Test(
    "statuses become errors that say what to do",
    arguments: [
      (412, "", CalDAVError.preconditionFailed(url: "https://dav.example.com/dav/a.ics")),
      (404, "", .notFound(url: "https://dav.example.com/dav/a.ics")),
      (403, "", .forbidden(url: "https://dav.example.com/dav/a.ics")),
      (503, "", .serverError(url: "https://dav.example.com/dav/a.ics", status: 503)),
      (400, "", .unexpectedStatus(url: "https://dav.example.com/dav/a.ics", status: 400, method: "PUT")),
    ]
  )
  func putStatuses(status: Int, body: String, expected: CalDAVError) async {
    let transport = ScriptedTransport { request in
      ScriptedTransport.respond(status: status, body: body, url: request.url)
    }
    let client = CalDAVClient(baseURL: base, credentials: secret, transport: transport)
    let error = await #expect(throws: CalDAVError.self) {
      try await client.put("a.ics", ics: "BEGIN:VCALENDAR", .create)
    }
    #expect(error == expected)
    #expect(error.map { "\($0)" }?.contains("https://dav.example.com/dav/a.ics") == true)
  }

  @Test("PUT sends the precondition and returns the strong ETag, nil for a weak or missing one")
  func putETags() async throws {
    let transport = ScriptedTransport { request in
      let etag =
        request.url.lastPathComponent == "weak.ics"
        ? "W/\"1\"" : request.url.lastPathComponent == "none.ics" ? nil : "\"2\""
      return ScriptedTransport.respond(status: 201, headers: etag.map { ["ETag": $0] } ?? [:], url: request.url)
    }
    let client = CalDAVClient(baseURL: base, credentials: nil, transport: transport)
    #expect(try await client.put("a.ics", ics: "X", .create) == "\"2\"")
    #expect(try await client.put("weak.ics", ics: "X", .replace(etag: "\"1\"")) == nil)
    #expect(try await client.put("none.ics", ics: "X", .create) == nil)
    let sent = await transport.sent
    #expect(sent[0].headers.contains(HTTPHeader("If-None-Match", "*")))
    #expect(sent[1].headers.contains(HTTPHeader("If-Match", "\"1\"")))
    #expect(sent[0].url.absoluteString == "https://dav.example.com/dav/a.ics")
    #expect(sent[0].headers.contains(HTTPHeader("Content-Type", "text/calendar; charset=utf-8")))
  }

  @Test("a refused sync token is its own error, whatever status carries it", arguments: [403, 409, 412])
  func invalidToken(status: Int) async throws {
    let body = String(decoding: try fixture("xandikos-sync-bad-token.xml"), as: UTF8.self)
    let transport = ScriptedTransport { request in
      ScriptedTransport.respond(status: status, body: body, url: request.url)
    }
    let client = CalDAVClient(baseURL: base, credentials: nil, transport: transport)
    let error = await #expect(throws: CalDAVError.self) { try await client.changes(in: self.base, since: "old") }
    #expect(error == .invalidSyncToken(url: "https://dav.example.com/dav/"))
  }

  @Test("sync-collection: changed, removed, truncated (507), absolute and relative hrefs")
  func changes() async throws {
    let body = try fixture("google-sync.xml")
    let calendar = testURL("https://apidata.example.com/caldav/v2/alice%40example.com/events/")
    let transport = ScriptedTransport { request in
      .success(HTTPResponse(status: 207, headers: [:], body: body, url: request.url))
    }
    let client = CalDAVClient(baseURL: calendar, credentials: nil, transport: transport)
    let changes = try await client.changes(in: calendar, since: nil)
    #expect(
      changes.changed == [
        RemoteItem(href: "/caldav/v2/alice%40example.com/events/abc%20def.ics", etag: "\"63890123456\"")
      ]
    )
    #expect(changes.removed == ["/caldav/v2/alice%40example.com/events/gone.ics"])
    #expect(changes.truncated)
    #expect(changes.token.hasSuffix("/sync/CPj2"))
    #expect(await transport.sent.first?.headers.contains(HTTPHeader("Depth", "0")) == true)
  }

  @Test("sync-collection: the calendar itself (iCloud lists it, encoded differently) and sub-collections are no items")
  func changesSkipCollections() async throws {
    let calendar = testURL("https://p42-caldav.icloud.com/123/calendars/a%40b/")
    let body = """
      <multistatus xmlns="DAV:"><sync-token>t2</sync-token>\
      <response><href>/123/calendars/a@b/</href><propstat><prop><getetag>"c1"</getetag></prop><status>HTTP/1.1 200 OK</status></propstat></response>\
      <response><href>/123/calendars/a%40b/inner/</href><propstat><prop><getetag>"c2"</getetag></prop><status>HTTP/1.1 200 OK</status></propstat></response>\
      <response><href>/123/calendars/a%40b/e1.ics</href><propstat><prop><getetag>"e1"</getetag></prop><status>HTTP/1.1 200 OK</status></propstat></response>\
      </multistatus>
      """
    let transport = ScriptedTransport { request in ScriptedTransport.respond(status: 207, body: body, url: request.url)
    }
    let changes = try await CalDAVClient(baseURL: calendar, credentials: nil, transport: transport)
      .changes(in: calendar, since: "t1")
    #expect(changes.changed == [RemoteItem(href: "/123/calendars/a%40b/e1.ics", etag: "\"e1\"")])
    #expect(changes.removed.isEmpty && !changes.truncated && changes.token == "t2")
  }

  @Test("a body that is not a multistatus is a malformed answer naming the URL")
  func malformedBody() async {
    let transport = ScriptedTransport { request in
      ScriptedTransport.respond(status: 207, body: "<html>sign in</html>", url: request.url)
    }
    let client = CalDAVClient(baseURL: base, credentials: nil, transport: transport)
    let error = await #expect(throws: CalDAVError.self) { try await client.list(self.base) }
    guard case .malformedResponse(let url, let reason)? = error else {
      Issue.record("expected malformedResponse, got \(String(describing: error))")
      return
    }
    #expect(url == "https://dav.example.com/dav/" && reason.contains("multistatus"))
  }

  @Test("discovery on iCloud-shaped and Nextcloud-shaped answers keeps the event calendars")
  func discoveryShapes() async throws {
    let home = try fixture("nextcloud-calendars.xml")
    let transport = ScriptedTransport { request in
      switch request.url.path {
      case "/.well-known/caldav":
        return ScriptedTransport.respond(status: 301, headers: ["Location": "/remote.php/dav/"], url: request.url)
      case "/remote.php/dav":
        return ScriptedTransport.respond(
          status: 207,
          body:
            "<d:multistatus xmlns:d='DAV:'><d:response><d:href>/remote.php/dav/</d:href><d:propstat><d:prop><d:current-user-principal><d:href>/remote.php/dav/principals/users/alice/</d:href></d:current-user-principal></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>",
          url: request.url
        )
      case "/remote.php/dav/principals/users/alice":
        return ScriptedTransport.respond(
          status: 207,
          body:
            "<d:multistatus xmlns:d='DAV:' xmlns:cal='urn:ietf:params:xml:ns:caldav'><d:response><d:href>/remote.php/dav/principals/users/alice/</d:href><d:propstat><d:prop><cal:calendar-home-set><d:href>/remote.php/dav/calendars/alice/</d:href></cal:calendar-home-set></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>",
          url: request.url
        )
      case "/remote.php/dav/calendars/alice":
        return .success(HTTPResponse(status: 207, headers: [:], body: home, url: request.url))
      default:
        return ScriptedTransport.respond(status: 404, url: request.url)
      }
    }
    let client = CalDAVClient(
      baseURL: testURL("https://cloud.example.com/"),
      credentials: secret,
      transport: transport
    )
    let discovery = try await client.discover()
    #expect(discovery.principal?.absoluteString == "https://cloud.example.com/remote.php/dav/principals/users/alice/")
    #expect(discovery.calendars.map(\.name) == ["Personal & family"])
    #expect(discovery.calendars.first?.colorHex == "#0082c9")
    #expect(
      discovery.calendars.first?.url.absoluteString
        == "https://cloud.example.com/remote.php/dav/calendars/alice/personal/"
    )
  }

  @Test("colours: #RRGGBBAA and #RRGGBB to #rrggbb, anything else to nil")
  func colours() {
    func hex(_ color: String?) -> String? {
      RemoteCalendar(url: base, href: "/", displayName: nil, color: color, ctag: nil, syncToken: nil, components: nil)
        .colorHex
    }
    #expect(hex("#FF8800FF") == "#ff8800")
    #expect(hex("#0082C9") == "#0082c9")
    #expect(hex("red") == nil && hex("#12345") == nil && hex(nil) == nil)
  }

  @Test("a URL with a password in it is refused before anything is sent, without the password")
  func passwordInURL() async {
    let transport = ScriptedTransport { request in ScriptedTransport.respond(status: 207, url: request.url) }
    let url = testURL("https://alice:s3cret@dav.example.com/dav/")
    let client = CalDAVClient(baseURL: url, credentials: nil, transport: transport)
    let error = await #expect(throws: CalDAVError.self) { try await client.list(url) }
    #expect(error.map { "\($0)" }?.contains("s3cret") == false)
    #expect(error.map { "\($0)" }?.contains("password_command") == true)
    #expect(await transport.sent.isEmpty)
  }

  @Test("URLs in messages carry no user, password or query")
  func displayURLs() {
    let url = testURL("https://bob:pw@dav.example.com:8443/cal/?token=abc#x")
    #expect(displayURL(url) == "https://dav.example.com:8443/cal/")
  }
}

@Suite("libcurl transport")
struct CurlTransportTests {
  @Test("the header block: the last response's fields, names lower-cased, repeats joined")
  func headers() {
    let block =
      "HTTP/1.1 100 Continue\r\nX-Early: 1\r\n\r\nHTTP/1.1 201 Created\r\nETag: \"abc\"\r\nDAV: 1, 2\r\nDAV: calendar-access\r\nLocation:  /x \r\n\r\n"
    let headers = CurlTransport.parseHeaders(block)
    #expect(headers == ["etag": "\"abc\"", "dav": "1, 2, calendar-access", "location": "/x"])
  }
}
