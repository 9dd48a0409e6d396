import ApptCore

// Schema step 8, "sync state": what a two-way CalDAV sync keeps
// between runs, beside the appointments so that one transaction changes both.
//
// - `sync_item` (calendar_id, uid): one row per server resource the calendar knows, keyed by
//   the item's sync key (`AppointmentDAO.syncKey`): its href as the server spells it
//   (unique in the calendar), the server's ETag at the last sync (NULL: not known), and
//   `base`, the item's iCalendar as appt wrote its local rows right after the last sync:
//   a local change is "the text now differs from base".
// - `sync_conflict`: a local version that lost to the server's, kept until `appt resolve`,
//   keyed by the local master's appointment id.
// - `sync_push`: the text of a PUT sent whose answer is not recorded yet (written before the
//   PUT, gone with its answer). A sync killed in between finds that text on the server next
//   time and knows it for its own, not another client's change: a later local edit or
//   delete then goes out instead of turning into a conflict or coming back.
// - `calendar.synced_ms`: when the calendar last synced without error (`sync_token` exists
//   since step 6).
//
// Deleting a calendar deletes its sync rows: a trigger on SQLite (where the DAO is the only
// writer and foreign keys are off, as in step 6), ON DELETE CASCADE on PostgreSQL. Neither
// table notifies observers: every change to them that a screen shows comes with a change to
// `appointment` or `calendar`.
extension Schema {
  static let syncStateSQLite = """
    CREATE TABLE sync_item (
      calendar_id TEXT NOT NULL,
      uid TEXT NOT NULL,
      href TEXT NOT NULL,
      etag TEXT,
      base TEXT NOT NULL,
      PRIMARY KEY (calendar_id, uid),
      UNIQUE (calendar_id, href)
    );
    CREATE TABLE sync_conflict (
      id TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 36 AND id = lower(id)),
      calendar_id TEXT NOT NULL,
      uid TEXT NOT NULL,
      title TEXT NOT NULL,
      local_ics TEXT NOT NULL,
      found_ms INTEGER NOT NULL
    );
    CREATE TABLE sync_push (
      calendar_id TEXT NOT NULL,
      uid TEXT NOT NULL,
      ics TEXT NOT NULL,
      PRIMARY KEY (calendar_id, uid)
    );
    ALTER TABLE calendar ADD COLUMN synced_ms INTEGER;
    CREATE TRIGGER calendar_forget_sync AFTER DELETE ON calendar
      BEGIN
        DELETE FROM sync_item WHERE calendar_id = old.id;
        DELETE FROM sync_conflict WHERE calendar_id = old.id;
        DELETE FROM sync_push WHERE calendar_id = old.id;
      END;
    """

  static let syncStatePostgres = """
    CREATE TABLE sync_item (
      calendar_id text COLLATE "C" NOT NULL REFERENCES calendar (id) ON DELETE CASCADE,
      uid text COLLATE "C" NOT NULL,
      href text COLLATE "C" NOT NULL,
      etag text,
      base text NOT NULL,
      PRIMARY KEY (calendar_id, uid),
      UNIQUE (calendar_id, href)
    );
    CREATE TABLE sync_conflict (
      id text COLLATE "C" PRIMARY KEY NOT NULL CHECK (length(id) = 36 AND id = lower(id)),
      calendar_id text COLLATE "C" NOT NULL REFERENCES calendar (id) ON DELETE CASCADE,
      uid text COLLATE "C" NOT NULL,
      title text NOT NULL,
      local_ics text NOT NULL,
      found_ms bigint NOT NULL
    );
    CREATE INDEX sync_conflict_by_calendar ON sync_conflict (calendar_id);
    CREATE TABLE sync_push (
      calendar_id text COLLATE "C" NOT NULL REFERENCES calendar (id) ON DELETE CASCADE,
      uid text COLLATE "C" NOT NULL,
      ics text NOT NULL,
      PRIMARY KEY (calendar_id, uid)
    );
    ALTER TABLE calendar ADD COLUMN synced_ms bigint;
    """
}
