import ApptCore
import Foundation

/// What `importCalendar` did with a file.
public struct CalendarImport: Sendable {
  /// The file's problems, notices and counts (`appointments` is empty: they went to the store).
  public var read: ICalendar.ReadResult
  public var added = 0
  public var updated = 0
  public var unchanged = 0
  /// Overrides left out: their series, newer, no longer has their occurrence.
  public var superseded = 0
  /// False when the file has problems and `partial` was not given: nothing was stored.
  public var stored = true
  /// The most parsed events held at once, by the reader and here (overrides wait for the
  /// end): what keeps an import's memory flat in the file's size.
  public var mostHeld = 0
}

@DatabaseActor
extension AppointmentDAO {
  /// How many parsed events an import holds before it stores them.
  public nonisolated static let importBatchSize = 10_000

  /// The page cache an import's transaction gets on SQLite, in KiB: a shuffled file writes
  /// all over the table (kept in start order) and its indexes, and with SQLite's 2 MB the
  /// pages spill to the WAL and are read back again and again.
  nonisolated static let importCacheKiB = 16_384

  /// Reads an iCalendar file and stores its events (`importAppointments`' matching), in ONE
  /// transaction: all or nothing. The events are parsed (on a thread of their own,
  /// `ImportReader`) and stored `batchSize` at a time (overrides after everything else, so
  /// each finds its series), so memory does not grow with the file's events. A file with
  /// problems stores nothing unless `partial`, then the events without problems. `clock`
  /// reads floating times and whole days.
  public func importCalendar(
    bytes: [UInt8],
    clock readClock: Clock,
    calendar name: String? = nil,
    partial: Bool,
    batchSize: Int = importBatchSize
  ) throws(StoreError) -> CalendarImport {
    try importCalendar(clock: readClock, calendar: name, partial: partial, whole: { () throws(StoreError) in bytes }) {
      (_, kept, sink) -> ImportReader.ReadStep in
      .read(ICalendar.read(bytes: bytes, clock: readClock, batchSize: batchSize, kept: kept, sink: sink))
    }
  }

  /// `importCalendar(bytes:...)` for a file read piece by piece (`chunks`, nil at its end, on
  /// the reader's thread), so not even its text is held whole. `whole` reads it all again,
  /// for a file whose later lines change how earlier events read (it is then parsed whole,
  /// then stored).
  public func importCalendar(
    chunks: @escaping @Sendable () throws(StoreError) -> [UInt8]?,
    whole: @escaping @Sendable () throws(StoreError) -> [UInt8],
    clock readClock: Clock,
    calendar name: String? = nil,
    partial: Bool,
    batchSize: Int = importBatchSize
  ) throws(StoreError) -> CalendarImport {
    try importCalendar(clock: readClock, calendar: name, partial: partial, whole: whole) { attempt, kept, sink in
      // The transaction again (PostgreSQL could not serialize it): the pieces are gone.
      guard attempt == 1 else {
        do throws(StoreError) {
          let bytes = try whole()
          return .read(ICalendar.read(bytes: bytes, clock: readClock, batchSize: batchSize, kept: kept, sink: sink))
        } catch {
          return .failed(error)
        }
      }
      var readFailure: StoreError?
      let pieces = { () -> [UInt8]? in
        do throws(StoreError) {
          return try chunks()
        } catch {
          // The reader takes it for the end of the text; the import then fails with it.
          readFailure = error
          return nil
        }
      }
      let outcome = ICalendar.read(chunks: pieces, clock: readClock, batchSize: batchSize, kept: kept, sink: sink)
      if let readFailure { return .failed(readFailure) }
      return .read(outcome)
    }
  }

