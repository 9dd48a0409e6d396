// swift-tools-version:6.0
// appt: a terminal appointment book. One target per layer; see shared/DESIGN.md.
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
  name: "appt",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "appt", targets: ["appt"]),
    .executable(name: "appt-sync", targets: ["appt-sync"]),
  ],
  targets: [
    // MARK: - C boundary
    .systemLibrary(name: "CNCursesW", path: "Sources/CNCursesW"),
    .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
    // libpq's declarations only: the library itself is loaded when first used (LibPQLoader).
    .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ"),
    .target(name: "LibPQLoader", path: "Sources/LibPQLoader"),
    // Linux's timerfd, inotify, flock and posix_spawn, for the reminder daemon.
    .systemLibrary(name: "CLinuxEvents", path: "Sources/CLinuxEvents"),

    // MARK: - Layers
    .target(name: "ApptCore", swiftSettings: strict),
    .target(name: "ApptStore", dependencies: ["ApptCore", "CSQLite", "CLibPQ", "LibPQLoader"], swiftSettings: strict),
    .target(name: "ApptUI", dependencies: ["ApptCore"], swiftSettings: strict),
    .target(name: "ApptTerminal", dependencies: ["ApptUI", "CNCursesW"], swiftSettings: strict),
    .target(
      name: "ApptRuntime",
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptTerminal"],
      swiftSettings: strict
    ),
    // CalDAV (RFC 4791, 6578): HTTP through libcurl, loaded when first used (it can trust a
    // private CA, `ca_file`, which URLSession cannot on Linux), and kept out of the `appt`
    // executable (PLATFORM.md: start-up cost): the sync runs as its own executable.
    .target(name: "CurlLoader", path: "Sources/CurlLoader"),
    .target(name: "ApptCalDAV", dependencies: ["ApptCore", "CurlLoader"], swiftSettings: strict),
    // The reminder daemon (`appt remind`): the schedule, the loop, its wake source, the lock.
    .target(name: "ApptRemind", dependencies: ["ApptCore", "ApptStore", "CLinuxEvents"], swiftSettings: strict),
    .executableTarget(
      name: "appt",
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptTerminal", "ApptRuntime", "ApptRemind"],
      swiftSettings: strict
    ),
    // The sync engine (pull then push per calendar) and its executable, which `appt sync` runs:
    // the only programs that link the HTTP stack.
    .target(name: "ApptSync", dependencies: ["ApptCore", "ApptStore", "ApptCalDAV"], swiftSettings: strict),
    .executableTarget(
      name: "appt-sync",
      // ApptUI for the key map's vocabulary only: the settings file is read as appt reads it.
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptCalDAV", "ApptSync"],
      swiftSettings: strict
    ),

    // MARK: - Benchmarks (`make bench`)
    .executableTarget(
      name: "appt-bench",
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptTerminal", "ApptRuntime"],
      path: "Benchmarks/Sources",
      swiftSettings: strict
    ),

    // MARK: - Tests
    .target(
      name: "ApptTestSupport",
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptTerminal", "ApptRuntime"],
      path: "Tests/ApptTestSupport",
      swiftSettings: strict
    ),
    .testTarget(
      name: "ApptCoreTests",
      dependencies: ["ApptCore", "ApptTestSupport"],
      exclude: ["Fixtures"],  // dateutil's recurrence cases, read through #filePath
      swiftSettings: strict
    ),
    .testTarget(
      name: "ApptStoreTests",
      dependencies: ["ApptCore", "ApptStore", "ApptTestSupport"],
      // One database file per shipped schema version; each must migrate forward intact.
      resources: [.copy("Fixtures")],
      swiftSettings: strict
    ),
    .testTarget(
      name: "ApptUITests",
      dependencies: ["ApptCore", "ApptUI", "ApptTestSupport"],
      exclude: ["Snapshots"],  // read through #filePath, so they can be re-recorded in place
      swiftSettings: strict
    ),
    .testTarget(
      name: "ApptTerminalTests",
      dependencies: ["ApptUI", "ApptTerminal", "CNCursesW"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "ApptCalDAVTests",
      dependencies: ["ApptCalDAV"],
      exclude: ["Fixtures"],  // recorded server answers, read through #filePath
      swiftSettings: strict
    ),
    .testTarget(
      name: "ApptSyncTests",
      dependencies: ["ApptCore", "ApptStore", "ApptCalDAV", "ApptSync", "ApptRuntime"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "ApptRemindTests",
      dependencies: ["ApptCore", "ApptStore", "ApptRemind", "ApptTestSupport"],
      swiftSettings: strict
    ),
    .testTarget(
      name: "IntegrationTests",
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptTerminal", "ApptRuntime", "ApptTestSupport"],
      exclude: [],
      swiftSettings: strict
    ),
  ]
)
