import ApptCore
import Foundation

// Schema step 5, "calendar model". New columns:
// - `location`, and `location_folded` (its search key, as `TextSearch.folded` folds it);
// - `rdates`: the RDATEs, in the encoding `RecurrenceDateText` documents ('' for none);
// - `sequence`: iCalendar SEQUENCE;
// - `series_id`, `recurrence_ms`, `range_future`: an overridden occurrence (RECURRENCE-ID) is a
//   row of its own: its series' id (NULL when the series is not stored), the start the
//   occurrence had in the series, and RANGE=THISANDFUTURE (0/1);
// - `extras`: `ICalendarExtras` as JSON ('' when empty).
// `recurrence` may hold several RRULEs, one per line, or be NULL for an RDATE-only series
// (`rdates` not empty), so the CHECK (recurrence LIKE 'FREQ=%') goes: SQLite cannot drop a
// CHECK, so the table is rebuilt the way SQLite documents (sqlite.org/lang_altertable.html,
// "Making Other Kinds Of Table Schema Changes": create the new table, copy, drop the old,
// rename, recreate every index; the migration's transaction holds it all; there are no
// foreign keys, triggers or views); PostgreSQL drops the constraint and alters in place,
// keeping the generated timestamptz columns and the NOTIFY trigger. A UID is unique per
// (uid, RECURRENCE-ID): a series and its overrides share it.
//
// Indexes: `appointment_series` (partial) finds the series reaching a window, RDATE-only ones
// included, by the predicate `Schema.isSeries`: it holds `series_end_ms` beside `start_ms`, so
// the series that start before a window but end before it are passed over in the index (no
// row read; a calendar's old series are most of its series); `appointment_overrides` (partial, on
// recurrence_ms) finds the linked overrides whose original start is in a window, and
// `appointment_future_overrides` the THISANDFUTURE ones before its end; `appointment_by_series`
// finds a series' overrides (cancel, delete, split).
extension Schema {
  /// The SQL predicate of a series (one or more RRULEs, or RDATEs only), exactly as the partial
  /// index `appointment_series` states it, so both engines' planners use that index.
  static let isSeries = "(recurrence IS NOT NULL OR rdates <> '')"
  /// A floating event's row: its extras say DTSTART had no zone (`ICalendarExtras.zoneID` "").
  static let isFloating = #"instr(extras, '"zoneID":""') > 0"#

  static let calendarModelIndexes = """
    CREATE UNIQUE INDEX appointment_by_uid ON appointment (uid, coalesce(recurrence_ms, -1)) WHERE uid IS NOT NULL;
    CREATE INDEX appointment_series ON appointment (start_ms, series_end_ms) WHERE recurrence IS NOT NULL OR rdates <> '';
    CREATE INDEX appointment_overrides ON appointment (recurrence_ms) WHERE series_id IS NOT NULL;
    CREATE INDEX appointment_future_overrides ON appointment (recurrence_ms) WHERE range_future = 1;
    CREATE INDEX appointment_by_series ON appointment (series_id) WHERE series_id IS NOT NULL;
    """

  static let calendarModelSQLite = """
    CREATE TABLE appointment_v5 (
      id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36 AND id = lower(id)),
      title TEXT NOT NULL,
      start_ms INTEGER NOT NULL,
      end_ms INTEGER NOT NULL CHECK (end_ms > start_ms),
      note TEXT NOT NULL DEFAULT '',
      status TEXT NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'cancelled')),
      created_ms INTEGER NOT NULL,
      updated_ms INTEGER NOT NULL,
      time_zone TEXT NOT NULL DEFAULT '',
      all_day INTEGER NOT NULL DEFAULT 0 CHECK (all_day IN (0, 1)),
      recurrence TEXT,
      exceptions TEXT NOT NULL DEFAULT '',
      series_end_ms INTEGER,
      uid TEXT,
      revision INTEGER NOT NULL DEFAULT 1 CHECK (revision > 0),
      title_folded TEXT NOT NULL DEFAULT '',
      note_folded TEXT NOT NULL DEFAULT '',
      location TEXT NOT NULL DEFAULT '',
      location_folded TEXT NOT NULL DEFAULT '',
      rdates TEXT NOT NULL DEFAULT '',
      sequence INTEGER NOT NULL DEFAULT 0 CHECK (sequence >= 0),
      series_id TEXT,
      recurrence_ms INTEGER,
      range_future INTEGER NOT NULL DEFAULT 0 CHECK (range_future IN (0, 1)),
      extras TEXT NOT NULL DEFAULT '',
      CHECK (series_id IS NULL OR recurrence_ms IS NOT NULL)
    );
    INSERT INTO appointment_v5 (
      rowid, id, title, start_ms, end_ms, note, status, created_ms, updated_ms, time_zone, all_day, recurrence,
      exceptions, series_end_ms, uid, revision, title_folded, note_folded
    )
    SELECT
      rowid, id, title, start_ms, end_ms, note, status, created_ms, updated_ms, time_zone, all_day, recurrence,
      exceptions, series_end_ms, uid, revision, title_folded, note_folded
    FROM appointment;
    DROP TABLE appointment;
    ALTER TABLE appointment_v5 RENAME TO appointment;
    CREATE INDEX appointment_by_start ON appointment (start_ms);
    CREATE INDEX appointment_by_length ON appointment (end_ms - start_ms);
    """ + calendarModelIndexes

