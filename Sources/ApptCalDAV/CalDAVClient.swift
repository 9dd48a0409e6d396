// A CalDAV client (RFC 4791) with what a two-way sync needs: discovery (RFC 6764's well-known
// URL, current-user-principal, calendar-home-set, the calendars), changes since a sync token
// (RFC 6578), an ETag listing as the fallback, multiget, and conditional PUT and DELETE.
//
// Hrefs are paths as the server wrote them (percent-encoding kept; an absolute URL is cut to
// its path), so what `list` and `changes` return matches what `fetch`, `put` and `delete` take.
// ETags are kept as sent, quotes included: that is what If-Match wants back.

public import Foundation

/// A calendar collection on the server.
public struct RemoteCalendar: Sendable, Equatable {
  public var url: URL
  public var href: String
  public var displayName: String?
  /// Apple's calendar-color as sent (`#RRGGBB` or `#RRGGBBAA`).
  public var color: String?
  public var ctag: String?
  public var syncToken: String?
  /// supported-calendar-component-set (nil: the server did not say, so any).
  public var components: [String]?

  /// The display name, else the last path segment.
  public var name: String {
    if let displayName, !displayName.isEmpty { return displayName }
    let last = url.pathComponents.last { $0 != "/" } ?? href
    return last.removingPercentEncoding ?? last
  }

  /// The colour as appt writes colours: `#rrggbb` (alpha dropped), nil when absent or unreadable.
  public var colorHex: String? {
    guard var hex = color?.trimmingCharacters(in: .whitespaces), hex.hasPrefix("#") else { return nil }
    hex.removeFirst()
    guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit) else { return nil }
    return "#" + hex.prefix(6).lowercased()
  }
}

public struct Discovery: Sendable, Equatable {
  public var principal: URL?
  public var calendarHomes: [URL]
  /// The calendars that take events (VEVENT), in the server's order.
  public var calendars: [RemoteCalendar]
}

/// An item of a calendar: its href and ETag.
public struct RemoteItem: Sendable, Equatable, Hashable {
  public var href: String
  public var etag: String?
  public init(href: String, etag: String?) {
    self.href = href
    self.etag = etag
  }
}

/// An item with its iCalendar text.
public struct RemoteObject: Sendable, Equatable {
  public var href: String
  public var etag: String?
  public var ics: String
}

/// What changed in a calendar since a sync token (RFC 6578).
public struct SyncChanges: Sendable, Equatable {
  /// The token to give next time.
  public var token: String
  /// Items added or changed, with their new ETags.
  public var changed: [RemoteItem]
  /// Hrefs removed.
  public var removed: [String]
  /// The server sent only part of the changes (507 on the collection): call again with `token`.
  public var truncated: Bool
}

public struct FetchResult: Sendable, Equatable {
  public var objects: [RemoteObject]
  /// Hrefs the server no longer has (404 in the multiget).
  public var missing: [String]
}

/// The condition a PUT is made under.
public enum PutPrecondition: Sendable, Equatable {
  /// `If-None-Match: *`: create only; 412 if something is already there.
  case create
  /// `If-Match: ETAG`: replace only that version; 412 if it changed.
  case replace(etag: String)
}

public struct CalDAVClient: Sendable {
  public let baseURL: URL
  let credentials: Credentials?
  let transport: any HTTPTransport
  /// Hrefs per calendar-multiget request.
  public var multigetChunk = 100

  /// `baseURL`: the account's url (a server root, a principal, or a calendar home); must carry
  /// no user or password (every request to such a URL is refused with `.invalidRequest`: the
  /// password would show in messages and logs).
  public init(baseURL: URL, credentials: Credentials?, transport: any HTTPTransport) {
    self.baseURL = baseURL
    self.credentials = credentials
    self.transport = transport
  }

  /// An account's client as the settings give it: `password` is what password_command printed
  /// (or password_env held), `caFile` the account's ca_file. Requests go through libcurl
  /// (`CurlTransport`), which alone can trust a private CA on Linux.
  public init(url: URL, username: String?, password: String?, caFile: String?, timeout: Double = 30) {
    let credentials = username.map { Credentials(username: $0, password: password ?? "") }
    self.init(baseURL: url, credentials: credentials, transport: CurlTransport(caFile: caFile, timeout: timeout))
  }

