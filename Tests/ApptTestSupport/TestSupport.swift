// ApptTestSupport: what every test target shares: temporary databases, a fixed clock, the
// Pilot that drives the real runtime headlessly, and screen assertions.

import ApptCore
import ApptStore
import Foundation

/// A directory that exists for one test and is removed (with what is in it) afterwards.
public final class TemporaryDirectory: Sendable {
  public let url: URL

  public init() {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("appt-test-\(UUID().uuidString.prefix(12))")
    do {
      try FileManager.default.createDirectory(
        at: url,
        withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700]
      )
    } catch {
      preconditionFailure("cannot create \(url.path): \(error)")
    }
  }

  deinit {
    do {
      try FileManager.default.removeItem(at: url)
    } catch {
      print("warning: could not remove \(url.path): \(error)")
    }
  }

  public func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

public enum TestClock {
  /// Sunday 29 November 2026, 15:00 in Paris (14:00 UTC): "today" in every test.
  public static let now = Date(timeIntervalSince1970: 1_795_960_800)
  public static let paris = TimeZone(identifier: "Europe/Paris") ?? .gmt
  public static let clock = Clock.fixed(now, timeZone: paris)

  /// The instant of a local wall-clock time in the test zone.
  public static func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Date {
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)
    guard let date = clock.calendar.date(from: components) else { preconditionFailure("bad test date \(components)") }
    return date
  }
}

/// DAOs over real stores for tests.
public enum TestStore {
  /// A DAO over a new file in `directory` (WAL, data_version and crashes behave for real).
  public static func fileDAO(
    in directory: TemporaryDirectory,
    name: String = "appt.sqlite3",
    pollInterval: Duration = .milliseconds(20)
  ) -> AppointmentDAO {
    let configuration = DatabaseConfiguration(
      location: .file(directory.file(name)),
      migrations: Schema.migrations,
      externalChangePollInterval: pollInterval
    )
    return AppointmentDAO(
      service: DatabaseService(database: AsyncDatabase(configuration: configuration)),
      clock: TestClock.clock
    )
  }

  /// A DAO over a private in-memory database.
  public static func memoryDAO() -> AppointmentDAO {
    let configuration = DatabaseConfiguration(location: .inMemory, migrations: Schema.migrations)
    return AppointmentDAO(
      service: DatabaseService(database: AsyncDatabase(configuration: configuration)),
      clock: TestClock.clock
    )
  }

  public static func appointment(
    _ title: String,
    _ start: Date,
    minutes: Int = 60,
    note: String = "",
    status: Appointment.Status = .scheduled
  ) -> Appointment {
    Appointment(
      title: title,
      start: start,
      end: start.addingTimeInterval(TimeInterval(minutes * 60)),
      note: note,
      status: status,
      created: TestClock.now
    )
  }
}

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and good enough for test data. Seeded,
/// so a failing case reproduces from its seed.
public struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in `0..<n`.
  public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

  /// One of `items`.
  public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
