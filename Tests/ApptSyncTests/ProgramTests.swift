// appt-sync and `appt sync` as programs: arguments, settings, passwords, the lock, exit
// statuses and their messages. They run the built executables (next to this test
// bundle) in temp directories.

import ApptCalDAV
import Foundation
import Testing

/// The directory of the built products (.build/debug).
let productsDirectory: URL = {
  let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  if FileManager.default.fileExists(atPath: runner.appendingPathComponent("appt-sync").path) { return runner }
  return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent(".build/debug")
}()

struct Ran {
  var status: Int32
  var stdout: String
  var stderr: String
}

/// Runs `program` with `arguments` and `environment` (on top of a small fixed one).
func run(_ program: URL, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> Ran
{
  let process = Process()
  process.executableURL = program
  process.arguments = arguments
  var env = [
    "PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "interactive=no", "TZ": "Europe/Berlin", "HOME": "/nonexistent",
  ]
  env.merge(environment) { _, new in new }
  process.environment = env
  let out = Pipe()
  let err = Pipe()
  let input = Pipe()
  process.standardOutput = out
  process.standardError = err
  process.standardInput = input
  try process.run()
  if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
  try input.fileHandleForWriting.close()
  let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  return Ran(status: process.terminationStatus, stdout: stdout, stderr: stderr)
}

/// A temp directory, removed by the caller.
func temporaryDirectory() throws -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("appt-sync-tests-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

/// A port on 127.0.0.1 that nothing listens on.
func closedPort() throws -> Int {
  let ran = try run(
    URL(fileURLWithPath: "/usr/bin/env"),
    ["python3", "-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"]
  )
  return try #require(Int(ran.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
}

@Suite("appt-sync and appt sync as programs", .serialized)
struct ProgramTests {
  let sync = productsDirectory.appendingPathComponent("appt-sync")
  let appt = productsDirectory.appendingPathComponent("appt")

  func withFiles(_ config: String, _ body: (_ db: String, _ config: String, _ dir: URL) throws -> Void) throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let configPath = dir.appendingPathComponent("config").path
    try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    try body(dir.appendingPathComponent("db.sqlite3").path, configPath, dir)
  }

  @Test func noAccountsSaysHowToAddOne() throws {
    try withFiles("[ui]\ntime_format = 24h\n") { db, config, _ in
      let ran = try run(sync, ["--db", db, "--config", config])
      #expect(ran.status == 1)
      #expect(ran.stderr.hasPrefix("appt: no accounts to sync: \(config) has no [account NAME]; add one"))
      #expect(ran.stderr.contains("[account work]\n  url = "))
      // A settings file that does not exist (appt passes the default path even then): the same.
      let missing = try run(sync, ["--db", db, "--config", config + ".missing"])
      #expect(missing.status == 1 && missing.stderr.contains("has no [account NAME]"))
    }
  }

  @Test func unknownAccount() throws {
    try withFiles("[account work]\nurl = http://127.0.0.1:1/\nusername = u\npassword_env = P\n") { db, config, _ in
      let ran = try run(sync, ["--db", db, "--config", config, "home"])
      #expect(ran.status == 1)
      #expect(ran.stderr == "appt: no [account home] in \(config)\n")
      let viaAppt = try run(appt, ["--db", db, "--config", config, "sync", "home"])
      #expect(viaAppt.status == 1 && viaAppt.stderr == ran.stderr)
    }
  }

  @Test func settingsMistakesAreSaidAsApptSaysThem() throws {
    try withFiles("[account work]\nurl = ftp://x/\nusername = u\npassword_env = P\ntimeout = soon\n") { db, config, _ in
      let ran = try run(sync, ["--db", db, "--config", config])
      let byAppt = try run(appt, ["--db", db, "--config", config, "list"])
      #expect(ran.status == 2 && byAppt.status == 2)
      #expect(ran.stderr == byAppt.stderr)
      #expect(ran.stderr.contains("\(config):5: timeout: cannot understand \"soon\" as a timeout"))
    }
  }

  @Test func usageMistakes() throws {
    let ran = try run(sync, ["--bogus"])
    #expect(ran.status == 2 && ran.stderr.hasPrefix("appt: unknown option --bogus\nusage: appt-sync "))
    let appt = try run(self.appt, ["--config", "/dev/null", "sync", "--bogus"])
    #expect(appt.status == 2 && appt.stderr.contains("sync: unknown option \"--bogus\""))
    let help = try run(self.appt, ["--config", "/dev/null", "help", "sync"])
    #expect(help.status == 0 && help.stdout.hasPrefix("usage: sync [ACCOUNT...]"))
  }

  @Test func passwordProblemsExit3AndNeverShowThePassword() throws {
    let port = try closedPort()
    let text = """
      [account env]
      url = http://127.0.0.1:\(port)/
      username = u
      password_env = APPT_TEST_NO_SUCH_VARIABLE
      [account failing]
      url = http://127.0.0.1:\(port)/
      username = u
      password_command = echo $((6 * 7))secret; exit 4
      [account empty]
      url = http://127.0.0.1:\(port)/
      username = u
      password_command = true
      [account daemon]
      url = http://127.0.0.1:\(port)/
      username = u
      password_command = (sleep 30 2>/dev/null &) ; echo pw

      """
    try withFiles(text) { db, config, _ in
      let ran = try run(sync, ["--db", db, "--config", config, "--json"])
      #expect(ran.status == 3)
      // The command prints 42secret: shown nowhere (the command itself is).
      #expect(!ran.stdout.contains("42secret") && !ran.stderr.contains("42secret"))
      let objects = ran.stdout.split(separator: "\n").compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
      #expect(objects.map { $0["account"] as? String } == ["env", "failing", "empty", "daemon"])
      #expect(objects.allSatisfy { $0["calendar"] is NSNull && $0["synced"] is NSNull })
      let errors = objects.map { $0["error"] as? String ?? "" }
      #expect(errors[0].contains("APPT_TEST_NO_SUCH_VARIABLE, which is not set"))
      #expect(errors[1].contains("failed (exit 4)"))
      #expect(errors[2].contains("printed no password"))
      // A command that leaves a daemon holding its output: the first line is the password
      // (the server is then tried: unreachable), no wait for the daemon.
      #expect(errors[3].contains("cannot reach http://127.0.0.1:\(port)/"))
    }
  }

  @Test func unreachableServerExits3NamingTheAccountAndURL() throws {
    let port = try closedPort()
    try withFiles(
      "[account work]\nurl = http://127.0.0.1:\(port)/dav/\nusername = u\npassword_command = echo pw\ntimeout = 5s\n"
    ) {
      db,
      config,
      _ in
      let ran = try run(sync, ["--db", db, "--config", config])
      #expect(ran.status == 3)
      #expect(ran.stdout == "")
      #expect(ran.stderr.hasPrefix("appt: work: cannot reach http://127.0.0.1:\(port)/"), "\(ran.stderr)")
      // Through appt (exec) the same, and in script mode as a line's failure, exit 3 too.
      let viaAppt = try run(appt, ["--db", db, "--config", config, "sync"])
      // (curl's words carry how long the connect took: the same message, not the same text)
      #expect(viaAppt.status == 3)
      #expect(viaAppt.stderr.hasPrefix("appt: work: cannot reach http://127.0.0.1:\(port)/"), "\(viaAppt.stderr)")
      let script = try run(appt, ["--db", db, "--config", config], stdin: "sync work\nlist --all\n")
      #expect(script.status == 3)
      #expect(script.stderr.hasPrefix("line 1: work: cannot reach http://127.0.0.1:\(port)/"), "\(script.stderr)")
    }
  }

  @Test func aServerThatAnswersNothingTimesOutAfterTheAccountsTimeout() throws {
    // Accepts connections, never answers.
    let silent = Process()
    silent.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    silent.arguments = [
      "python3", "-c",
      "import socket, time\ns = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(8)\n"
        + "print(s.getsockname()[1], flush=True)\ntime.sleep(60)",
    ]
    let pipe = Pipe()
    silent.standardOutput = pipe
    try silent.run()
    defer { silent.terminate() }
    var line = Data()
    while let byte = try pipe.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
      line += byte
    }
    let port = try #require(Int(String(decoding: line, as: UTF8.self)))
    try withFiles("[account slow]\nurl = http://127.0.0.1:\(port)/\nusername = u\npassword_env = P\ntimeout = 1s\n") {
      db,
      config,
      _ in
      let ran = try run(sync, ["--db", db, "--config", config, "--json"], environment: ["P": "pw"])
      #expect(ran.status == 3)
      #expect(ran.stderr.contains("appt: slow: http://127.0.0.1:\(port)/"), "\(ran.stderr)")
      #expect(ran.stderr.contains("did not answer within 1 s"), "\(ran.stderr)")
      #expect(ran.stdout.contains("\"error\":\"http://127.0.0.1:\(port)/"))
    }
  }

  @Test func oneSyncPerStoreAtATime() throws {
    try withFiles("[account work]\nurl = http://127.0.0.1:1/\nusername = u\npassword_env = P\n") { db, config, _ in
      // Another sync holds the store's lock.
      _ = try run(sync, ["--db", db, "--config", config, "nobody"])  // creates the store
      let fd = open(db + ".sync-lock", O_RDWR | O_CREAT, 0o600)
      #expect(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
      let ran = try run(sync, ["--db", db, "--config", config], environment: ["APPT_SYNC_WAIT": "0"])
      close(fd)
      #expect(ran.status == 1)
      #expect(ran.stderr == "appt: another sync of \(db) is running; try again when it has finished\n")
    }
  }

  @Test func aSecondSyncWaitsForTheFirst() throws {
    try withFiles("[account work]\nurl = http://127.0.0.1:1/\nusername = u\npassword_env = P\n") { db, config, _ in
      _ = try run(sync, ["--db", db, "--config", config, "nobody"])  // creates the store
      let fd = open(db + ".sync-lock", O_RDWR | O_CREAT, 0o600)
      #expect(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
      let process = Process()
      process.executableURL = sync
      process.arguments = ["--db", db, "--config", config]
      process.environment = ["PATH": "/usr/bin:/bin", "SWIFT_BACKTRACE": "interactive=no", "P": "pw"]
      let err = Pipe()
      process.standardError = err
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      // It says it waits, and goes on once the lock is free.
      var said = Data()
      while !String(decoding: said, as: UTF8.self).contains("\n"),
        let byte = try err.fileHandleForReading.read(upToCount: 1), !byte.isEmpty
      {
        said += byte
      }
      #expect(
        String(decoding: said, as: UTF8.self) == "appt: another sync of \(db) is running; waiting for it to finish\n"
      )
      close(fd)
      let rest = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(!rest.contains("another sync"), "\(rest)")
      #expect(rest.contains("127.0.0.1:1"), "its own run, against the account's server: \(rest)")
    }
  }

  @Test func apptWithoutAppSyncNearbySaysSo() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let copy = dir.appendingPathComponent("appt")
    try FileManager.default.copyItem(at: appt, to: copy)
    let ran = try run(copy, ["--db", dir.appendingPathComponent("db").path, "--config", "/dev/null", "sync"])
    #expect(ran.status == 1)
    #expect(
      ran.stderr
        == "appt: sync needs the appt-sync program next to appt (not found in \(dir.resolvingSymlinksInPath().path) or PATH)\n"
    )
  }
}