  // MARK: - Discovery

  static let discoveryProperties: [DAVName] = [.currentUserPrincipal, .calendarHomeSet, .resourceType]
  static let calendarProperties: [DAVName] = [
    .displayName, .resourceType, .getCTag, .syncToken, .calendarColor, .supportedCalendarComponentSet,
  ]

  /// Finds the user's calendars: the well-known URL (RFC 6764) and then the account's URL for the
  /// current-user-principal, its calendar-home-set, and the calendars there that take events.
  public func discover() async throws(CalDAVError) -> Discovery {
    var principal: URL?
    var homes: [URL] = []
    for candidate in [wellKnownURL, baseURL].compactMap({ $0 }) {
      let response: HTTPResponse
      do {
        response = try await request(
          "PROPFIND",
          candidate,
          depth: "0",
          body: WebDAVRequests.propfind(Self.discoveryProperties)
        )
      } catch .notFound, .unexpectedStatus, .malformedResponse, .serverError, .forbidden {
        continue  // no well-known URL here (404, 405, an HTML page): the next candidate
      } catch .credentialsRefused(_, 403) where candidate != baseURL {
        continue  // some servers forbid the well-known path itself; the account's URL decides
      }
      // Not WebDAV here (another status, a body that is no multistatus): the next candidate.
      let status = response.status == 207 ? try? multiStatus(response) : nil  // ok: see above
      guard let first = status?.responses.first else { continue }

      if let href = first.hrefs(.currentUserPrincipal).first {
        principal = resolve(href, against: response.url)
      }
      homes = first.hrefs(.calendarHomeSet).compactMap { resolve($0, against: response.url) }
      if principal != nil || !homes.isEmpty { break }
    }
    if homes.isEmpty, let principal {
      let response = try await request(
        "PROPFIND",
        principal,
        depth: "0",
        body: WebDAVRequests.propfind([.calendarHomeSet])
      )
      let status = try multiStatus(response)
      homes = status.responses.first?.hrefs(.calendarHomeSet).compactMap { resolve($0, against: response.url) } ?? []
    }
    if homes.isEmpty {
      // No principal and no home named: the URL given may be the calendar home itself.
      homes = [principal ?? baseURL]
    }
    var calendars: [RemoteCalendar] = []
    for home in homes {
      calendars += try await self.calendars(in: home)
    }
    if calendars.isEmpty, homes == [principal ?? baseURL], principal == nil {
      throw .noCalendarHome(url: displayURL(baseURL))
    }
    return Discovery(principal: principal, calendarHomes: homes, calendars: calendars)
  }

  /// The calendars (collections that take VEVENT) directly in `home`.
  public func calendars(in home: URL) async throws(CalDAVError) -> [RemoteCalendar] {
    let response = try await request(
      "PROPFIND",
      home,
      depth: "1",
      body: WebDAVRequests.propfind(Self.calendarProperties)
    )
    let status = try multiStatus(response)
    return status.responses.compactMap { item in
      guard item.isCalendar, let url = resolve(item.href, against: response.url) else { return nil }
      if let components = item.supportedComponents, !components.contains("VEVENT") { return nil }
      return remoteCalendar(item, at: url)
    }
  }

  /// The calendar a PROPFIND response describes, at `url`.
  private func remoteCalendar(_ item: DAVResponse, at url: URL) -> RemoteCalendar {
    RemoteCalendar(
      url: url,
      href: path(of: url),
      displayName: item.displayName,
      color: item.calendarColor,
      ctag: item.ctag,
      syncToken: item.syncToken,
      components: item.supportedComponents
    )
  }

  /// The calendar's properties now (ctag, sync-token, name, colour).
  public func calendar(at url: URL) async throws(CalDAVError) -> RemoteCalendar {
    let response = try await request(
      "PROPFIND",
      url,
      depth: "0",
      body: WebDAVRequests.propfind(Self.calendarProperties)
    )
    let status = try multiStatus(response)
    guard let item = status.responses.first else {
      throw .malformedResponse(url: displayURL(url), reason: "the multistatus has no response")
    }
    return remoteCalendar(item, at: url)
  }

  // MARK: - Reading

