// HTTP through Foundation's URLSession (on Linux: swift-corelibs-foundation over libcurl).
//
// TLS verification is always on and uses the system's trust store. A private CA (`ca_file`)
// cannot be given to it on Linux: swift-corelibs-foundation reads its only hook for libcurl's
// CA file, the environment variable `URLSessionCertificateAuthorityInfoFile`, under
// `#if os(Android)` only (_EasyHandle.setCARootBundlePath), and libcurl itself reads neither
// SSL_CERT_FILE nor CURL_CA_BUNDLE (checked against a test CA: all three are ignored). An
// account with a `ca_file` goes through `CurlTransport`, which sets CURLOPT_CAINFO itself.

import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

public final class URLSessionTransport: HTTPTransport {
  private let session: URLSession
  private let timeout: Double

  /// `timeout`: seconds a request may take, from connecting to the last byte of the answer.
  public init(timeout: Double = 30) {
    self.timeout = timeout
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.timeoutIntervalForResource = timeout
    configuration.httpCookieStorage = nil
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCredentialStorage = nil
    session = URLSession(configuration: configuration)
  }

  deinit { session.finishTasksAndInvalidate() }

  public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
    var urlRequest = URLRequest(url: request.url, timeoutInterval: timeout)
    urlRequest.httpMethod = request.method
    for header in request.headers {
      urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
    }
    urlRequest.httpBody = request.body
    let url = displayURL(request.url)
    let delegate = RequestDelegate()
    let result: Result<(Data, URLResponse), any Error> = await withCheckedContinuation { continuation in
      let task = session.dataTask(with: urlRequest) { data, response, error in
        if let error {
          continuation.resume(returning: .failure(error))
        } else if let response {
          continuation.resume(returning: .success((data ?? Data(), response)))
        } else {
          continuation.resume(returning: .failure(URLError(.badServerResponse)))
        }
      }
      task.delegate = delegate
      task.resume()
    }
    switch result {
    case .success((let data, let response)):
      guard let http = response as? HTTPURLResponse else {
        throw .invalidRequest(url: url, reason: "the answer is not HTTP")
      }
      return HTTPResponse(
        status: http.statusCode,
        headers: Self.headers(http),
        body: data,
        url: http.url ?? request.url
      )
    case .failure(let error):
      if let refused = delegate.refused.withLock({ $0 }) {
        return HTTPResponse(
          status: refused.statusCode,
          headers: Self.headers(refused),
          body: Data(),
          url: refused.url ?? request.url
        )
      }
      throw Self.transportError(error, url: url, timeout: timeout)
    }
  }

  static func headers(_ response: HTTPURLResponse) -> [String: String] {
    var headers: [String: String] = [:]
    for (name, value) in response.allHeaderFields {
      if let name = name as? String, let value = value as? String { headers[name] = value }
    }
    return headers
  }

  static func transportError(_ error: any Error, url: String, timeout: Double) -> TransportError {
    let nsError = error as NSError
    let reason = nsError.localizedDescription
    switch URLError.Code(rawValue: nsError.code) {
    case .timedOut:
      return .timedOut(url: url, seconds: timeout)
    case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
      .serverCertificateNotYetValid, .secureConnectionFailed, .clientCertificateRejected:
      return .certificateRejected(url: url, reason: reason)
    case .badURL, .unsupportedURL:
      return .invalidRequest(url: url, reason: reason)
    default:
      // libcurl's TLS failures come through as NSURLErrorUnknown with curl's own text.
      let lowered = reason.lowercased()
      if lowered.contains("ssl") || lowered.contains("certificate") || lowered.contains("tls") {
        return .certificateRejected(url: url, reason: reason)
      }
      return .unreachable(url: url, reason: reason)
    }
  }
}

/// One request's delegate (set on its task): hands every 3xx back as the answer
/// (`followingRedirects` decides where to go), and every 401 too. Credentials are sent up front
/// by `followingRedirects`, never from a store; and swift-corelibs-foundation never completes a
/// task that got a 401 with WWW-Authenticate when the challenge is handled by default (seen
/// against Radicale: the request hung). So the challenge is cancelled and its failure
/// response kept, to be returned as the answer.
private final class RequestDelegate: NSObject, URLSessionTaskDelegate, Sendable {
  let refused = Mutex<HTTPURLResponse?>(nil)

  func urlSession(
    _ session: URLSession,
    task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest,
    completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }

  func urlSession(
    _ session: URLSession,
    task: URLSessionTask,
    didReceive challenge: URLAuthenticationChallenge,
    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
  ) {
    let response = challenge.failureResponse as? HTTPURLResponse
    refused.withLock { $0 = response }
    completionHandler(.cancelAuthenticationChallenge, nil)
  }
}