  static let calendarModelPostgres = """
    ALTER TABLE appointment DROP CONSTRAINT appointment_recurrence_check;
    ALTER TABLE appointment
      ADD COLUMN location text NOT NULL DEFAULT '',
      ADD COLUMN location_folded text COLLATE "C" NOT NULL DEFAULT '',
      ADD COLUMN rdates text NOT NULL DEFAULT '',
      ADD COLUMN sequence bigint NOT NULL DEFAULT 0 CHECK (sequence >= 0),
      ADD COLUMN series_id text COLLATE "C",
      ADD COLUMN recurrence_ms bigint,
      ADD COLUMN range_future integer NOT NULL DEFAULT 0 CHECK (range_future IN (0, 1)),
      ADD COLUMN extras text NOT NULL DEFAULT '',
      ADD CONSTRAINT appointment_override_check CHECK (series_id IS NULL OR recurrence_ms IS NOT NULL);
    DROP INDEX appointment_by_uid;
    DROP INDEX appointment_series;
    """ + calendarModelIndexes

  /// Turns the occurrences the old `editOccurrence` detached into overrides.
  ///
  /// The old code cancelled the occurrence in its series (an exception, EXDATE) and saved the
  /// edited copy as a one-off: a new id, no uid, the series' zone and whole-day flag, and
  /// `created` = the series' `updated` at that moment. Nothing else links them, so the rule
  /// takes what the data allows. A one-off is a candidate for an exception `e` of series `S`
  /// when it has no uid, is not a series, has `S`'s time zone and whole-day flag, starts on
  /// the local day of `e` (in `S`'s zone; the process's zone when `S` has none), and was
  /// created at or after `S` and no later than `S`'s last write (`updated` only grows).
  /// Candidates are ranked: the same title as `S` first, then the start nearest `e`, then the
  /// earliest created (then the id); pairs are taken best first, each exception and each
  /// one-off at most once. A taken one-off becomes the override of `e` (`series_id` = `S`,
  /// `recurrence_ms` = `e`, `S`'s uid) and `e` leaves `S`'s exceptions. What is not found (an
  /// occurrence the edit moved to another day, one created before a later edit of the series
  /// was undone) stays as it was: a cancelled occurrence and a one-off, as the old build
  /// showed them. Revisions are left as they are: nobody changed anything.
  static func migrateDetachedOccurrences(_ connection: any Connection) throws(StoreError) {
    struct Series {
      let id: String
      let title: String
      let created: Int64
      let updated: Int64
      let zoneID: String
      let allDay: Int64
      var exceptions: [Int64]
      let uid: SQLValue
    }
    struct Pair {
      let series: Int
      let exception: Int64
      let candidate: String
      let sameTitle: Bool
      let distance: Int64
      let created: Int64
    }
    var series: [Series] = []
    try connection.query(
      """
      SELECT id, title, created_ms, updated_ms, time_zone, all_day, exceptions, uid FROM appointment
      WHERE recurrence IS NOT NULL AND exceptions <> '' ORDER BY id
      """,
      []
    ) { row throws(StoreError) in
      series.append(
        Series(
          id: row.string(at: 0),
          title: row.string(at: 1),
          created: row.int64(at: 2),
          updated: row.int64(at: 3),
          zoneID: row.string(at: 4),
          allDay: row.int64(at: 5),
          exceptions: row.string(at: 6).split(separator: ",").compactMap { Int64($0) },
          uid: row.value(at: 7)
        )
      )
    }
    var pairs: [Pair] = []
    for (index, one) in series.enumerated() {
      let zone = TimeZone.named(one.zoneID) ?? .current
      for exception in one.exceptions {
        let day = CivilDateTime(Date(millisecondsSince1970: exception), in: zone).date
        let dayStart = CivilDateTime(date: day).instant(in: zone).millisecondsSince1970
        let dayEnd = CivilDateTime(date: CivilDate(dayNumber: day.dayNumber + 1)).instant(in: zone)
          .millisecondsSince1970
        try connection.query(
          """
          SELECT id, title, start_ms, created_ms FROM appointment
          WHERE start_ms >= ? AND start_ms < ? AND recurrence IS NULL AND rdates = '' AND uid IS NULL
            AND series_id IS NULL AND time_zone = ? AND all_day = ? AND created_ms >= ? AND created_ms <= ?
          """,
          [
            .integer(dayStart), .integer(dayEnd), .text(one.zoneID), .integer(one.allDay), .integer(one.created),
            .integer(one.updated),
          ]
        ) { row throws(StoreError) in
          pairs.append(
            Pair(
              series: index,
              exception: exception,
              candidate: row.string(at: 0),
              sameTitle: row.string(at: 1) == one.title,
              distance: abs(row.int64(at: 2) - exception),
              created: row.int64(at: 3)
            )
          )
        }
      }
    }
    pairs.sort { a, b in
      if a.sameTitle != b.sameTitle { return a.sameTitle }
      if a.distance != b.distance { return a.distance < b.distance }
      if a.created != b.created { return a.created < b.created }
      if a.candidate != b.candidate { return a.candidate < b.candidate }
      if a.series != b.series { return a.series < b.series }
      return a.exception < b.exception
    }
    struct Slot: Hashable {
      let series: Int
      let exception: Int64
    }
    var takenSlots: Set<Slot> = []
    var takenCandidates: Set<String> = []
    for pair in pairs {
      let slot = Slot(series: pair.series, exception: pair.exception)
      guard !takenSlots.contains(slot), !takenCandidates.contains(pair.candidate) else { continue }
      takenSlots.insert(slot)
      takenCandidates.insert(pair.candidate)
      let owner = series[pair.series]
      try connection.run(
        "UPDATE appointment SET series_id = ?, recurrence_ms = ?, uid = ? WHERE id = ?",
        [.text(owner.id), .integer(pair.exception), owner.uid, .text(pair.candidate)]
      )
      series[pair.series].exceptions.removeAll { $0 == pair.exception }
    }
    for (index, one) in series.enumerated() where takenSlots.contains(where: { $0.series == index }) {
      try connection.run(
        "UPDATE appointment SET exceptions = ? WHERE id = ?",
        [.text(one.exceptions.map(String.init).joined(separator: ",")), .text(one.id)]
      )
    }
  }
}

