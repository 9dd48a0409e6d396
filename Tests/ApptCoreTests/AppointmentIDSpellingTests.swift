import ApptCore
import Foundation
import Testing

/// `AppointmentID` writes its spelling from the bytes and compares the bytes: both must say
/// exactly what Foundation's text says (`uuidString.lowercased()`, and its order).
@Suite struct AppointmentIDSpellingTests {
  /// Ids with every byte value at every place (and random ones).
  static var ids: [AppointmentID] {
    var ids: [AppointmentID] = (0..<200).map { _ in AppointmentID() }
    for value in [0x00, 0x09, 0x0A, 0x0F, 0x10, 0x7F, 0x80, 0x9A, 0xA9, 0xF0, 0xFF] as [UInt8] {
      for place in 0..<16 {
        var bytes = [UInt8](repeating: 0x55, count: 16)
        bytes[place] = value
        let uuid = bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
        ids.append(AppointmentID(uuid))
      }
    }
    return ids
  }

  @Test("description and short are Foundation's lower-cased text and its first six characters")
  func spelling() {
    for id in Self.ids {
      #expect(id.description == id.uuid.uuidString.lowercased())
      #expect(id.short == String(id.uuid.uuidString.lowercased().prefix(6)))
    }
  }

  @Test("ids order as their lower-cased texts do")
  func order() {
    let ids = Self.ids
    for (index, lhs) in ids.enumerated() {
      for rhs in ids[index...].prefix(40) {
        let text = (lhs.uuid.uuidString.lowercased(), rhs.uuid.uuidString.lowercased())
        #expect((lhs < rhs) == (text.0 < text.1))
        #expect((rhs < lhs) == (text.1 < text.0))
      }
    }
  }
}
