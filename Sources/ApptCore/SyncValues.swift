/// Which version `appt resolve ID --keep local|server` keeps of an item in conflict
/// (a local version that lost to the server's during a sync).
public enum ConflictChoice: String, Sendable, CaseIterable {
  /// The local version that lost: it replaces the item's rows and goes to the server next.
  case local
  /// The server's version, already stored: the conflict is dropped.
  case server
}
