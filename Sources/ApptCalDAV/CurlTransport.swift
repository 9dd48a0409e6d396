// HTTP through libcurl directly (CurlLoader: loaded with dlopen when first used), for what
// URLSession cannot do on Linux: trust a private CA given as a file (an account's `ca_file`,
// CURLOPT_CAINFO). TLS verification is always on, peer and host name; there is no switch to
// turn it off. Redirects come back as answers (`followingRedirects` follows them).

import CurlLoader
import Foundation

public final class CurlTransport: HTTPTransport {
  let caFile: String?
  let timeout: Double
  let connectTimeout: Double

  /// `caFile`: a PEM file of the CA certificate(s) to trust instead of the system's; nil: the
  /// system's. `timeout`: seconds a whole request may take; `connectTimeout`: the connection.
  public init(caFile: String? = nil, timeout: Double = 30, connectTimeout: Double = 10) {
    self.caFile = caFile
    self.timeout = timeout
    self.connectTimeout = connectTimeout
  }

  public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
    let url = displayURL(request.url)
    if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
      throw .certificateRejected(url: url, reason: "the CA file \(caFile) cannot be read")
    }
    let caFile = self.caFile
    let timeout = self.timeout
    let connectTimeout = self.connectTimeout
    let result: Result<HTTPResponse, TransportError> = await withCheckedContinuation { continuation in
      // libcurl blocks: on a thread of its own, not the cooperative pool's.
      DispatchQueue.global(qos: .utility).async {
        continuation.resume(
          returning: Self.perform(request, caFile: caFile, timeout: timeout, connectTimeout: connectTimeout)
        )
      }
    }
    return try result.get()
  }

  static func perform(
    _ request: HTTPRequest,
    caFile: String?,
    timeout: Double,
    connectTimeout: Double
  ) -> Result<HTTPResponse, TransportError> {
    let url = displayURL(request.url)
    let lines = request.headers.map { "\($0.name): \($0.value)" }
    let body = request.body
    var response = appt_curl_response()
    withCStrings(lines) { headerPointers in
      request.method.withCString { method in
        request.url.absoluteString.withCString { urlString in
          withOptionalCString(caFile) { ca in
            let perform = { (bodyPointer: UnsafeRawPointer?, bodyLength: Int) in
              headerPointers.withUnsafeBufferPointer { headers in
                var curlRequest = appt_curl_request(
                  method: method,
                  url: urlString,
                  headers: headers.baseAddress,
                  header_count: headers.count,
                  body: bodyPointer,
                  body_length: bodyLength,
                  ca_file: ca,
                  timeout_ms: Int(timeout * 1000),
                  connect_timeout_ms: Int(min(connectTimeout, timeout) * 1000)
                )
                appt_curl_perform(&curlRequest, &response)
              }
            }
            if let body {
              // An empty body still needs a non-NULL pointer (curl would read a C string otherwise).
              let bytes = body.isEmpty ? Data([0]) : body
              bytes.withUnsafeBytes { perform($0.baseAddress, body.count) }
            } else {
              perform(nil, 0)
            }
          }
        }
      }
    }
    defer { appt_curl_response_free(&response) }
    let message = withUnsafeBytes(of: response.message) { bytes in
      String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
    switch response.outcome {
    case APPT_CURL_OK:
      let headerText =
        response.header_block.map {
          String(decoding: UnsafeRawBufferPointer(start: $0, count: response.header_length), as: UTF8.self)
        } ?? ""
      let bodyData = response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
      return .success(
        HTTPResponse(status: response.status, headers: parseHeaders(headerText), body: bodyData, url: request.url)
      )
    case APPT_CURL_TIMED_OUT:
      return .failure(.timedOut(url: url, seconds: timeout))
    case APPT_CURL_CERTIFICATE:
      return .failure(.certificateRejected(url: url, reason: message))
    case APPT_CURL_UNREACHABLE:
      return .failure(.unreachable(url: url, reason: message))
    case APPT_CURL_TOO_LARGE:
      return .failure(.answerTooLarge(url: url, reason: message))
    default:
      return .failure(.invalidRequest(url: url, reason: message))
    }
  }

  /// The header fields of the last response in `block` (after any 1xx).
  static func parseHeaders(_ block: String) -> [String: String] {
    var headers: [String: String] = [:]
    for line in block.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r\n" || $0 == "\n" }) {
      if line.hasPrefix("HTTP/") {
        headers = [:]  // a new response begins
        continue
      }
      guard let colon = line.firstIndex(of: ":") else { continue }
      let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      headers[name] = headers[name].map { $0 + ", " + value } ?? value
    }
    return headers
  }
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
  guard let string else { return body(nil) }
  return string.withCString { body($0) }
}

/// `strings` as C strings alive for the duration of `body`.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
  var copies: [UnsafeMutablePointer<CChar>?] = []
  copies.reserveCapacity(strings.count)
  for string in strings {
    copies.append(strdup(string))
  }
  defer { copies.forEach { free($0) } }
  return body(copies.map { $0.map { UnsafePointer($0) } })
}
