import Foundation

/// Names a zone the way calendar files do: IANA names (`Europe/Berlin`), Windows zone names
/// as Outlook and Exchange write them (`W. Europe Standard Time`, or the display name
/// `(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna`; CLDR's mapping, territory
/// 001, generated into WindowsZones.swift), and the prefixed or quoted forms exporters write
/// (`/mozilla.org/20050126_1/Europe/Berlin`, `/citadel.org/20190914_1/Europe/Berlin`,
/// `"Europe/Berlin"`).
public enum TimeZoneResolver {
  /// The zone a TZID names, or nil when it names none appt knows.
  public static func zone(forTZID tzid: String) -> TimeZone? {
    var name = tzid.trimmingCharacters(in: .whitespaces)
    if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") {
      name = String(name.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
    }
    guard !name.isEmpty, name.count <= 200 else { return nil }
    if let zone = iana(name) { return zone }
    if let zone = windows(name) { return zone }
    return prefixed(name)
  }

  /// The IANA name a Windows zone name or display name maps to, or nil.
  public static func ianaName(forWindowsName name: String) -> String? {
    let collapsed = name.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    if let iana = WindowsZones.ianaByWindowsName[collapsed] { return iana }
    if let iana = lowercasedWindowsNames[collapsed.lowercased()] { return iana }
    var display = collapsed
    if display.uppercased().hasPrefix("(GMT") { display = "(UTC" + display.dropFirst(4) }
    if let windowsName = WindowsZones.windowsNameByDisplayName[display]
      ?? lowercasedDisplayNames[display.lowercased()]
    {
      return WindowsZones.ianaByWindowsName[windowsName]
    }
    return nil
  }

  private static let lowercasedWindowsNames: [String: String] = Dictionary(
    WindowsZones.ianaByWindowsName.map { ($0.key.lowercased(), $0.value) },
    uniquingKeysWith: { first, _ in first }
  )

  private static let lowercasedDisplayNames: [String: String] = Dictionary(
    WindowsZones.windowsNameByDisplayName.map { ($0.key.lowercased(), $0.value) },
    uniquingKeysWith: { first, _ in first }
  )

  /// An IANA name (what Foundation's TimeZone(identifier:) knows).
  private static func iana(_ name: String) -> TimeZone? {
    TimeZone.named(name)
  }

  private static func windows(_ name: String) -> TimeZone? {
    guard let iana = ianaName(forWindowsName: name) else { return nil }
    return TimeZone.named(iana)
  }

  /// A path ending in an IANA name: `/mozilla.org/20050126_1/Europe/Berlin`,
  /// `/softwarestudio.org/Olson_20011030_5/America/Argentina/Buenos_Aires`.
  private static func prefixed(_ name: String) -> TimeZone? {
    let parts = name.split(separator: "/")
    guard name.hasPrefix("/"), parts.count >= 2 else { return nil }
    for count in [3, 2] where parts.count >= count {
      let candidate = parts.suffix(count).joined(separator: "/")
      if let zone = TimeZone.named(candidate) { return zone }
    }
    return nil
  }
}