  /// What changed in `calendar` since `token` (nil: everything, the initial sync). A token the
  /// server refuses throws `.invalidSyncToken`: fall back to `list`. One page: when `truncated`
  /// (Google pages a few hundred at a time), apply it, keep its token, and ask again with it.
  public func changes(in calendar: URL, since token: String?) async throws(CalDAVError) -> SyncChanges {
    let response = try await request(
      "REPORT",
      calendar,
      depth: "0",
      body: WebDAVRequests.syncCollection(since: token)
    )
    let status = try multiStatus(response)
    guard let newToken = status.syncToken else {
      throw .malformedResponse(url: displayURL(calendar), reason: "the sync-collection answer has no sync-token")
    }
    let collection = path(of: calendar)
    var changed: [RemoteItem] = []
    var removed: [String] = []
    var truncated = false
    for item in status.responses {
      let href = normalize(item.href, against: response.url)
      if sameCollection(href, collection) {
        if item.status == 507 { truncated = true }
        continue
      }
      // A collection is never an item (iCloud lists the calendar itself among the changes).
      if href.hasSuffix("/") || item.isCollection { continue }
      if item.status == 404 {
        removed.append(href)
      } else if item.status == nil || (200..<300).contains(item.status ?? 200) {
        changed.append(RemoteItem(href: href, etag: item.etag))
      }
    }
    return SyncChanges(token: newToken, changed: changed, removed: removed, truncated: truncated)
  }

  /// Every item of `calendar` with its ETag (PROPFIND Depth 1).
  public func list(_ calendar: URL) async throws(CalDAVError) -> [RemoteItem] {
    let response = try await request(
      "PROPFIND",
      calendar,
      depth: "1",
      body: WebDAVRequests.propfind([.getETag, .resourceType])
    )
    let status = try multiStatus(response)
    let collection = path(of: calendar)
    return status.responses.compactMap { item in
      let href = normalize(item.href, against: response.url)
      guard !sameCollection(href, collection), !item.isCollection else { return nil }
      return RemoteItem(href: href, etag: item.etag)
    }
  }

  /// The items at `hrefs` of `calendar` with their data (calendar-multiget, `multigetChunk` at
  /// a time). Hrefs the server does not have come back in `missing`.
  public func fetch(_ hrefs: [String], from calendar: URL) async throws(CalDAVError) -> FetchResult {
    var result = FetchResult(objects: [], missing: [])
    var start = 0
    while start < hrefs.count {
      let chunk = Array(hrefs[start..<min(start + max(1, multigetChunk), hrefs.count)])
      start += chunk.count
      let response = try await request(
        "REPORT",
        calendar,
        depth: "1",
        body: WebDAVRequests.calendarMultiget(chunk)
      )
      let status = try multiStatus(response)
      for item in status.responses {
        let href = normalize(item.href, against: response.url)
        if let data = item.calendarData {
          result.objects.append(RemoteObject(href: href, etag: item.etag, ics: data))
        } else if item.status == 404 || item.missing[.calendarData] == 404 {
          result.missing.append(href)
        }
      }
    }
    return result
  }

  /// One item by GET.
  public func get(_ href: String) async throws(CalDAVError) -> RemoteObject {
    let url = try itemURL(href)
    let response = try await request("GET", url, expecting: [200])
    return RemoteObject(
      href: path(of: url),
      etag: response.header("etag"),
      ics: String(decoding: response.body, as: UTF8.self)
    )
  }

  // MARK: - Writing

  /// Stores `ics` at `href` under `precondition`; returns the new ETag, or nil when the server
  /// gave none (or only a weak one: it changed the data), so the caller lists to learn it.
  @discardableResult
  public func put(_ href: String, ics: String, _ precondition: PutPrecondition) async throws(CalDAVError) -> String? {
    let url = try itemURL(href)
    var headers = [HTTPHeader("Content-Type", "text/calendar; charset=utf-8")]
    switch precondition {
    case .create: headers.append(HTTPHeader("If-None-Match", "*"))
    case .replace(let etag): headers.append(HTTPHeader("If-Match", etag))
    }
    let response = try await request("PUT", url, headers: headers, body: Data(ics.utf8), expecting: [200, 201, 204])
    guard let etag = response.header("etag"), !etag.hasPrefix("W/") else { return nil }
    return etag
  }

