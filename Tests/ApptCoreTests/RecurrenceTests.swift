import Foundation
import Testing

@testable import ApptCore

/// Series: which occurrences fall in a window, at which local time, and how RRULE text maps.
@Suite("recurrence")
struct RecurrenceTests {
  let newYork = Fixture.newYork

  func local(_ dates: [Date], _ zone: TimeZone) -> [String] {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    return dates.map { date in
      let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
      return String(
        format: "%04d-%02d-%02d %02d:%02d",
        c.year ?? 0,
        c.month ?? 0,
        c.day ?? 0,
        c.hour ?? 0,
        c.minute ?? 0
      )
    }
  }

  func date(_ text: String, _ zone: TimeZone) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let parts = text.split(whereSeparator: { "- :".contains($0) }).compactMap { Int($0) }
    let components = DateComponents(
      year: parts[0],
      month: parts[1],
      day: parts[2],
      hour: parts.count > 3 ? parts[3] : 0,
      minute: parts.count > 4 ? parts[4] : 0
    )
    guard let date = calendar.date(from: components) else { preconditionFailure("bad date \(text)") }
    return date
  }

  @Test("a weekly meeting stays at 09:00 local across the DST change, every matching day of 3 months")
  func weeklyAcrossDST() {
    let rule = Recurrence(frequency: .weekly, weekdays: [.monday, .wednesday])
    let start = date("2026-02-02 09:00", newYork)
    let window = DateInterval(start: date("2026-02-01", newYork), end: date("2026-05-01", newYork))
    let occurrences = rule.occurrences(start: start, duration: 3600, zone: newYork, in: window)
    #expect(occurrences.count == 26, "13 weeks x Mon and Wed")
    #expect(local(occurrences, newYork).allSatisfy { $0.hasSuffix("09:00") })
    // Clocks change on 2026-03-08: the UTC hour moves, the local hour does not.
    #expect(local(occurrences, .gmt).contains("2026-03-04 14:00"))
    #expect(local(occurrences, .gmt).contains("2026-03-09 13:00"))
    #expect(local(occurrences, newYork).prefix(3) == ["2026-02-02 09:00", "2026-02-04 09:00", "2026-02-09 09:00"])
  }

  @Test("only the window is expanded, however long the series has run")
  func windowOnly() {
    let rule = Recurrence(frequency: .daily)
    let start = date("1990-01-01 08:00", .gmt)
    let window = DateInterval(start: date("2026-06-10", .gmt), end: date("2026-06-12", .gmt))
    #expect(
      local(rule.occurrences(start: start, duration: 900, zone: .gmt, in: window), .gmt) == [
        "2026-06-10 08:00", "2026-06-11 08:00",
      ]
    )
    #expect(rule.lastOccurrence(start: start, zone: .gmt) == nil, "no end")
  }

  @Test("an occurrence that started before the window and still runs is in it")
  func overlappingStart() {
    let rule = Recurrence(frequency: .daily)
    let start = date("2026-06-01 23:00", .gmt)
    let window = DateInterval(start: date("2026-06-05", .gmt), end: date("2026-06-06", .gmt))
    #expect(
      local(rule.occurrences(start: start, duration: 7200, zone: .gmt, in: window), .gmt) == [
        "2026-06-04 23:00", "2026-06-05 23:00",
      ]
    )
  }

  @Test("a COUNT is honoured when the window is far into the series (skipping ahead)")
  func countFarAhead() {
    let start = date("2026-01-01 09:00", .gmt)
    let daily = Recurrence(frequency: .daily, count: 100)  // 1 January ... 10 April
    func days(_ from: String, _ to: String) -> [String] {
      local(
        daily.occurrences(
          start: start,
          duration: 60,
          zone: .gmt,
          in: DateInterval(start: date(from, .gmt), end: date(to, .gmt))
        ),
        .gmt
      )
    }
    #expect(days("2026-03-01", "2026-03-03") == ["2026-03-01 09:00", "2026-03-02 09:00"])
    #expect(days("2026-04-09", "2026-04-13") == ["2026-04-09 09:00", "2026-04-10 09:00"], "the 100th is the last")
    #expect(days("2026-04-11", "2026-05-01").isEmpty)
    let weekly = Recurrence(frequency: .weekly, interval: 2, count: 5)  // 1 Jan ... 26 Feb
    let late = weekly.occurrences(
      start: start,
      duration: 60,
      zone: .gmt,
      in: DateInterval(start: date("2026-02-20", .gmt), end: date("2026-04-01", .gmt))
    )
    #expect(local(late, .gmt) == ["2026-02-26 09:00"])
  }

  @Test("every N, COUNT and UNTIL")
  func intervalCountUntil() {
    let start = date("2026-01-05 10:00", .gmt)
    let year = DateInterval(start: date("2026-01-01", .gmt), end: date("2027-01-01", .gmt))
    let everyOther = Recurrence(frequency: .weekly, interval: 2, count: 3)
    #expect(
      local(everyOther.occurrences(start: start, duration: 60, zone: .gmt, in: year), .gmt) == [
        "2026-01-05 10:00", "2026-01-19 10:00", "2026-02-02 10:00",
      ]
    )
    let until = Recurrence(frequency: .daily, until: date("2026-01-07 23:59", .gmt))
    #expect(until.occurrences(start: start, duration: 60, zone: .gmt, in: year).count == 3)
    #expect(local([until.lastOccurrence(start: start, zone: .gmt)].compactMap { $0 }, .gmt) == ["2026-01-07 10:00"])
  }

  @Test("monthly on the 31st skips short months; yearly on 29 February waits for leap years")
  func skipsDaysThatDoNotExist() {
    let monthly = Recurrence(frequency: .monthly, count: 4)
    let months = monthly.occurrences(
      start: date("2026-01-31 09:00", .gmt),
      duration: 60,
      zone: .gmt,
      in: DateInterval(start: date("2026-01-01", .gmt), end: date("2027-01-01", .gmt))
    )
    #expect(local(months, .gmt) == ["2026-01-31 09:00", "2026-03-31 09:00", "2026-05-31 09:00", "2026-07-31 09:00"])
    let yearly = Recurrence(frequency: .yearly)
    let years = yearly.occurrences(
      start: date("2028-02-29 09:00", .gmt),
      duration: 60,
      zone: .gmt,
      in: DateInterval(start: date("2028-01-01", .gmt), end: date("2037-01-01", .gmt))
    )
    #expect(local(years, .gmt) == ["2028-02-29 09:00", "2032-02-29 09:00", "2036-02-29 09:00"])
  }

  @Test("cancelled occurrences stay in the list only when asked, and still count toward COUNT")
  func exceptions() {
    let start = date("2026-01-05 10:00", .gmt)
    let series = Appointment(
      title: "Standup",
      start: start,
      end: start.addingTimeInterval(900),
      created: start,
      timeZone: "GMT",
      recurrence: Recurrence(frequency: .daily, count: 3),
      exceptions: [date("2026-01-06 10:00", .gmt)]
    )
    let window = DateInterval(start: date("2026-01-01", .gmt), end: date("2026-02-01", .gmt))
    let shown = series.occurrences(in: window, fallbackZone: .gmt, includeCancelled: false)
    #expect(local(shown.map(\.start), .gmt) == ["2026-01-05 10:00", "2026-01-07 10:00"])
    let all = series.occurrences(in: window, fallbackZone: .gmt, includeCancelled: true)
    #expect(all.map(\.status) == [.scheduled, .cancelled, .scheduled])
    #expect(all.allSatisfy { $0.occurrence == $0.start && $0.id == series.id })
    #expect(Set(all.map(\.key)).count == 3, "occurrences are told apart by their key")
  }

  @Test("conflicts see occurrences")
  func conflictsWithOccurrences() {
    let start = date("2026-01-05 10:00", .gmt)
    let series = Appointment(
      title: "Daily",
      start: start,
      end: start.addingTimeInterval(3600),
      created: start,
      recurrence: Recurrence(frequency: .daily)
    )
    let day = DateInterval(start: date("2026-01-07", .gmt), end: date("2026-01-08", .gmt))
    let occurrence = series.occurrences(in: day, fallbackZone: .gmt, includeCancelled: false)
    let other = Appointment(
      title: "Clash",
      start: date("2026-01-07 10:30", .gmt),
      end: date("2026-01-07 11:30", .gmt),
      created: start
    )
    #expect(Conflicts.overlapping(occurrence + [other]) == [series.id, other.id])
  }

  @Test(
    "RRULE text round-trips",
    arguments: [
      "FREQ=DAILY", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR", "FREQ=MONTHLY;COUNT=12",
      "FREQ=YEARLY;UNTIL=20301231T235959Z", "FREQ=WEEKLY;BYDAY=SU",
    ]
  )
  func rruleRoundTrip(text: String) throws {
    #expect(try Recurrence(rrule: text).rrule == text)
  }

  @Test(
    "RRULE text no reader could interpret is refused by part",
    arguments: [
      ("INTERVAL=2", "has no FREQ"),
      ("FREQ=DAILY;COUNT=2;UNTIL=20300101", "both COUNT and UNTIL"),
      ("FREQ=DAILY;UNTIL=20260230", "UNTIL=20260230"),
      ("FREQ=WEEKLY;BYDAY=XX", "BYDAY=XX"),
      ("FREQ=FORTNIGHTLY", "FREQ=FORTNIGHTLY"),
    ]
  )
  func rruleRefused(text: String, message: String) {
    let error = commandError { () throws(CommandError) in _ = try Recurrence(rrule: text) }
    #expect(error?.message.contains(message) == true, "got \(error?.message ?? "no error")")
  }

  @Test(
    "every RFC 5545 part is read, several rules one per line",
    arguments: ["FREQ=HOURLY", "FREQ=MONTHLY;BYMONTHDAY=-1", "FREQ=MONTHLY;BYDAY=2TU", "FREQ=DAILY;WKST=SU"]
  )
  func rruleRead(text: String) throws {
    let single = try Recurrence(rrule: text)
    #expect(single.rrule == text)
    let double = try Recurrence(rrule: text + "\nFREQ=YEARLY")
    #expect(double.rules.count == 2)
    #expect(try Recurrence(rrule: double.rrule) == double)
  }

  @Test(
    "--repeat and friends parse into a series",
    arguments: [
      ("add Sync --at mon 09:00 --repeat weekly --on mon,wed --count 10", "FREQ=WEEKLY;COUNT=10;BYDAY=MO,WE"),
      ("add Gym --at 07:00 --repeat daily --every 2", "FREQ=DAILY;INTERVAL=2"),
      ("add Rent --at 2026-12-01 --repeat monthly --until-date 2027-06-01", "FREQ=MONTHLY;UNTIL=20270601T215959Z"),
      ("add Birthday --at 1 dec --repeat yearly", "FREQ=YEARLY"),
    ]
  )
  func parsesRepeatOptions(line: String, rrule: String) throws {
    guard case .add(let request)? = try CommandParser(clock: Fixture.clock).parse(line: line) else {
      Issue.record("not an add: \(line)")
      return
    }
    #expect(request.recurrence?.rrule == rrule)
  }

  @Test(
    "bad repeat options say what is wrong",
    arguments: [
      ("add X --at 10:00 --repeat hourly", "--repeat takes daily, weekly, monthly or yearly"),
      ("add X --at 10:00 --repeat weekly --on funday", "--on funday: not a weekday (mon)"),
      ("add X --at 10:00 --repeat daily --every 0", "--every needs a whole number from 1 to 1000"),
      ("add X --at 10:00 --repeat daily --count -1", "--count needs a whole number from 1 to 100000, not \"-1\""),
      ("add X --at 2026-12-10 --repeat daily --until-date 2026-12-01", "is before the first occurrence"),
      ("add X --at 2026-12-10 10:00 --all-day", "--all-day takes a date without a time"),
      ("add X --at 2026-12-10 --for 90m", "a whole-day appointment lasts whole days"),
    ]
  )
  func badRepeatOptions(line: String, message: String) {
    let error = commandError { () throws(CommandError) in _ = try CommandParser(clock: Fixture.clock).parse(line: line)
    }
    #expect(error?.message.contains(message) == true, "got \(error?.message ?? "no error")")
  }

  @Test(
    "cancel and edit one occurrence",
    arguments: [
      ("cancel 1a2b --occurrence 2026-12-09", "2026-12-09T00:00:00+01:00"),
      ("restore 1a2b --occurrence wed", "2026-12-02T00:00:00+01:00"),
    ]
  )
  func occurrenceOption(line: String, day: String) throws {
    let command = try CommandParser(clock: Fixture.clock).parse(line: line)
    switch command {
    case .cancel(let id, let occurrence, false, nil)?, .restore(let id, let occurrence, nil)?:
      #expect(id == "1a2b")
      #expect(occurrence == Fixture.instant(day))
    default:
      Issue.record("unexpected \(String(describing: command))")
    }
  }
}
