// A CalDAV server in memory, answering through HTTPTransport as Radicale does what the engine
// asks: discovery (principal, calendar home, calendars), sync-collection with tokens, ETag
// listing, multiget, GET, conditional PUT and DELETE. Faults are scripted per request number:
// a status, a malformed body, the connection lost before the request or after it was carried
// out (a lost answer).

import ApptCalDAV
import Foundation

actor FakeServer: HTTPTransport {
  enum Fault: Sendable, Equatable {
    /// Answer this status and do nothing.
    case status(Int)
    /// A 207 whose body is not XML.
    case malformed
    /// The connection is lost before the server sees the request.
    case unreachable
    /// The server carries the request out, and the answer is lost.
    case lostAnswer
    /// No answer in time (nothing done).
    case timeout
    /// Another client changes the object at `href` (nil ics: deletes it) just before this
    /// request is handled.
    case changeFirst(href: String, ics: String?)
  }

  struct Item: Sendable {
    var etag: String
    var ics: String
  }

  final class Collection {
    var displayName: String
    var color: String?
    var components: [String]
    var supportsSync: Bool
    var items: [String: Item] = [:]
    /// Per href the token at which it last changed, and whether it was deleted then.
    var changes: [String: (token: Int, deleted: Bool)] = [:]

    init(displayName: String, color: String?, components: [String], supportsSync: Bool) {
      self.displayName = displayName
      self.color = color
      self.components = components
      self.supportsSync = supportsSync
    }
  }

  static let base = URL(string: "http://dav.test/") ?? URL(fileURLWithPath: "/")
  let home = "/cal/u/"
  private var collections: [String: Collection] = [:]
  private var order: [String] = []
  private var token = 1
  private var etagCounter = 0
  /// Every request received, faulted ones included.
  private(set) var requests: [HTTPRequest] = []
  /// The fault for a request, by its number (1-based) and the request itself.
  private var faultRule: @Sendable (Int, HTTPRequest) -> Fault? = { _, _ in nil }
  /// Tokens older than this are refused (a server that forgot them).
  private var oldestToken = 0

  init(calendars: [String] = ["work"]) {
    for name in calendars {
      let collection = Collection(
        displayName: name.capitalized,
        color: "#ff8800ff",
        components: ["VEVENT"],
        supportsSync: true
      )
      collections[home + name + "/"] = collection
      order.append(home + name + "/")
    }
  }

  // MARK: - The test's side

  func addCollection(_ name: String, components: [String], supportsSync: Bool = true) {
    collections[home + name + "/"] = Collection(
      displayName: name.capitalized,
      color: nil,
      components: components,
      supportsSync: supportsSync
    )
    order.append(home + name + "/")
  }

  func setSupportsSync(_ calendar: String, _ value: Bool) {
    collections[home + calendar + "/"]?.supportsSync = value
  }

  func forgetTokens() { oldestToken = token }

  func setFaults(_ rule: @escaping @Sendable (Int, HTTPRequest) -> Fault?) {
    faultRule = rule
  }

  func clearFaults() { faultRule = { _, _ in nil } }

  func resetRequests() { requests = [] }

  /// Another client stores `ics` at `name` (an href under the calendar).
  @discardableResult
  func clientPut(_ calendar: String, _ name: String, _ ics: String) -> String {
    let href = home + calendar + "/" + name
    store(href, ics: ics, in: home + calendar + "/")
    return href
  }

  func clientDelete(_ calendar: String, _ name: String) {
    let collectionPath = home + calendar + "/"
    remove(collectionPath + name, in: collectionPath)
  }

  /// The calendar's objects by href.
  func objects(_ calendar: String) -> [String: String] {
    (collections[home + calendar + "/"]?.items ?? [:]).mapValues(\.ics)
  }

  // MARK: - HTTP

  func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
    requests.append(request)
    let url = displayURL(request.url)
    switch faultRule(requests.count, request) {
    case .status(let status)?: return respond(status, request)
    case .malformed?: return respond(207, request, body: "<html>not a multistatus")
    case .unreachable?: throw .unreachable(url: url, reason: "Connection refused")
    case .timeout?: throw .timedOut(url: url, seconds: 30)
    case .lostAnswer?:
      _ = handle(request)
      throw .unreachable(url: url, reason: "Connection reset by peer")
    case .changeFirst(let href, let ics)?:
      let collectionPath = (href as NSString).deletingLastPathComponent + "/"
      if let ics { store(href, ics: ics, in: collectionPath) } else { remove(href, in: collectionPath) }
      return handle(request)
    case nil: return handle(request)
    }
  }

  private func respond(_ status: Int, _ request: HTTPRequest, body: String = "", headers: [String: String] = [:])
    -> HTTPResponse
  {
    HTTPResponse(status: status, headers: headers, body: Data(body.utf8), url: request.url)
  }

  private func header(_ request: HTTPRequest, _ name: String) -> String? {
    request.headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }

  private func handle(_ request: HTTPRequest) -> HTTPResponse {
    let path = URLComponents(url: request.url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? request.url.path
    let body = String(decoding: request.body ?? Data(), as: UTF8.self)
    let depth = header(request, "Depth")
    switch request.method {
    case "PROPFIND":
      if path == "/.well-known/caldav" { return respond(404, request) }
      if path == "/" || path == "/principals/u/" {
        return multistatus(
          request,
          [
            response(
              path,
              props: "<d:current-user-principal><d:href>/principals/u/</d:href></d:current-user-principal>"
                + "<c:calendar-home-set><d:href>\(home)</d:href></c:calendar-home-set>"
                + "<d:resourcetype><d:collection/></d:resourcetype>"
            )
          ]
        )
      }
      if path == home {
        var responses = [response(home, props: "<d:resourcetype><d:collection/></d:resourcetype>")]
        if depth == "1" {
          for collectionPath in order {
            guard let collection = collections[collectionPath] else { continue }
            responses.append(response(collectionPath, props: calendarProps(collection)))
          }
        }
        return multistatus(request, responses)
      }
      if let collection = collections[path] {
        var responses = [response(path, props: calendarProps(collection))]
        if depth == "1" {
          for (href, item) in collection.items.sorted(by: { $0.key < $1.key }) {
            responses.append(
              response(href, props: "<d:getetag>\(escape(item.etag))</d:getetag><d:resourcetype/>")
            )
          }
        }
        return multistatus(request, responses)
      }
      return respond(404, request)

    case "REPORT":
      guard let collection = collections[path] else { return respond(404, request) }
      if body.contains("sync-collection") {
        guard collection.supportsSync else { return respond(403, request) }
        let since: Int
        if let tokenText = between(body, "<d:sync-token>", "</d:sync-token>") {
          guard let number = Int(tokenText.replacingOccurrences(of: "http://dav.test/sync/", with: "")),
            number >= oldestToken, number <= token
          else {
            return respond(
              403,
              request,
              body: #"<?xml version="1.0"?><d:error xmlns:d="DAV:"><d:valid-sync-token/></d:error>"#
            )
          }
          since = number
        } else {
          since = -1
        }
        var responses: [String] = []
        for (href, change) in collection.changes.sorted(by: { $0.key < $1.key }) where change.token > since {
          if change.deleted {
            if since >= 0 {
              responses.append(
                "<d:response><d:href>\(href)</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>"
              )
            }
          } else if let item = collection.items[href] {
            responses.append(response(href, props: "<d:getetag>\(escape(item.etag))</d:getetag>"))
          }
        }
        return multistatus(request, responses, syncToken: "http://dav.test/sync/\(token)")
      }
      if body.contains("calendar-multiget") {
        var responses: [String] = []
        for href in all(body, "<d:href>", "</d:href>") {
          let decoded = href.replacingOccurrences(of: "&amp;", with: "&")
          if let item = collection.items[decoded] {
            responses.append(
              response(
                decoded,
                props:
                  "<d:getetag>\(escape(item.etag))</d:getetag><c:calendar-data>\(escape(item.ics))</c:calendar-data>"
              )
            )
          } else {
            responses.append(
              "<d:response><d:href>\(decoded)</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>"
            )
          }
        }
        return multistatus(request, responses)
      }
      return respond(400, request)

    case "GET":
      guard let (_, item) = lookup(path) else { return respond(404, request) }
      return respond(200, request, body: item.ics, headers: ["ETag": item.etag, "Content-Type": "text/calendar"])

    case "PUT":
      let collectionPath = (path as NSString).deletingLastPathComponent + "/"
      guard collections[collectionPath] != nil else { return respond(409, request) }
      let existing = collections[collectionPath]?.items[path]
      if header(request, "If-None-Match") == "*", existing != nil { return respond(412, request) }
      if let match = header(request, "If-Match"), existing?.etag != match { return respond(412, request) }
      let etag = store(path, ics: body, in: collectionPath)
      return respond(existing == nil ? 201 : 204, request, headers: ["ETag": etag])

    case "DELETE":
      let collectionPath = (path as NSString).deletingLastPathComponent + "/"
      guard let existing = collections[collectionPath]?.items[path] else { return respond(404, request) }
      if let match = header(request, "If-Match"), existing.etag != match { return respond(412, request) }
      remove(path, in: collectionPath)
      return respond(204, request)

    default:
      return respond(405, request)
    }
  }

  private func lookup(_ path: String) -> (Collection, Item)? {
    let collectionPath = (path as NSString).deletingLastPathComponent + "/"
    guard let collection = collections[collectionPath], let item = collection.items[path] else { return nil }
    return (collection, item)
  }

  @discardableResult
  private func store(_ href: String, ics: String, in collectionPath: String) -> String {
    etagCounter += 1
    token += 1
    let etag = "\"e\(etagCounter)\""
    collections[collectionPath]?.items[href] = Item(etag: etag, ics: ics)
    collections[collectionPath]?.changes[href] = (token, false)
    return etag
  }

  private func remove(_ href: String, in collectionPath: String) {
    guard collections[collectionPath]?.items[href] != nil else { return }
    token += 1
    collections[collectionPath]?.items[href] = nil
    collections[collectionPath]?.changes[href] = (token, true)
  }

  private func calendarProps(_ collection: Collection) -> String {
    var props = "<d:resourcetype><d:collection/><c:calendar/></d:resourcetype>"
    props += "<d:displayname>\(escape(collection.displayName))</d:displayname>"
    if let color = collection.color { props += "<a:calendar-color>\(color)</a:calendar-color>" }
    props += "<cs:getctag>\(token)</cs:getctag>"
    if collection.supportsSync { props += "<d:sync-token>http://dav.test/sync/\(token)</d:sync-token>" }
    props += "<c:supported-calendar-component-set>"
    props += collection.components.map { "<c:comp name=\"\($0)\"/>" }.joined()
    props += "</c:supported-calendar-component-set>"
    return props
  }

  private func response(_ href: String, props: String) -> String {
    "<d:response><d:href>\(href)</d:href><d:propstat><d:prop>\(props)</d:prop>"
      + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
  }

  private func multistatus(_ request: HTTPRequest, _ responses: [String], syncToken: String? = nil) -> HTTPResponse {
    var body = #"<?xml version="1.0" encoding="utf-8"?><d:multistatus xmlns:d="DAV:" "#
    body += #"xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/" "#
    body += #"xmlns:a="http://apple.com/ns/ical/">"#
    body += responses.joined()
    if let syncToken { body += "<d:sync-token>\(syncToken)</d:sync-token>" }
    body += "</d:multistatus>"
    return respond(207, request, body: body)
  }

  private func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
  }

  private func between(_ text: String, _ open: String, _ close: String) -> String? {
    guard let start = text.range(of: open), let end = text.range(of: close, range: start.upperBound..<text.endIndex)
    else { return nil }
    return String(text[start.upperBound..<end.lowerBound])
  }

  private func all(_ text: String, _ open: String, _ close: String) -> [String] {
    var found: [String] = []
    var rest = text[...]
    while let start = rest.range(of: open), let end = rest.range(of: close, range: start.upperBound..<rest.endIndex) {
      found.append(String(rest[start.upperBound..<end.lowerBound]))
      rest = rest[end.upperBound...]
    }
    return found
  }
}
