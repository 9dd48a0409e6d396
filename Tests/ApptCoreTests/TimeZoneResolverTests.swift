import Foundation
import Testing

@testable import ApptCore

/// TZIDs as calendar files write them: IANA names, Windows zone names (CLDR), display names,
/// prefixed and quoted forms; and an Outlook-shaped export read with the right instants.
@Suite("Time zone names")
struct TimeZoneResolverTests {
  @Test(
    "Windows zone names map to CLDR's territory-001 IANA zone",
    arguments: [
      ("W. Europe Standard Time", "Europe/Berlin"),
      ("Romance Standard Time", "Europe/Paris"),
      ("GMT Standard Time", "Europe/London"),
      ("Eastern Standard Time", "America/New_York"),
      ("Pacific Standard Time", "America/Los_Angeles"),
      ("Central Standard Time", "America/Chicago"),
      ("AUS Eastern Standard Time", "Australia/Sydney"),
      ("New Zealand Standard Time", "Pacific/Auckland"),
      ("Pacific SA Standard Time", "America/Santiago"),
      ("E. South America Standard Time", "America/Sao_Paulo"),
      ("Tokyo Standard Time", "Asia/Tokyo"),
      ("India Standard Time", "Asia/Calcutta"),
      ("UTC", "UTC"),
    ]
  )
  func windowsNames(name: String, iana: String) throws {
    let zone = try #require(TimeZoneResolver.zone(forTZID: name))
    #expect(zone == TimeZone(identifier: iana))
  }

  @Test("southern-hemisphere Windows zones keep their DST: summer in January, winter in July")
  func southernDST() throws {
    let sydney = try #require(TimeZoneResolver.zone(forTZID: "AUS Eastern Standard Time"))
    let january = Date(timeIntervalSince1970: 1_799_000_000)  // 2027-01-03
    let july = Date(timeIntervalSince1970: 1_814_000_000)  // 2027-06-25
    #expect(sydney.secondsFromGMT(for: january) == 11 * 3600)
    #expect(sydney.secondsFromGMT(for: july) == 10 * 3600)
    let auckland = try #require(TimeZoneResolver.zone(forTZID: "New Zealand Standard Time"))
    #expect(auckland.secondsFromGMT(for: january) == 13 * 3600)
    #expect(auckland.secondsFromGMT(for: july) == 12 * 3600)
  }

  @Test("every generated Windows name maps to a zone Foundation knows")
  func generatedTableIsComplete() {
    let unknown = WindowsZones.ianaByWindowsName.filter { TimeZone.named($0.value) == nil }
    #expect(unknown.isEmpty, "\(unknown)")
    #expect(WindowsZones.ianaByWindowsName.count > 130)
    #expect(WindowsZones.cldrVersion != "unknown")
  }

