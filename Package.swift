// swift-tools-version:6.0
// appt: a terminal appointment book. One target per layer; see shared/DESIGN.md.
import PackageDescription

#if canImport(Glibc)
  import Glibc
#endif

/// Every target: Swift 6, and in release each function in its own section, so the link can
/// lay out the functions a run touches together (`laidOut`).
let everyTarget: [SwiftSetting] = [
  .swiftLanguageMode(.v6),
  .unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release)),
]

/// The release link of `appt` (lld, the toolchain's): the functions its everyday commands run
/// first, in Resources/link-order.txt's order (`make link-order` writes it), and relative
/// relocations packed (RELR). The kernel maps a binary's pages 64 KB at a time around each
/// fault, and at start-up the loader reads every relocation: scattered over 17 MB of code,
/// `list` had 12.8 MB of appt's code resident; laid out together, a few MB (BENCHMARKS.md).
let laidOut: [LinkerSetting] = [
  .unsafeFlags(
    [
      "-use-ld=lld",
      "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Resources/link-order.txt",
      // Names the list has that the code no longer does: `make bench` counts them.
      "-Xlinker", "--no-warn-symbol-ordering",
    ] + staticLibraries + packedRelocations,
    .when(configuration: .release)
  )
]

/// The C libraries `appt` links, from their Debian archives rather than shared: libstdc++ and
/// the unwinder (the Swift runtime's), SQLite and ncurses. Each shared library costs every
/// process its mapping, symbol lookups and relocations: `appt --version` took 4.4 ms with
/// them and 2.7 ms without, a week's `list` at 1M 15.6 -> 14.1 ms (BENCHMARKS.md). Each
/// `lib*.so` of Resources/static-link is a linker script naming the archive (`INPUT(-l:libX.a)`),
/// found before the shared one because the directory comes first in the search path; the
/// `-export-dynamic` the static Swift runtime's arguments ask for is undone, as nothing
/// looks up appt's own symbols at run time. libc and libm stay shared.
var staticLibraries: [String] {
  ["-L", "\(Context.packageDirectory)/Resources/static-link", "-Xlinker", "--no-export-dynamic"]
}

/// A program with packed relocations runs only on glibc 2.36 or later: packed where the glibc
/// building it (which `make install` installs for) has them.
var packedRelocations: [String] {
  #if canImport(Glibc)
    // "glibc 2.36"
    var text = [UInt8](repeating: 0, count: 64)
    let length = text.withUnsafeMutableBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { confstr(Int32(_CS_GNU_LIBC_VERSION), $0.baseAddress, $0.count) }
    }
    guard length > 0 else { return [] }
    let words = String(decoding: text.prefix(length - 1), as: UTF8.self).split(separator: " ")
    let version = words.last?.split(separator: ".").compactMap { Int($0) } ?? []
    if version.count >= 2, (version[0], version[1]) >= (2, 36) {
      return ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
    }
  #endif
  return []
}

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
    // glibc's mallopt, for the executable's malloc arenas.
    .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),

    // MARK: - Layers
    .target(name: "ApptCore", swiftSettings: everyTarget),
    .target(
      name: "ApptStore",
      dependencies: ["ApptCore", "CSQLite", "CLibPQ", "LibPQLoader"],
      swiftSettings: everyTarget
    ),
    .target(name: "ApptUI", dependencies: ["ApptCore"], swiftSettings: everyTarget),
    .target(name: "ApptTerminal", dependencies: ["ApptCore", "ApptUI", "CNCursesW"], swiftSettings: everyTarget),
    .target(
      name: "ApptRuntime",
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptTerminal"],
      swiftSettings: everyTarget
    ),
    // CalDAV (RFC 4791, 6578): HTTP through libcurl, loaded when first used (it can trust a
    // private CA, `ca_file`, which URLSession cannot on Linux), and kept out of the `appt`
    // executable (PLATFORM.md: start-up cost): the sync runs as its own executable.
    .target(name: "CurlLoader", path: "Sources/CurlLoader"),
    .target(name: "ApptCalDAV", dependencies: ["ApptCore", "CurlLoader"], swiftSettings: everyTarget),
    // The reminder daemon (`appt remind`): the schedule, the loop, its wake source, the lock.
    .target(name: "ApptRemind", dependencies: ["ApptCore", "ApptStore", "CLinuxEvents"], swiftSettings: everyTarget),
    .executableTarget(
      name: "appt",
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptTerminal", "ApptRuntime", "ApptRemind", "CMalloc"],
      swiftSettings: everyTarget,
      linkerSettings: laidOut
    ),
    // The sync engine (pull then push per calendar) and its executable, which `appt sync` runs:
    // the only programs that link the HTTP stack.
    .target(name: "ApptSync", dependencies: ["ApptCore", "ApptStore", "ApptCalDAV"], swiftSettings: everyTarget),
    .executableTarget(
      name: "appt-sync",
      // ApptUI for the key map's vocabulary only: the settings file is read as appt reads it.
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptCalDAV", "ApptSync"],
      swiftSettings: everyTarget
    ),

    // MARK: - Benchmarks (`make bench`)
    .executableTarget(
      name: "appt-bench",
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptTerminal", "ApptRuntime"],
      path: "Benchmarks/Sources",
      swiftSettings: everyTarget
    ),

    // MARK: - Tests
    .target(
      name: "ApptTestSupport",
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptTerminal", "ApptRuntime"],
      path: "Tests/ApptTestSupport",
      swiftSettings: everyTarget
    ),
    .testTarget(
      name: "ApptCoreTests",
      dependencies: ["ApptCore", "ApptTestSupport"],
      exclude: ["Fixtures"],  // dateutil's recurrence cases, read through #filePath
      swiftSettings: everyTarget
    ),
    .testTarget(
      name: "ApptStoreTests",
      dependencies: ["ApptCore", "ApptStore", "ApptTestSupport"],
      // One database file per shipped schema version; each must migrate forward intact.
      resources: [.copy("Fixtures")],
      swiftSettings: everyTarget
    ),
    .testTarget(
      name: "ApptUITests",
      dependencies: ["ApptCore", "ApptUI", "ApptTestSupport"],
      exclude: ["Snapshots"],  // read through #filePath, so they can be re-recorded in place
      swiftSettings: everyTarget
    ),
    .testTarget(
      name: "ApptTerminalTests",
      dependencies: ["ApptCore", "ApptUI", "ApptTerminal", "CNCursesW"],
      swiftSettings: everyTarget
    ),
    .testTarget(
      name: "ApptCalDAVTests",
      dependencies: ["ApptCalDAV"],
      exclude: ["Fixtures"],  // recorded server answers, read through #filePath
      swiftSettings: everyTarget
    ),
    .testTarget(
      name: "ApptSyncTests",
      dependencies: ["ApptCore", "ApptStore", "ApptCalDAV", "ApptSync", "ApptRuntime"],
      swiftSettings: everyTarget
    ),
    .testTarget(
      name: "ApptRemindTests",
      dependencies: ["ApptCore", "ApptStore", "ApptRemind", "ApptTestSupport"],
      swiftSettings: everyTarget
    ),
    .testTarget(
      name: "IntegrationTests",
      dependencies: ["ApptCore", "ApptStore", "ApptUI", "ApptTerminal", "ApptRuntime", "ApptTestSupport"],
      exclude: [],
      swiftSettings: everyTarget
    ),
  ]
)