  /// Deletes `href`, only if its ETag is still `etag` (when given). A 404 throws `.notFound`:
  /// the item is gone already, which a sync takes as done.
  public func delete(_ href: String, ifMatch etag: String?) async throws(CalDAVError) {
    let url = try itemURL(href)
    let headers = etag.map { [HTTPHeader("If-Match", $0)] } ?? []
    _ = try await request("DELETE", url, headers: headers, expecting: [200, 202, 204])
  }

  // MARK: - Plumbing

  /// scheme://host[:port]/.well-known/caldav, or nil when the URL has no host.
  var wellKnownURL: URL? {
    guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true), components.host != nil else {
      return nil
    }
    components.percentEncodedPath = "/.well-known/caldav"
    components.query = nil
    components.fragment = nil
    return components.url
  }

  func itemURL(_ href: String) throws(CalDAVError) -> URL {
    guard let url = URL(string: href, relativeTo: baseURL)?.absoluteURL else {
      throw .invalidRequest(url: displayURL(baseURL), reason: "\(href) is not an href")
    }
    return url
  }

  func resolve(_ href: String, against base: URL) -> URL? {
    URL(string: href, relativeTo: base)?.absoluteURL
  }

  /// The percent-encoded path of `href` read against `base`.
  func normalize(_ href: String, against base: URL) -> String {
    guard let url = resolve(href, against: base) else { return href }
    return path(of: url)
  }

  func path(of url: URL) -> String {
    URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
  }

  /// The same path, whatever the trailing slash and percent-encoding (`%40` or `@`).
  func sameCollection(_ a: String, _ b: String) -> Bool {
    func trimmed(_ path: String) -> String {
      let decoded = path.removingPercentEncoding ?? path
      return decoded.hasSuffix("/") ? String(decoded.dropLast()) : decoded
    }
    return trimmed(a) == trimmed(b)
  }

  func multiStatus(_ response: HTTPResponse) throws(CalDAVError) -> MultiStatus {
    guard response.status == 207 else {
      throw .unexpectedStatus(url: displayURL(response.url), status: response.status, method: "a WebDAV request")
    }
    do {
      return try MultiStatus(parsing: response.body)
    } catch {
      throw .malformedResponse(url: displayURL(response.url), reason: error.reason)
    }
  }

  /// Sends one request (redirects followed, credentials added) and turns a failure status into
  /// the matching error. WebDAV requests expect 207.
  func request(
    _ method: String,
    _ url: URL,
    depth: String? = nil,
    headers: [HTTPHeader] = [],
    body: Data? = nil,
    expecting expected: Set<Int> = [207]
  ) async throws(CalDAVError) -> HTTPResponse {
    if url.user != nil || url.password != nil {
      throw .invalidRequest(
        url: displayURL(url),
        reason: "the URL holds a user name or password; give them as the account's username and password_command"
      )
    }
    var all = headers
    if let depth { all.append(HTTPHeader("Depth", depth)) }
    if body != nil, method == "PROPFIND" || method == "REPORT" {
      all.append(HTTPHeader("Content-Type", "application/xml; charset=utf-8"))
    }
    let response: HTTPResponse
    do {
      response = try await followingRedirects(
        HTTPRequest(method: method, url: url, headers: all, body: body),
        credentials: credentials,
        through: transport
      )
    } catch {
      throw CalDAVError(error)
    }
    if expected.contains(response.status) { return response }
    throw Self.statusError(response, method: method, requested: url)
  }

  static func statusError(_ response: HTTPResponse, method: String, requested: URL) -> CalDAVError {
    let url = displayURL(response.url)
    let conditions = DAVErrorBody(parsing: response.body)?.conditions ?? []
    if conditions.contains(.dav("valid-sync-token")) { return .invalidSyncToken(url: url) }
    switch response.status {
    case 401: return .credentialsRefused(url: url, status: 401)
    case 403:
      // A 403 on a collection (discovery, listing, a report) is the account refused; on an
      // item it is that item's rights.
      return method == "PROPFIND" || method == "REPORT"
        ? .credentialsRefused(url: url, status: 403) : .forbidden(url: url)
    case 404, 410: return .notFound(url: url)
    case 412: return .preconditionFailed(url: url)
    case 500..<600: return .serverError(url: url, status: response.status)
    default: return .unexpectedStatus(url: url, status: response.status, method: method)
    }
  }
}
