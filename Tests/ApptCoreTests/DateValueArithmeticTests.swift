import Foundation
import Testing

@testable import ApptCore

/// `ICalendar.DateValue`'s instants and local times come from integer arithmetic where a zone
/// keeps one offset around the time, and from `Calendar` elsewhere: either way `Calendar`'s
/// answer, which this holds them to over zones with odd offsets, changes and a skipped day.
@Suite("iCalendar date arithmetic")
struct DateValueArithmeticTests {
  static let zones = [
    "UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Apia",
    "America/Sao_Paulo", "Asia/Kathmandu", "Africa/Casablanca",
  ]

  func calendar(_ zone: TimeZone) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    return calendar
  }

  @Test("a wall-clock time names Calendar's instant, in gaps and overlaps too", arguments: zones)
  func instants(zoneName: String) throws {
    let zone = try #require(TimeZone(identifier: zoneName))
    let calendar = calendar(zone)
    var random = SystemRandomNumberGenerator()
    // Every half hour of the days around each offset change of some years, and random times.
    var times: [DateComponents] = []
    for year in [1901, 1975, 2011, 2026, 2040] {
      var cursor = calendar.date(from: DateComponents(year: year, month: 1, day: 1)) ?? Date()
      let end = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1)) ?? Date()
      while let change = zone.nextDaylightSavingTimeTransition(after: cursor), change < end {
        for step in -60...60 {
          let near = change.addingTimeInterval(Double(step) * 1800)
          times.append(calendar.dateComponents([.year, .month, .day, .hour, .minute], from: near))
        }
        cursor = change
      }
    }
    for _ in 0..<300 {
      times.append(
        DateComponents(
          year: Int.random(in: 1900...2100, using: &random),
          month: Int.random(in: 1...12, using: &random),
          day: Int.random(in: 1...28, using: &random),
          hour: Int.random(in: 0...23, using: &random),
          minute: Int.random(in: 0...59, using: &random)
        )
      )
    }
    for time in times {
      let value = ICalendar.DateValue(
        year: time.year ?? 0,
        month: time.month ?? 0,
        day: time.day ?? 0,
        time: .init(hour: time.hour ?? 0, minute: time.minute ?? 0, second: 7),
        isUTC: false
      )
      var expected = time
      expected.second = 7
      #expect(value.instant(in: zone) == calendar.date(from: expected), "\(value.text) in \(zoneName)")
      let instant = try #require(calendar.date(from: expected))
      let local = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: instant)
      let read = ICalendar.DateValue.local(instant, in: zone, dateOnly: false)
      #expect(
        [read.year, read.month, read.day, read.time?.hour, read.time?.minute, read.time?.second]
          == [local.year, local.month, local.day, local.hour, local.minute, local.second],
        "\(instant) in \(zoneName)"
      )
    }
  }
}
