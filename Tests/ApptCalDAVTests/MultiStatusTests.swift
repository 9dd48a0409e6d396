// The Multi-Status parser on recorded answers: Radicale's and Xandikos' (recorded from the
// test servers), and hand-made ones shaped like Nextcloud's (sabre/dav), iCloud's and Google's,
// with their prefixes, default namespaces, absolute hrefs, CDATA and 404 propstats.

import ApptCalDAV
import Foundation
import Testing

@Suite("Multi-Status parser")
struct MultiStatusTests {
  @Test("Radicale's calendar home: the calendar's props, the principal's 404s")
  func radicaleHome() throws {
    let status = try MultiStatus(parsing: fixture("radicale-calendars-home.xml"))
    #expect(status.responses.map(\.href) == ["/appt/", "/appt/work/"])
    let home = status.responses[0]
    #expect(!home.isCalendar && home.isCollection)
    #expect(home.displayName == nil && home.missing[.displayName] == 404)
    let work = status.responses[1]
    #expect(work.isCalendar)
    #expect(work.displayName == "Work")
    #expect(work.calendarColor == "#FF8800FF")
    #expect(work.ctag?.hasPrefix("\"22811d2a") == true)
    #expect(work.syncToken?.hasPrefix("http://radicale.org/ns/sync/") == true)
    #expect(work.supportedComponents == ["VEVENT"])
  }

  @Test("Xandikos' ns0: prefixes, status before prop, a calendar without colour")
  func xandikosCalendars() throws {
    let status = try MultiStatus(parsing: fixture("xandikos-calendars.xml"))
    #expect(status.responses.count == 3)
    let work = status.responses[1]
    #expect(work.href == "/user/calendars/work/" && work.isCalendar)
    #expect(work.displayName == "Work" && work.calendarColor == "#FF8800FF")
    #expect(work.syncToken == "095249b93bf203b4ac37ffb7e6cd94d29968ed32")
    let other = status.responses[2]
    #expect(other.calendarColor == nil && other.missing[.calendarColor] == 404)
    #expect(other.supportedComponents == ["VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VAVAILABILITY"])
  }

  @Test(
    "principal and calendar-home-set hrefs",
    arguments: [
      ("radicale-home-set.xml", "/appt/"), ("xandikos-home-set.xml", "/user/calendars/"),
    ]
  )
  func homeSet(file: String, home: String) throws {
    let status = try MultiStatus(parsing: fixture(file))
    #expect(status.responses.first?.hrefs(.calendarHomeSet) == [home])
  }

  @Test(
    "calendar-multiget: data and ETag, and the 404 of a missing href",
    arguments: [
      "radicale-multiget.xml", "xandikos-multiget.xml",
    ]
  )
  func multiget(file: String) throws {
    let status = try MultiStatus(parsing: fixture(file))
    let found = try #require(status.responses.first { $0.href.hasSuffix("fixture-1.ics") })
    #expect(found.calendarData?.contains("UID:fixture-1\n") == true)
    #expect(found.calendarData?.hasPrefix("BEGIN:VCALENDAR") == true)
    #expect(found.etag?.hasPrefix("\"") == true)
    let missing = try #require(status.responses.first { $0.href.hasSuffix("missing.ics") })
    #expect(missing.status == 404 && missing.calendarData == nil)
  }

  @Test(
    "sync-collection: the token, before or after the responses",
    arguments: [
      "radicale-sync-initial.xml", "xandikos-sync-initial.xml",
    ]
  )
  func syncToken(file: String) throws {
    let status = try MultiStatus(parsing: fixture(file))
    #expect(status.syncToken?.isEmpty == false)
    #expect(status.responses.count == 1 && status.responses[0].etag != nil)
  }

  @Test(
    "a refused sync token: DAV:valid-sync-token in the error body",
    arguments: [
      "radicale-sync-bad-token.xml", "xandikos-sync-bad-token.xml",
    ]
  )
  func badToken(file: String) throws {
    let body = try #require(DAVErrorBody(parsing: fixture(file)))
    #expect(body.conditions.contains(DAVName("DAV:", "valid-sync-token")))
  }

  @Test("Nextcloud (sabre/dav): d:/cal:/x1: prefixes, pretty-printed, entities, non-event calendars")
  func nextcloud() throws {
    let status = try MultiStatus(parsing: fixture("nextcloud-calendars.xml"))
    #expect(status.responses.count == 4)
    let personal = status.responses[1]
    #expect(personal.displayName == "Personal & family")
    #expect(personal.calendarColor == "#0082C9" && personal.ctag == "http://sabre.io/ns/sync/42")
    #expect(status.responses[2].supportedComponents == ["VTODO"])
    #expect(!status.responses[3].isCalendar)
  }

  @Test("iCloud: a default namespace on every element, an absolute href, a colour attribute")
  func icloud() throws {
    let status = try MultiStatus(parsing: fixture("icloud-calendars.xml"))
    let home = status.responses[0]
    #expect(home.href == "https://p42-caldav.icloud.com:443/123456/calendars/home/")
    #expect(home.isCalendar && home.displayName == "Home" && home.calendarColor == "#34AADCFF")
    #expect(home.ctag == "HwoQEgwAAAh" && home.syncToken == "HwoQEgwAAAh4")
    #expect(home.supportedComponents == nil && home.missing[.supportedCalendarComponentSet] == 404)
  }