  @Test("display names, case and spacing variants, IANA names, prefixed paths and quotes")
  func otherForms() {
    let berlin = TimeZone(identifier: "Europe/Berlin")
    let forms = [
      "(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna",
      "(GMT+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna",
      "w. europe standard time",
      "W. Europe  Standard Time",
      "Europe/Berlin",
      "\"Europe/Berlin\"",
      "\"W. Europe Standard Time\"",
      "/mozilla.org/20050126_1/Europe/Berlin",
      "/citadel.org/20190914_1/Europe/Berlin",
      "/freeassociation.sourceforge.net/Tzfile/Europe/Berlin",
    ]
    for form in forms {
      #expect(TimeZoneResolver.zone(forTZID: form) == berlin, "\(form)")
    }
    #expect(
      TimeZoneResolver.zone(forTZID: "/softwarestudio.org/Olson_20011030_5/America/Argentina/Buenos_Aires")
        == TimeZone(identifier: "America/Argentina/Buenos_Aires")
    )
  }

  @Test("names that name no zone are nil")
  func unknownNames() {
    for name in [
      "", "\"\"", "Mars Standard Time", "Mars/Olympus_Mons", "/mozilla.org/20050126_1/Mars/Olympus_Mons",
      "Europe/Berlin\u{0}", "(UTC+01:00) Nowhere", "Standard Time",
    ] {
      #expect(TimeZoneResolver.zone(forTZID: name) == nil, "\(name)")
    }
  }

  // MARK: - Import

  /// An Outlook/Exchange export: VTIMEZONE blocks with Windows names and their own rules.
  static let outlook =
    [
      "BEGIN:VCALENDAR",
      "METHOD:PUBLISH",
      "PRODID:Microsoft Exchange Server 2010",
      "VERSION:2.0",
      "X-WR-CALNAME:Calendar",
      "BEGIN:VTIMEZONE",
      "TZID:W. Europe Standard Time",
      "BEGIN:STANDARD",
      "DTSTART:16010101T030000",
      "TZOFFSETFROM:+0200",
      "TZOFFSETTO:+0100",
      "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10",
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:16010101T020000",
      "TZOFFSETFROM:+0100",
      "TZOFFSETTO:+0200",
      "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3",
      "END:DAYLIGHT",
      "END:VTIMEZONE",
      "BEGIN:VTIMEZONE",
      "TZID:AUS Eastern Standard Time",
      "BEGIN:STANDARD",
      "DTSTART:16010101T030000",
      "TZOFFSETFROM:+1100",
      "TZOFFSETTO:+1000",
      "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=1SU;BYMONTH=4",
      "END:STANDARD",
      "BEGIN:DAYLIGHT",
      "DTSTART:16010101T020000",
      "TZOFFSETFROM:+1000",
      "TZOFFSETTO:+1100",
      "RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=1SU;BYMONTH=10",
      "END:DAYLIGHT",
      "END:VTIMEZONE",
      "BEGIN:VEVENT",
      "UID:040000008200E00074C5B7101A82E00800000000",
      "SUMMARY;LANGUAGE=en-US:Winter planning",
      "DTSTART;TZID=W. Europe Standard Time:20270115T090000",
      "DTEND;TZID=W. Europe Standard Time:20270115T100000",
      "DTSTAMP:20261120T101500Z",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:040000008200E00074C5B7101A82E00800000001",
      "SUMMARY;LANGUAGE=en-US:Summer review",
      "DTSTART;TZID=W. Europe Standard Time:20270715T140000",
      "DTEND;TZID=W. Europe Standard Time:20270715T153000",
      "DTSTAMP:20261120T101500Z",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:040000008200E00074C5B7101A82E00800000002",
      "SUMMARY;LANGUAGE=en-US:Sydney sync",
      "DTSTART;TZID=AUS Eastern Standard Time:20270115T090000",
      "DTEND;TZID=AUS Eastern Standard Time:20270115T093000",
      "DTSTAMP:20261120T101500Z",
      "END:VEVENT",
      "END:VCALENDAR",
    ].joined(separator: "\r\n") + "\r\n"

  @Test("an Outlook export with Windows zone names imports with the right UTC instants and IANA zones")
  func outlookImport() throws {
    let result = ICalendar.read(Self.outlook, clock: Fixture.clock)
    #expect(result.problems == [])
    let byTitle = Dictionary(uniqueKeysWithValues: result.appointments.map { ($0.title, $0) })
    let winter = try #require(byTitle["Winter planning"])
    #expect(winter.start == Fixture.instant("2027-01-15T08:00:00Z"))
    #expect(winter.end == Fixture.instant("2027-01-15T09:00:00Z"))
    #expect(winter.timeZone == "Europe/Berlin")
    let summer = try #require(byTitle["Summer review"])
    #expect(summer.start == Fixture.instant("2027-07-15T12:00:00Z"))
    #expect(summer.end == Fixture.instant("2027-07-15T13:30:00Z"))
    let sydney = try #require(byTitle["Sydney sync"])
    #expect(sydney.start == Fixture.instant("2027-01-14T22:00:00Z"))
    #expect(sydney.timeZone == "Australia/Sydney")
  }
}
