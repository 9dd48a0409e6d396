import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// SQLite keeps the appointment rows in the order of their start (schema 6, StartOrder.swift),
/// whatever order they were written in, so a window's rows are neighbours in the file.
@Suite struct StartOrderTests {
  func oneOff(_ title: String, at start: Date) -> Appointment {
    Appointment(title: title, start: start, end: start.addingTimeInterval(1800), created: TestClock.now, revision: 1)
  }

  /// The titles in rowid order (the file's order).
  func stored(_ dao: AppointmentDAO) async throws -> [String] {
    try await dao.database.read { connection throws(StoreError) in
      var titles: [String] = []
      try connection.query("SELECT title FROM appointment ORDER BY rowid", []) { row throws(StoreError) in
        titles.append(row.string(at: 0))
      }
      return titles
    }
  }

  @Test("rows written in any order are stored in start order, and a moved one moves")
  func rowsAreKeptInStartOrder() async throws {
    try await withStore(.file) { dao in
      let hours = [5, 1, 4, 2, 3]
      for hour in hours { _ = try await dao.saveAppointment(oneOff("h\(hour)", at: december(7, hour))) }
      // The generic layer's batch save takes the same door.
      try await dao.service.save(all: [oneOff("h0", at: december(7, 0)), oneOff("h6", at: december(7, 6))])
      #expect(try await stored(dao) == ["h0", "h1", "h2", "h3", "h4", "h5", "h6"])
      let all = try await dao.getAllAppointments()
      var first = try #require(all.first { $0.title == "h1" })
      first.start = december(7, 5, 30)
      first.end = december(7, 6)
      _ = try await dao.saveAppointment(first)
      #expect(try await stored(dao) == ["h0", "h2", "h3", "h4", "h5", "h1", "h6"])
      // An edit that keeps the start keeps the row where it is.
      var third = try #require(all.first { $0.title == "h3" })
      third.note = "changed"
      _ = try await dao.saveAppointment(third)
      #expect(try await stored(dao) == ["h0", "h2", "h3", "h4", "h5", "h1", "h6"])
      #expect(try await dao.getAppointment(id: third.id).note == "changed")
      #expect(try await dao.database.integrityCheck() == ["ok"])
    }
  }

  @Test("more rows than a millisecond has slots are all stored, the rest after the last")
  func aFullMillisecondOverflows() async throws {
    try await withStore(.memory) { dao in
      let start = december(8, 9)
      let many = (0..<(Int(StartOrder.slots) + 3)).map { oneOff("same \($0)", at: start) }
      try await dao.service.save(all: many + [oneOff("later", at: december(8, 10))])
      let listed = try await dao.appointments(matching: AppointmentQuery(range: window(december(8), december(9))))
      #expect(listed.count == many.count + 1)
      #expect(Set(listed.map(\.id)) == Set(many.map(\.id) + listed.filter { $0.title == "later" }.map(\.id)))
      // Saving one of them again finds its own row: no second copy.
      var again = many[0]
      again.note = "again"
      _ = try await dao.saveAppointment(again)
      #expect(try await dao.getAllAppointments().count == many.count + 1)
    }
  }
}