  @Test("Google: D: and caldav: prefixes, CDATA data, percent-encoded hrefs, 404 and 507")
  func google() throws {
    let status = try MultiStatus(parsing: fixture("google-sync.xml"))
    #expect(status.syncToken == "https://www.google.com/calendar/dav/alice%40example.com/events/sync/CPj2")
    #expect(status.responses[0].href == "/caldav/v2/alice%40example.com/events/abc%20def.ics")
    #expect(status.responses[0].calendarData?.contains("SUMMARY:In <CDATA> & all\n") == true)
    #expect(status.responses[1].status == 404)
    #expect(status.responses[2].status == 507)
  }

  @Test("not XML, or XML that is not a multistatus, is an error with a reason")
  func malformed() {
    for body in ["<html><body>Login</body></html>", "<d:multistatus xmlns:d=\"DAV:\"><d:response>", "", "207"] {
      #expect(throws: DAVParseError.self, "\(body)") { try MultiStatus(parsing: Data(body.utf8)) }
    }
    #expect(throws: DAVParseError.self) {
      try MultiStatus(
        parsing: Data(
          #"<multistatus xmlns="DAV:"><response><status>HTTP/1.1 200 OK</status></response></multistatus>"#.utf8
        )
      )
    }
  }

  @Test("a response without namespaces still reads (DAV: assumed)")
  func noNamespace() throws {
    let body =
      "<multistatus><response><href>/a.ics</href><propstat><prop><getetag>\"1\"</getetag></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>"
    let status = try MultiStatus(parsing: Data(body.utf8))
    #expect(status.responses.first?.etag == "\"1\"")
  }
}

@Suite("WebDAV request bodies")
struct WebDAVRequestTests {
  @Test("PROPFIND names each property in its namespace")
  func propfind() {
    let text = String(
      decoding: WebDAVRequests.propfind([.displayName, .getCTag, .calendarColor, .calendarHomeSet]),
      as: UTF8.self
    )
    #expect(text.contains("<d:propfind "))
    #expect(text.contains(#"xmlns:d="DAV:""#) && text.contains(#"xmlns:c="urn:ietf:params:xml:ns:caldav""#))
    #expect(text.contains("<d:prop><d:displayname/><cs:getctag/><a:calendar-color/><c:calendar-home-set/></d:prop>"))
    let custom = String(decoding: WebDAVRequests.propfind([DAVName("http://example.com/ns", "x")]), as: UTF8.self)
    #expect(custom.contains(#"<x:x xmlns:x="http://example.com/ns"/>"#))
  }

  @Test("calendar-multiget escapes hrefs")
  func multiget() {
    let text = String(decoding: WebDAVRequests.calendarMultiget(["/cal/a.ics", "/cal/b&c<d>.ics"]), as: UTF8.self)
    #expect(text.contains("<c:calendar-multiget "))
    #expect(text.contains("<d:prop><d:getetag/><c:calendar-data/></d:prop>"))
    #expect(text.contains("<d:href>/cal/a.ics</d:href><d:href>/cal/b&amp;c&lt;d&gt;.ics</d:href>"))
  }

  @Test("sync-collection: an empty token for the first sync, the escaped token after")
  func syncCollection() {
    let first = String(decoding: WebDAVRequests.syncCollection(since: nil), as: UTF8.self)
    #expect(first.contains("<d:sync-collection "))
    #expect(first.contains("<d:sync-token/><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop>"))
    let next = String(decoding: WebDAVRequests.syncCollection(since: "http://x/sync?a=1&b=2"), as: UTF8.self)
    #expect(next.contains("<d:sync-token>http://x/sync?a=1&amp;b=2</d:sync-token>"))
  }

  @Test(
    "every body is well-formed XML in the right namespaces",
    arguments: [
      WebDAVRequests.propfind(CalDAVClientTestsSupport.calendarProperties),
      WebDAVRequests.calendarMultiget(["/a&b.ics"]), WebDAVRequests.syncCollection(since: "t<1>"),
    ]
  )
  func wellFormed(body: Data) throws {
    // Parsed namespace-aware with Foundation's parser: a wrong prefix or an unescaped & fails.
    let delegate = NamespaceCollector()
    let parser = XMLParser(data: body)
    parser.shouldProcessNamespaces = true
    parser.delegate = delegate
    #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    #expect(
      delegate.names.first.map { $0.0 } == "DAV:"
        || delegate.names.first.map { $0.0 } == "urn:ietf:params:xml:ns:caldav"
    )
    #expect(!delegate.names.contains { $0.0.isEmpty })
  }
}

enum CalDAVClientTestsSupport {
  static let calendarProperties: [DAVName] = [
    .displayName, .resourceType, .getCTag, .syncToken, .calendarColor, .supportedCalendarComponentSet,
  ]
}

#if canImport(FoundationXML)
  import FoundationXML
#endif

final class NamespaceCollector: NSObject, XMLParserDelegate {
  var names: [(String, String)] = []
  func parser(
    _ parser: XMLParser,
    didStartElement elementName: String,
    namespaceURI: String?,
    qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    names.append((namespaceURI ?? "", elementName))
  }
}
