// What a CalDAV operation can fail with, as values: each case names the URL (never with a
// user or password in it) and `description` says what went wrong and what to do.

import Foundation

public enum CalDAVError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No connection (name, refused, cut), or no answer within the timeout.
  case unreachable(url: String, reason: String)
  case timedOut(url: String, seconds: Double)
  /// TLS: the server's certificate is not trusted, or the CA file could not be used.
  case certificateRejected(url: String, reason: String)
  /// 401, or 403 on discovery: the user name or password was refused.
  case credentialsRefused(url: String, status: Int)
  /// 403 on an item: this user may not do that here.
  case forbidden(url: String)
  /// 412: If-Match / If-None-Match did not hold (changed or created meanwhile on the server).
  case preconditionFailed(url: String)
  case notFound(url: String)
  /// The sync token was refused (RFC 6578 DAV:valid-sync-token, as 403, 409 or 412): start
  /// over with an initial sync or an ETag listing.
  case invalidSyncToken(url: String)
  /// 5xx.
  case serverError(url: String, status: Int)
  /// Any other status where another was expected.
  case unexpectedStatus(url: String, status: Int, method: String)
  /// The body could not be read as the answer it should be.
  case malformedResponse(url: String, reason: String)
  /// A redirect to another scheme, or too many of them.
  case redirectRefused(url: String, location: String, reason: String)
  /// Discovery found no calendar home (no calendar-home-set, and the URL is no calendar home).
  case noCalendarHome(url: String)
  case invalidRequest(url: String, reason: String)

  public var url: String {
    switch self {
    case .unreachable(let url, _), .timedOut(let url, _), .certificateRejected(let url, _),
      .credentialsRefused(let url, _), .forbidden(let url), .preconditionFailed(let url), .notFound(let url),
      .invalidSyncToken(let url), .serverError(let url, _), .unexpectedStatus(let url, _, _),
      .malformedResponse(let url, _), .redirectRefused(let url, _, _), .noCalendarHome(let url),
      .invalidRequest(let url, _):
      url
    }
  }

  /// The server could not be reached or refused the credentials: `appt sync` exits 3 for these.
  public var isUnavailable: Bool {
    switch self {
    case .unreachable, .timedOut, .certificateRejected, .credentialsRefused: true
    default: false
    }
  }

  public var description: String {
    switch self {
    case .unreachable(let url, let reason):
      "cannot reach \(url): \(reason); check the account's url and that the server is up (changes wait for the next sync)"
    case .timedOut(let url, let seconds):
      "\(url) did not answer within \(Self.seconds(seconds)); the server may be down or slow (changes wait for the next sync)"
    case .certificateRejected(let url, let reason):
      "the certificate of \(url) is not trusted (\(reason)); if the server uses a private CA, set ca_file in the account to that CA's certificate (PEM)"
    case .credentialsRefused(let url, let status):
      "\(url) refused the user name or password (HTTP \(status)); check the account's username and password_command / password_env"
    case .forbidden(let url):
      "\(url) refused the request (HTTP 403): this user may not change it"
    case .preconditionFailed(let url):
      "\(url) changed on the server since it was read (HTTP 412); sync again to read it first"
    case .notFound(let url):
      "\(url) does not exist on the server (HTTP 404)"
    case .invalidSyncToken(let url):
      "\(url) no longer accepts the sync token; a full listing is needed"
    case .serverError(let url, let status):
      "\(url) failed on the server (HTTP \(status)); try again later"
    case .unexpectedStatus(let url, let status, let method):
      "\(url) answered \(method) with HTTP \(status); is this a CalDAV server?"
    case .malformedResponse(let url, let reason):
      "\(url) sent an answer that cannot be read: \(reason)"
    case .redirectRefused(let url, let location, let reason):
      "\(url) redirected to \(location), not followed: \(reason)"
    case .noCalendarHome(let url):
      "no calendars found at \(url): the server named no calendar-home-set; set url to the calendar home (e.g. .../calendars/USER/)"
    case .invalidRequest(let url, let reason):
      "cannot send a request to \(url): \(reason)"
    }
  }

  private static func seconds(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
  }

  init(_ error: TransportError) {
    switch error {
    case .unreachable(let url, let reason): self = .unreachable(url: url, reason: reason)
    case .timedOut(let url, let seconds): self = .timedOut(url: url, seconds: seconds)
    case .certificateRejected(let url, let reason): self = .certificateRejected(url: url, reason: reason)
    case .redirectRefused(let url, let location, let reason):
      self = .redirectRefused(url: url, location: location, reason: reason)
    case .invalidRequest(let url, let reason): self = .invalidRequest(url: url, reason: reason)
    case .answerTooLarge(let url, let reason): self = .malformedResponse(url: url, reason: reason)
    }
  }
}
