// SyncLauncher: where appt finds appt-sync, the arguments it passes, and a child's output and
// exit status.

import ApptStore
import Foundation
import Testing

@testable import ApptRuntime

@Suite struct LauncherTests {
  @Test func locatesNextToAppt() throws {
    #expect(SyncLauncher.locateSyncProgram() == nil || SyncLauncher.ownDirectory != nil)
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let other = dir.appendingPathComponent("bin")
    try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
    let onPath = other.appendingPathComponent("appt-sync").path
    #expect(FileManager.default.createFile(atPath: onPath, contents: Data("#!/bin/sh\n".utf8)))
    #expect(SyncLauncher.locate(in: dir.path, path: "/nonexistent:\(other.path)") == nil)  // not executable
    chmod(onPath, 0o755)
    #expect(SyncLauncher.locate(in: dir.path, path: "/nonexistent:\(other.path)") == onPath)
    let nextTo = dir.appendingPathComponent("appt-sync").path
    #expect(
      FileManager.default.createFile(
        atPath: nextTo,
        contents: Data("#!/bin/sh\n".utf8),
        attributes: [.posixPermissions: 0o755]
      )
    )
    #expect(SyncLauncher.locate(in: dir.path, path: other.path) == nextTo)
    #expect(SyncLauncher.locate(in: nil, path: "") == nil)
  }

  @Test func passesTheResolvedStoreAndSettings() {
    #expect(
      SyncLauncher.arguments(
        database: .file(URL(fileURLWithPath: "/d/a.sqlite3")),
        config: "/c",
        json: true,
        accounts: ["w"]
      )
        == ["--db", "/d/a.sqlite3", "--config", "/c", "--json", "--", "w"]
    )
    #expect(
      SyncLauncher.arguments(
        database: .postgres(url: "postgresql://h/db"),
        config: "/c",
        json: false,
        quiet: true,
        accounts: []
      )
        == ["--db", "postgresql://h/db", "--config", "/c", "--quiet"]
    )
    #expect(SyncLauncher.arguments(database: .inMemory, config: "/c", json: false, accounts: []) == nil)
  }

  @Test func runsAChildAndReadsBothStreams() async {
    // More than a pipe holds on both streams: neither may block the other.
    let script = "head -c 200000 /dev/zero | tr '\\000' o; head -c 200000 /dev/zero | tr '\\000' e >&2; exit 3"
    let result = await SyncLauncher.run(program: "/bin/sh", arguments: ["-c", script])
    #expect(result.status == 3)
    #expect(result.stdout.count == 200_000 && result.stdout.allSatisfy { $0 == "o" })
    #expect(result.stderr.count == 200_000)
    let killed = await SyncLauncher.run(program: "/bin/sh", arguments: ["-c", "kill -9 $$"])
    #expect(killed.status == 137)
    let missing = await SyncLauncher.run(program: "/nonexistent/appt-sync", arguments: [])
    #expect(missing.status == 126 || missing.status == 127)
  }
}
