/// A window's appointments as read at one version of the store (a count every commit that
/// changes data moves on): still the window's while the version is the same.
public struct KnownWindow: Sendable, Equatable {
  public var items: [Appointment]
  public var version: UInt64

  public init(items: [Appointment], version: UInt64) {
    self.items = items
    self.version = version
  }
}
