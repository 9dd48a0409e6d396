// The HTTP layer under CalDAV: one request in, status, headers and body out, and a typed error
// for everything that is not an HTTP answer (the server could not be reached, it did not
// answer in time, its certificate was refused, a redirect went where it may not).
//
// A transport never follows a redirect on its own: `followingRedirects` does, the same way for
// every transport, re-sending the same method and body (WebDAV needs PROPFIND to stay
// PROPFIND, RFC 6764 section 5), on the same scheme only (an https account never goes to http),
// and sending the credentials to the origin they were given for, or to another host only over
// verified https (a well-known URL on example.com may send its users to dav.provider.net; over
// plain http the password is never sent anywhere it was not asked for).

public import Foundation

/// A user name and password for HTTP Basic authentication. The password is the caller's (it ran
/// `password_command` or read `password_env`); it is never printed, logged, put in a URL or in
/// an error message: `description` and reflection show `username:***`.
public struct Credentials: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
  public let username: String
  let password: String

  public init(username: String, password: String) {
    self.username = username
    self.password = password
  }

  /// The `Authorization` header's value (RFC 7617; UTF-8 user and password).
  var basicAuthorization: String {
    "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
  }

  public var description: String { "\(username):***" }
  public var customMirror: Mirror { Mirror(self, children: ["username": username, "password": "***"]) }
}

/// One HTTP request. `url` carries no user or password (see `Credentials`).
public struct HTTPRequest: Sendable, Equatable {
  public var method: String
  public var url: URL
  /// Header fields in order; names as written (compared case-insensitively by servers).
  public var headers: [HTTPHeader]
  public var body: Data?

  public init(method: String, url: URL, headers: [HTTPHeader] = [], body: Data? = nil) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
  }
}

public struct HTTPHeader: Sendable, Equatable {
  public var name: String
  public var value: String
  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

/// One HTTP answer, whatever its status.
public struct HTTPResponse: Sendable, Equatable {
  public var status: Int
  /// Header fields by lower-cased name (a repeated field's values joined with ", ").
  public var headers: [String: String]
  public var body: Data
  /// The URL that answered (after redirects).
  public var url: URL

  public init(status: Int, headers: [String: String], body: Data, url: URL) {
    self.status = status
    self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
    self.body = body
    self.url = url
  }

  public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What went wrong below HTTP. Every case names the URL (without credentials) it was about.
public enum TransportError: Error, Sendable, Equatable {
  /// No connection: the name did not resolve, nothing listens, the connection was cut.
  case unreachable(url: String, reason: String)
  /// Connected (or trying to) but no complete answer within the timeout.
  case timedOut(url: String, seconds: Double)
  /// TLS: the server's certificate was not trusted (unknown CA, wrong name, expired), or the
  /// CA file given could not be used. Verification is never turned off.
  case certificateRejected(url: String, reason: String)
  /// A redirect to another scheme (https -> http), or more than `maxRedirects` of them.
  case redirectRefused(url: String, location: String, reason: String)
  /// The answer was refused for its size (it is not held in memory).
  case answerTooLarge(url: String, reason: String)
  /// The request itself could not be made (a bad URL, a transport that is not available).
  case invalidRequest(url: String, reason: String)
}

/// Sends one HTTP request and returns the server's answer, redirects included (3xx come back as
/// answers: `followingRedirects` handles them).
public protocol HTTPTransport: Sendable {
  func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse
}

/// A URL as it may appear in a message: scheme, host, port, path; no user, password, query or
/// fragment.
public func displayURL(_ url: URL) -> String {
  guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
    return "(a URL)"
  }
  components.user = nil
  components.password = nil
  components.query = nil
  components.fragment = nil
  return components.string ?? "(a URL)"
}

public let defaultMaxRedirects = 5

/// Sends `request` through `transport`, following redirects (301, 302, 303, 307, 308) with the
/// same method and body: at most `maxRedirects`, on the same scheme only. `credentials` are sent
/// to the origin (scheme, host, port) of the first request, and to another origin a redirect
/// names only when both are https (verified TLS); over http never to another host.
public func followingRedirects(
  _ request: HTTPRequest,
  credentials: Credentials?,
  through transport: any HTTPTransport,
  maxRedirects: Int = defaultMaxRedirects
) async throws(TransportError) -> HTTPResponse {
  let origin = Origin(request.url)
  var current = request
  var hops = 0
  while true {
    var sent = current
    sent.headers.removeAll { $0.name.lowercased() == "authorization" }
    if let credentials, Origin(sent.url) == origin || (origin.scheme == "https" && Origin(sent.url).scheme == "https") {
      sent.headers.append(HTTPHeader("Authorization", credentials.basicAuthorization))
    }
    let response = try await transport.send(sent)
    guard [301, 302, 303, 307, 308].contains(response.status), let location = response.header("location")
    else { return response }
    guard let next = URL(string: location, relativeTo: current.url)?.absoluteURL else {
      throw .redirectRefused(
        url: displayURL(current.url),
        location: location,
        reason: "the Location header is not a URL"
      )
    }
    guard next.scheme?.lowercased() == current.url.scheme?.lowercased() else {
      throw .redirectRefused(
        url: displayURL(current.url),
        location: displayURL(next),
        reason: "it changes the scheme (\(current.url.scheme ?? "?") to \(next.scheme ?? "?")); check the account's url"
      )
    }
    hops += 1
    if hops > maxRedirects {
      throw .redirectRefused(
        url: displayURL(request.url),
        location: displayURL(next),
        reason: "more than \(maxRedirects) redirects"
      )
    }
    current.url = next
  }
}

private struct Origin: Equatable {
  let scheme: String
  let host: String
  let port: Int?

  init(_ url: URL) {
    let scheme = url.scheme?.lowercased() ?? ""
    self.scheme = scheme
    host = url.host?.lowercased() ?? ""
    port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
  }
}
