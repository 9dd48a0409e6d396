import ApptCore

extension Appointment {
  /// A copy at `revision`: how a test states what the store holds after N writes of a value
  /// (the DAO stores a new value at 1 and counts up), or builds values for the generic layer,
  /// which stores them as they are.
  public func atRevision(_ revision: Int) -> Appointment {
    var copy = self
    copy.revision = revision
    return copy
  }
}