  /// The import, whichever way its text is read: `read` (on the reader's thread; `attempt`
  /// counts the transaction's runs) reads it handing batches to the sink and the keys of the
  /// events handed on to the `KeptEvents`, and `whole` gives all its bytes for the fallback.
  private func importCalendar(
    clock readClock: Clock,
    calendar name: String?,
    partial: Bool,
    whole: () throws(StoreError) -> [UInt8],
    read:
      @escaping @Sendable (
        _ attempt: Int, _ kept: any ICalendar.KeptEvents, _ sink: @escaping ([ICalendar.ImportItem]) -> Bool
      ) -> ImportReader.ReadStep
  ) throws(StoreError) -> CalendarImport {
    let now = clock.now
    var refused: ICalendar.ReadResult?
    var readWhole = false
    var attempts = 0
    do throws(StoreError) {
      return try database.write { connection throws(StoreError) in
        refused = nil
        readWhole = false
        attempts += 1
        let attempt = attempts
        let restoreCache = try Self.enlargeCache(connection)
        defer { restoreCache() }
        let target = try name.map { name throws(StoreError) in try Self.calendar(named: name, in: connection).id }
        let deferred = try DeferredIndexes.dropIfEmpty(connection)
        var store = ImportBatches(target: target, now: now)
        let reader = ImportReader { kept, sink in read(attempt, kept, sink) }
        defer { reader.finish() }
        let outcome: ICalendar.StreamedRead
        switch try reader.drain(into: { items throws(StoreError) in try store.take(items, in: connection) }) {
        case .failed(let error): throw error
        case .read(let read): outcome = read
        }
        switch outcome {
        case .stopped:
          throw .invalidRequest(message: "import: stopped")
        case .readWhole:
          readWhole = true
          throw .invalidRequest(message: "import: read whole")
        case .read(let result):
          if !result.problems.isEmpty, !partial {
            refused = result
            throw .invalidRequest(message: "import: refused")
          }
          // The overrides, stored last, look their series up through every index.
          try deferred?.rebuild(connection)
          try store.finish(in: connection)
          var report = store.report(result)
          report.mostHeld = max(report.mostHeld, result.mostHeld)
          return report
        }
      }
    } catch {
      if let refused { return CalendarImport(read: refused, stored: false) }
      guard readWhole else { throw error }
    }
    // A file whose later lines change how earlier events read: parsed whole, then stored.
    var result = ICalendar.read(bytes: try whole(), clock: readClock)
    if !result.problems.isEmpty, !partial { return CalendarImport(read: result, stored: false) }
    let appointments = result.appointments
    result.appointments = []
    let counts = try importAppointments(appointments, calendar: name)
    return CalendarImport(
      read: result,
      added: counts.added,
      updated: counts.updated,
      unchanged: counts.unchanged,
      superseded: counts.superseded,
      mostHeld: appointments.count
    )
  }

  /// On SQLite, sets the connection's page cache to `importCacheKiB` for an import's
  /// transaction; returns what puts the one it had back.
  nonisolated static func enlargeCache(_ connection: any Connection) throws(StoreError) -> () -> Void {
    guard connection is SQLiteConnection, let old = try connection.scalar("PRAGMA cache_size")?.int64 else {
      return {}
    }
    try connection.execute("PRAGMA cache_size = -\(importCacheKiB)")
    return {
      do {
        try connection.execute("PRAGMA cache_size = \(old)")
      } catch {
        // The import's outcome is what the caller reports; a cache left larger only uses
        // more memory until the connection closes.
      }
    }
  }
}

/// The store's side of one import: merges each batch as it comes (overrides kept for the
/// end, so each finds its series wherever it is in the file) and counts what each event did.
@DatabaseActor
struct ImportBatches {
  let target: String?
  let now: Date
  /// What each event (by ordinal) did: 0 not yet stored, else a `MergeUpshot`'s code.
  private var upshots: [UInt8] = []
  private var overrides: [ICalendar.ImportItem] = []
  /// Where each ordinal of `overrides` is in it.
  private var overrideAt: [Int: Int] = [:]
  private(set) var mostHeld = 0
  /// The calendar events without one go in (`target`, else the default one), once known.
  private var calendar: String?

  init(target: String?, now: Date) {
    self.target = target
    self.now = now
  }

  mutating func take(_ items: [ICalendar.ImportItem], in connection: any Connection) throws(StoreError) {
    if calendar == nil {
      if let target {
        calendar = target
      } else {
        calendar = try AppointmentDAO.defaultCalendarID(in: connection)
      }
    }
    let (new, repeats) = try newEvents(items, in: connection)
    var masters: [Int] = []
    for (index, item) in items.enumerated() {
      guard item.appointment.override != nil else {
        masters.append(index)
        continue
      }
      if let at = overrideAt[item.ordinal] {
        overrides[at] = item
      } else {
        overrideAt[item.ordinal] = overrides.count
        overrides.append(item)
      }
    }
    if !repeats { masters = Self.storageOrder(masters, of: items) }
    for index in masters { try store(items[index], isNew: new.contains(index), in: connection) }
    mostHeld = max(mostHeld, items.count + overrides.count)
  }

