import ApptTestSupport
import Foundation
import Testing

@testable import ApptStore

/// A second model, unrelated to appointments, through the same generic layer: what
/// RealmSwiftMacro's @GenCrud generated per model, done once by `Persistable` and
/// `DatabaseService`.
struct Note: Persistable, Hashable {
  static let table = TableDescription(name: "note", columns: ["id", "body", "pinned"])

  let id: Int64
  var body: String
  var pinned: Bool

  static func databaseValue(of id: Int64) -> SQLValue { .integer(id) }

  init(id: Int64, body: String, pinned: Bool = false) {
    self.id = id
    self.body = body
    self.pinned = pinned
  }

  init(row: Row) throws(StoreError) {
    self.init(id: row.int64(at: 0), body: row.string(at: 1), pinned: row.int64(at: 2) != 0)
  }

  var databaseValues: [SQLValue] { [.integer(id), .text(body), .integer(pinned ? 1 : 0)] }
}

@Suite struct GenericLayerTests {
  let service = DatabaseService(
    database: AsyncDatabase(
      configuration: DatabaseConfiguration(
        location: .inMemory,
        migrations: [
          Migration(
            name: "create note",
            sql: "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL, pinned INTEGER NOT NULL)"
          )
        ]
      )
    )
  )

  @Test func crudOnAnotherModel() async throws {
    try await service.save(Note(id: 2, body: "second"))
    try await service.save(Note(id: 1, body: "first"))
    #expect(try await service.find(type: Note.self, id: 1) == Note(id: 1, body: "first"))
    #expect(try await service.find(type: Note.self, id: 3) == nil)
    try await service.save(Note(id: 1, body: "first, edited", pinned: true))
    #expect(try await service.findAll(type: Note.self).map(\.body) == ["first, edited", "second"])
    #expect(try await service.delete(type: Note.self, id: 2))
    #expect(try await !service.delete(type: Note.self, id: 2))
    #expect(try await service.findAll(type: Note.self) == [Note(id: 1, body: "first, edited", pinned: true)])
    await service.database.close()
  }

  @Test func observationOnAnotherModel() async throws {
    var snapshots = await service.observe(DatabaseQuery<Note>(where: "pinned = 1", order: "id")).makeAsyncIterator()
    #expect(try #require(await snapshots.next()).change == .initial)
    try await service.save(Note(id: 7, body: "not pinned"))  // outside the query: nothing
    try await service.save(Note(id: 8, body: "pinned", pinned: true))
    let next = try #require(await snapshots.next())
    #expect(next.items == [Note(id: 8, body: "pinned", pinned: true)])
    #expect(next.change == .update(ChangeSet(insertions: [0])))
    await service.database.close()
  }
}