/// The text `rdates` holds: RDATEs separated by commas, in their order, each one of
/// - `1796634000000`: an instant (`.instant`), milliseconds since 1970 (may be negative);
/// - `1796634000000/5400000`: a period (`.period`), its start and length in milliseconds;
/// - `L20261207T090000`: a local (floating) time (`.local`), read in the series' zone;
/// - `D20261207`: a date (`.date`).
/// '' is no RDATE. It round-trips every `RecurrenceDate` appt can hold (instants are whole
/// milliseconds, as every time the store keeps).
enum RecurrenceDateText {
  static func encode(_ dates: [RecurrenceDate]) -> String {
    dates.map { date in
      switch date {
      case .instant(let instant): return String(instant.millisecondsSince1970)
      case .period(let start, let length):
        return "\(start.millisecondsSince1970)/\(Int64((length * 1000).rounded()))"
      case .local(let time): return "L" + time.description
      case .date(let day): return "D" + day.description
      }
    }.joined(separator: ",")
  }

  /// The dates `text` lists, or nil when it is not what `encode` writes.
  static func decode(_ text: String) -> [RecurrenceDate]? {
    var dates: [RecurrenceDate] = []
    for item in text.split(separator: ",", omittingEmptySubsequences: false) where !text.isEmpty {
      if item.hasPrefix("L") {
        guard let time = civilDateTime(item.dropFirst()) else { return nil }
        dates.append(.local(time))
      } else if item.hasPrefix("D") {
        guard let day = civilDate(item.dropFirst()) else { return nil }
        dates.append(.date(day))
      } else if let slash = item.firstIndex(of: "/") {
        guard let start = Int64(item[..<slash]), let length = Int64(item[item.index(after: slash)...]), length > 0
        else { return nil }
        dates.append(.period(Date(millisecondsSince1970: start), TimeInterval(length) / 1000))
      } else {
        guard let instant = Int64(item) else { return nil }
        dates.append(.instant(Date(millisecondsSince1970: instant)))
      }
    }
    return dates
  }

  private static func civilDate(_ text: Substring) -> CivilDate? {
    guard text.count == 8, text.allSatisfy(\.isASCII), let year = Int(text.prefix(4)),
      let month = Int(text.dropFirst(4).prefix(2)), let day = Int(text.suffix(2)),
      (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    return CivilDate(year: year, month: month, day: day)
  }

  private static func civilDateTime(_ text: Substring) -> CivilDateTime? {
    let parts = text.split(separator: "T", omittingEmptySubsequences: false)
    guard parts.count == 2, let date = civilDate(parts[0]), parts[1].count == 6, parts[1].allSatisfy(\.isASCII),
      let hour = Int(parts[1].prefix(2)), let minute = Int(parts[1].dropFirst(2).prefix(2)),
      let second = Int(parts[1].suffix(2)), hour < 24, minute < 60, second < 61
    else { return nil }
    return CivilDateTime(date: date, hour: hour, minute: minute, second: second)
  }
}