  /// `indexes` of `items` in the order their rows are kept on SQLite (`StartOrder`: one-offs,
  /// then series, each by start), ties in file order. A shuffled file's batch stored in this
  /// order writes the table and its start-keyed indexes in one sweep instead of all over them:
  /// the sqlite3 CLI inserting a shuffled 100k in sorted runs of 10k took half the time of the
  /// same rows one by one in file order (README, "An import stores a batch in the order the
  /// rows are kept"). Only for a batch in which no uid or id comes twice: there the later
  /// copy must still be stored last, to win.
  nonisolated static func storageOrder(_ indexes: [Int], of items: [ICalendar.ImportItem]) -> [Int] {
    // Each event's place read once: a comparison that read it from the items would copy an
    // appointment (and retain its fields) twice per step of the sort.
    let places = indexes.map { (place: items[$0].appointment.storagePlace, index: $0) }
    return places.sorted { a, b in a.place != b.place ? a.place < b.place : a.index < b.index }.map(\.index)
  }

  /// The indexes of `items` that are new: not overrides, and neither their uid nor their id
  /// is stored or taken by an item before them (a random id the reader made is neither). Two
  /// queries per few hundred events instead of two lookups per event. `repeats`: some uid or
  /// id comes twice among them.
  private func newEvents(_ items: [ICalendar.ImportItem], in connection: any Connection) throws(StoreError)
    -> (new: Set<Int>, repeats: Bool)
  {
    let masters = items.indices.filter { items[$0].appointment.override == nil }
    let storedUIDs = try stored("uid", Set(masters.compactMap { items[$0].appointment.uid }), in: connection)
    let ownIDs = masters.filter { !items[$0].hasRandomID }.map { items[$0].appointment.id.description }
    let storedIDs = try stored("id", Set(ownIDs), in: connection)
    var seenUIDs: Set<String> = []
    var seenIDs: Set<String> = []
    var new: Set<Int> = []
    var repeats = false
    for index in masters {
      let appointment = items[index].appointment
      var freshID = true
      if !items[index].hasRandomID {
        let id = appointment.id.description
        let first = seenIDs.insert(id).inserted
        repeats = repeats || !first
        freshID = !storedIDs.contains(id) && first
      }
      var freshUID = true
      if let uid = appointment.uid {
        let first = seenUIDs.insert(uid).inserted
        repeats = repeats || !first
        freshUID = !storedUIDs.contains(uid) && first
      }
      if freshID && freshUID { new.insert(index) }
    }
    return (new, repeats)
  }

  /// Which of `values` some stored row has in `column`.
  private func stored(_ column: String, _ values: Set<String>, in connection: any Connection) throws(StoreError)
    -> Set<String>
  {
    var found: Set<String> = []
    let all = Array(values)
    for start in stride(from: 0, to: all.count, by: 500) {
      let chunk = all[start..<min(start + 500, all.count)]
      let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
      try connection.query(
        "SELECT \(column) FROM appointment WHERE \(column) IN (\(marks))",
        chunk.map { .text($0) }
      ) { row throws(StoreError) in found.insert(row.string(at: 0)) }
    }
    return found
  }

  /// Stores the overrides kept for the end.
  mutating func finish(in connection: any Connection) throws(StoreError) {
    let waiting = overrides
    overrides = []
    overrideAt = [:]
    for item in waiting { try store(item, in: connection) }
  }

  private mutating func store(_ item: ICalendar.ImportItem, isNew: Bool = false, in connection: any Connection)
    throws(StoreError)
  {
    let upshot = try AppointmentDAO.merge(
      item.appointment,
      into: target,
      olderSequenceLoses: true,
      at: now,
      hints: AppointmentDAO.MergeHints(calendar: calendar, isNew: isNew),
      in: connection
    ).upshot
    let code: UInt8 =
      switch upshot {
      case .added: 1
      case .updated: 2
      case .unchanged: 3
      case .superseded: 4
      }
    if item.ordinal >= upshots.count { upshots += repeatElement(0, count: item.ordinal - upshots.count + 1) }
    // A later copy of an event stored already: what the import did to that event is the
    // first copy's upshot, unless that one changed nothing.
    if upshots[item.ordinal] == 0 || upshots[item.ordinal] >= 3 { upshots[item.ordinal] = code }
  }

  /// How many events were added, updated and found unchanged so far.
  var counts: (added: Int, updated: Int, unchanged: Int, superseded: Int) {
    var counts = (added: 0, updated: 0, unchanged: 0, superseded: 0)
    for code in upshots {
      switch code {
      case 1: counts.added += 1
      case 2: counts.updated += 1
      case 3: counts.unchanged += 1
      case 4: counts.superseded += 1
      default: continue
      }
    }
    return counts
  }

  func report(_ result: ICalendar.ReadResult) -> CalendarImport {
    let counts = counts
    return CalendarImport(
      read: result,
      added: counts.added,
      updated: counts.updated,
      unchanged: counts.unchanged,
      superseded: counts.superseded,
      mostHeld: mostHeld
    )
  }
}
