// Shared by the CalDAV tests: recorded answers, a scripted transport, and the throwaway servers
// of Tests/caldav/with-servers.sh (APPT_TEST_RADICALE_URL, ...).

import ApptCalDAV
import Foundation
import Testing

/// A recorded server answer from Fixtures/.
func fixture(_ name: String) throws -> Data {
  let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
  return try Data(contentsOf: url)
}

/// A transport that answers from a script and remembers what it was sent.
actor ScriptedTransport: HTTPTransport {
  typealias Answer = @Sendable (HTTPRequest) -> Result<HTTPResponse, TransportError>
  private let answer: Answer
  private(set) var sent: [HTTPRequest] = []

  init(_ answer: @escaping Answer) { self.answer = answer }

  func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
    sent.append(request)
    return try answer(request).get()
  }

  static func respond(status: Int, headers: [String: String] = [:], body: String = "", url: URL) -> Result<
    HTTPResponse, TransportError
  > {
    .success(HTTPResponse(status: status, headers: headers, body: Data(body.utf8), url: url))
  }
}

/// One of the throwaway servers, reached through libcurl (`CurlTransport`, appt's transport).
struct TestServer: Sendable, CustomTestStringConvertible {
  let name: String
  let url: URL
  let credentials: Credentials?
  var testDescription: String { name }

  static let environment = ProcessInfo.processInfo.environment

  static var credentials: Credentials? {
    guard let user = environment["APPT_TEST_CALDAV_USER"], let password = environment["APPT_TEST_CALDAV_PASSWORD"]
    else { return nil }
    return Credentials(username: user, password: password)
  }

  /// Radicale (Basic auth) and Xandikos (no auth) over http, when the harness runs.
  static var plain: [TestServer] {
    var servers: [TestServer] = []
    if let url = environment["APPT_TEST_RADICALE_URL"].flatMap(URL.init(string:)) {
      servers.append(TestServer(name: "Radicale", url: url, credentials: credentials))
    }
    if let url = environment["APPT_TEST_XANDIKOS_URL"].flatMap(URL.init(string:)) {
      servers.append(TestServer(name: "Xandikos", url: url, credentials: nil))
    }
    return servers
  }

  static var https: TestServer? {
    environment["APPT_TEST_HTTPS_URL"].flatMap(URL.init(string:)).map {
      TestServer(name: "Radicale (https)", url: $0, credentials: credentials)
    }
  }

  static var caFile: String? { environment["APPT_TEST_CA_FILE"] }
  static var available: Bool { plain.count == 2 && https != nil && caFile != nil }

  func client() -> CalDAVClient {
    CalDAVClient(baseURL: url, credentials: credentials, transport: CurlTransport(timeout: 20))
  }

  /// The seeded calendar "work".
  func workCalendar(_ client: CalDAVClient) async throws -> RemoteCalendar {
    let discovery = try await client.discover()
    return try #require(discovery.calendars.first { $0.displayName == "Work" }, "no Work in \(discovery)")
  }
}

/// A port on 127.0.0.1 that nothing listens on (bound, then closed).
func closedPort() throws -> Int {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [
    "python3", "-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])",
  ]
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  process.waitUntilExit()
  let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
}

/// Runs Tests/caldav/client.py (Python's caldav) with the credentials in its environment.
func pythonClient(_ arguments: [String], credentials: Credentials?) throws -> String {
  let script = try #require(TestServer.environment["APPT_TEST_CALDAV_CLIENT"])
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["python3", script] + arguments
  var environment = ProcessInfo.processInfo.environment
  if let credentials {
    environment["APPT_CALDAV_USER"] = credentials.username
    environment["APPT_CALDAV_PASSWORD"] = TestServer.environment["APPT_TEST_CALDAV_PASSWORD"]
  }
  process.environment = environment
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  try #require(process.terminationStatus == 0, "client.py \(arguments): \(errors)")
  return output
}

/// A URL the test spells out (a typo shows as a failed request to /invalid).
func testURL(_ string: String) -> URL {
  URL(string: string) ?? URL(fileURLWithPath: "/invalid")
}

/// A TCP port on 127.0.0.1 that accepts connections and never answers (a hung server), for as
/// long as the returned process runs.
func silentServer() throws -> (port: Int, process: Process) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [
    "python3", "-c",
    "import socket, time\ns = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(8)\nprint(s.getsockname()[1], flush=True)\ntime.sleep(60)",
  ]
  let pipe = Pipe()
  process.standardOutput = pipe
  try process.run()
  var line = Data()
  while let byte = try pipe.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
    line += byte
  }
  let port = try #require(Int(String(decoding: line, as: UTF8.self)), "the silent server printed no port")
  return (port, process)
}
