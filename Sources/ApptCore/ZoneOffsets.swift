import Foundation

/// A zone's UTC offsets, remembered as the spans between its transitions.
///
/// `list` asks for several offsets per line (the start, the end, and either side of each to
/// tell a repeated hour), and each of Foundation's answers is a call into ICU behind its lock.
/// One look-up and the zone's next transition after it (`nextDaylightSavingTimeTransition`,
/// which ICU answers with every change of offset, standard time's too) give a span that has
/// one offset; the latest few spans are kept, so times moving through a long range ask ICU
/// about twice per span, a few times a year, however many lines fall in it.
final class ZoneOffsets: Sendable {
  /// `[from, until)` in seconds since 1970, all at `offset`.
  private struct Span {
    var from: Double
    var until: Double
    var offset: Int
  }

  /// Enough for a line's look-ups either side of a transition, and for a few series moving
  /// through one range.
  static let keptSpans = 4

  let zone: TimeZone
  private let spans = Locked<[Span]>([])

  init(_ zone: TimeZone) {
    self.zone = zone
  }

  /// The zones' offsets that expansions share, the latest used last: a window expands its
  /// series one after another, nearly all in one zone, and each made its own (an allocation,
  /// a lock, and ICU's answers learnt again: a tenth of the series' expansion in a week at 1M).
  private static let sharedByZone = Locked<[ZoneOffsets]>([])
  /// How many zones `shared(for:)` keeps.
  static let sharedZones = 8

  /// Offsets of `zone` shared with every other caller asking for the same zone. A fixed
  /// offset gets its own: Foundation names those by the minute (3600 s and 3601 s east are
  /// both "GMT+0100", and equal), so a name would mix zones whose offsets differ in seconds.
  static func shared(for zone: TimeZone) -> ZoneOffsets {
    let name = zone.identifier
    guard !name.hasPrefix("GMT+"), !name.hasPrefix("GMT-") else { return ZoneOffsets(zone) }
    return sharedByZone.withLock { kept in
      if let index = kept.lastIndex(where: { $0.zone.identifier == name }) {
        if index != kept.count - 1 { kept.append(kept.remove(at: index)) }
        return kept[kept.count - 1]
      }
      if kept.count >= sharedZones { kept.removeFirst() }
      kept.append(ZoneOffsets(zone))
      return kept[kept.count - 1]
    }
  }

  /// Seconds east of UTC at `date`: what `zone.secondsFromGMT(for:)` says.
  func offset(at date: Date) -> Int {
    span(at: date)?.offset ?? zone.secondsFromGMT(for: date)
  }

  /// Whether the zone keeps one offset from `from` through `to`.
  func keepsOneOffset(from: Date, through to: Date) -> Bool {
    offset(throughout: from, to) != nil
  }

  /// The one offset the zone keeps from `from` through `to`; nil when it changes between
  /// them (or is not known there). One look-up, where asking each instant takes one each.
  func offset(throughout from: Date, _ to: Date) -> Int? {
    guard let span = span(at: from), to.timeIntervalSince1970 < span.until else { return nil }
    return span.offset
  }

  /// The span holding `date`, learnt now if it is not known; nil for a date that is not finite.
  private func span(at date: Date) -> Span? {
    let instant = date.timeIntervalSince1970
    guard instant.isFinite else { return nil }
    let known = spans.withLock { spans in
      spans.first { $0.from <= instant && instant < $0.until }
    }
    if let known { return known }
    let offset = zone.secondsFromGMT(for: date)
    let until = zone.nextDaylightSavingTimeTransition(after: date)?.timeIntervalSince1970 ?? .infinity
    let learnt = Span(from: instant, until: until, offset: offset)
    spans.withLock { spans in
      // A look-up before a known span that ends at the same transition widens it: nothing
      // changes between the two.
      if let index = spans.firstIndex(where: { $0.until == until && $0.offset == offset }) {
        spans[index].from = min(spans[index].from, instant)
        return
      }
      if spans.count >= Self.keptSpans { spans.removeFirst() }
      spans.append(learnt)
    }
    return learnt
  }
}
