import Foundation
import Testing

@testable import ApptCore

/// `ZoneOffsets` against Foundation itself, the oracle: every answer must be the one
/// `secondsFromGMT(for:)` gives, whatever order the instants come in.
@Suite("Zone offsets")
struct ZoneOffsetsTests {
  /// Zones whose changes are not only a yearly DST hour: half-hour DST (Lord Howe), DST
  /// below standard time (Dublin), a standard offset changing (Moscow 2011 and 2014,
  /// Pyongyang 2015, Caracas 2007 and 2016), a day skipped (Apia 2011), DST abolished
  /// (Sao Paulo 2019), DST paused each Ramadan (Casablanca), none at all (Kolkata, UTC).
  static let zones = [
    "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Europe/Dublin", "Europe/Moscow",
    "Asia/Pyongyang", "America/Caracas", "Pacific/Apia", "America/Sao_Paulo", "Africa/Casablanca",
    "Asia/Kolkata", "UTC",
  ]

  /// A fixed sequence of numbers (SplitMix64), so a failure can be run again.
  struct Numbers {
    var state: UInt64

    mutating func next(below bound: Int) -> Int {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return Int((z ^ (z >> 31)) % UInt64(bound))
    }
  }

  @Test("shared offsets: one per named zone; fixed offsets a second apart are not mixed")
  func shared() throws {
    let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
    #expect(ZoneOffsets.shared(for: berlin) === ZoneOffsets.shared(for: berlin))
    let summer = Date(timeIntervalSince1970: 1_780_000_000)
    #expect(ZoneOffsets.shared(for: berlin).offset(at: summer) == 7200)
    // Foundation calls both "GMT+0100" and holds them equal.
    let hour = try #require(TimeZone(secondsFromGMT: 3600))
    let hourAndSecond = try #require(TimeZone(secondsFromGMT: 3601))
    #expect(ZoneOffsets.shared(for: hour).offset(at: summer) == 3600)
    #expect(ZoneOffsets.shared(for: hourAndSecond).offset(at: summer) == 3601)
  }

  @Test("times walked forward, as a list does, across 1900 to 2100", arguments: zones)
  func forward(identifier: String) throws {
    let zone = try #require(TimeZone(identifier: identifier))
    let offsets = ZoneOffsets(zone)
    var numbers = Numbers(state: 17)
    var instant = -2_208_988_800.0  // 1900-01-01
    var wrong: [Double] = []
    while instant < 4_102_444_800 {  // 2100-01-01
      let date = Date(timeIntervalSince1970: instant)
      // The start, then either side of it, as a line asks.
      for probe in [date, date.addingTimeInterval(-3 * 3600), date.addingTimeInterval(3 * 3600)]
      where offsets.offset(at: probe) != zone.secondsFromGMT(for: probe) {
        wrong.append(probe.timeIntervalSince1970)
      }
      // One offset through the six hours around it (what tells a repeated hour) is never
      // said when the two ends differ.
      let early = date.addingTimeInterval(-3 * 3600)
      let late = date.addingTimeInterval(3 * 3600)
      if offsets.keepsOneOffset(from: early, through: late),
        zone.secondsFromGMT(for: early) != zone.secondsFromGMT(for: late)
      {
        wrong.append(instant)
      }
      instant += Double(1 + numbers.next(below: 30 * 86400))
    }
    #expect(wrong.isEmpty, "\(identifier): \(wrong.prefix(5))")
  }

  @Test("times in any order, and the seconds either side of each change", arguments: zones)
  func anyOrderAndEachChange(identifier: String) throws {
    let zone = try #require(TimeZone(identifier: identifier))
    let offsets = ZoneOffsets(zone)
    var numbers = Numbers(state: 42)
    var probes: [Double] = []
    for _ in 0..<3000 { probes.append(-2_208_988_800 + Double(numbers.next(below: 6_311_433_600))) }
    // Where the zone changes from 1970, found by stepping six hours and halving the step
    // (not from the transitions the cache itself asks for): the second before, at and after.
    func offset(_ instant: Double) -> Int { zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant)) }
    var low = 0.0
    var lowOffset = offset(low)
    while low < 4_102_444_800 {
      var high = low + 6 * 3600
      let highOffset = offset(high)
      if highOffset != lowOffset {
        var before = low
        while high - before > 1 {
          let middle = ((before + high) / 2).rounded(.down)
          if offset(middle) == lowOffset { before = middle } else { high = middle }
        }
        probes += [high - 1, high, high + 1]
      }
      low += 6 * 3600
      lowOffset = highOffset
    }
    let changesFound = probes.count - 3000
    var wrong: [Double] = []
    for probe in probes {
      let date = Date(timeIntervalSince1970: probe)
      if offsets.offset(at: date) != zone.secondsFromGMT(for: date) { wrong.append(probe) }
    }
    #expect(wrong.isEmpty, "\(identifier): \(wrong.prefix(5))")
    if identifier != "UTC", identifier != "Asia/Kolkata" { #expect(changesFound > 0) }
  }
}
