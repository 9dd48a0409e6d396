// The XML bodies appt sends: PROPFIND (RFC 4918 section 9.1), REPORT calendar-multiget
// (RFC 4791 section 7.9) and REPORT sync-collection (RFC 6578 section 3.2). Fixed prefixes
// (d: DAV, c: CalDAV, cs: CalendarServer, a: Apple iCal), UTF-8, hrefs and tokens escaped.

public import Foundation

/// A property name: its XML namespace and local name.
public struct DAVName: Hashable, Sendable, CustomStringConvertible {
  public let namespace: String
  public let name: String

  public init(_ namespace: String, _ name: String) {
    self.namespace = namespace
    self.name = name
  }

  public var description: String { "{\(namespace)}\(name)" }

  public static let davNamespace = "DAV:"
  public static let calDAVNamespace = "urn:ietf:params:xml:ns:caldav"
  public static let calendarServerNamespace = "http://calendarserver.org/ns/"
  public static let appleICalNamespace = "http://apple.com/ns/ical/"

  static func dav(_ name: String) -> DAVName { DAVName(davNamespace, name) }
  static func calDAV(_ name: String) -> DAVName { DAVName(calDAVNamespace, name) }

  public static let displayName = dav("displayname")
  public static let resourceType = dav("resourcetype")
  public static let getETag = dav("getetag")
  public static let syncToken = dav("sync-token")
  public static let currentUserPrincipal = dav("current-user-principal")
  public static let getCTag = DAVName(calendarServerNamespace, "getctag")
  public static let calendarColor = DAVName(appleICalNamespace, "calendar-color")
  public static let supportedCalendarComponentSet = calDAV("supported-calendar-component-set")
  public static let calendarHomeSet = calDAV("calendar-home-set")
  public static let calendarData = calDAV("calendar-data")

  /// The prefix the request bodies use for this namespace.
  var prefix: String? {
    switch namespace {
    case Self.davNamespace: "d"
    case Self.calDAVNamespace: "c"
    case Self.calendarServerNamespace: "cs"
    case Self.appleICalNamespace: "a"
    default: nil
    }
  }
}

public enum WebDAVRequests {
  static let declarations =
    #"xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/" xmlns:a="http://apple.com/ns/ical/""#

  /// `<d:propfind>` asking for `properties`.
  public static func propfind(_ properties: [DAVName]) -> Data {
    body("<d:propfind \(declarations)><d:prop>\(elements(properties))</d:prop></d:propfind>")
  }

  /// `<c:calendar-multiget>` for `hrefs`, asking for their ETag and calendar data.
  public static func calendarMultiget(_ hrefs: [String]) -> Data {
    let hrefElements = hrefs.map { "<d:href>\(escape($0))</d:href>" }.joined()
    return body(
      "<c:calendar-multiget \(declarations)><d:prop><d:getetag/><c:calendar-data/></d:prop>\(hrefElements)</c:calendar-multiget>"
    )
  }

  /// `<d:sync-collection>` from `token` (nil or empty: the initial sync, everything), depth 1,
  /// asking for ETags.
  public static func syncCollection(since token: String?) -> Data {
    let tokenElement = token.map { $0.isEmpty ? "<d:sync-token/>" : "<d:sync-token>\(escape($0))</d:sync-token>" }
    return body(
      "<d:sync-collection \(declarations)>\(tokenElement ?? "<d:sync-token/>")<d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>"
    )
  }

  private static func elements(_ names: [DAVName]) -> String {
    names.map { name in
      if let prefix = name.prefix { return "<\(prefix):\(name.name)/>" }
      return "<x:\(name.name) xmlns:x=\"\(escape(name.namespace))\"/>"
    }.joined()
  }

  private static func body(_ xml: String) -> Data {
    Data(("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n" + xml).utf8)
  }

  /// Text and attribute values: & < > " ' as entities.
  static func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      default: out.append(character)
      }
    }
    return out
  }
}
