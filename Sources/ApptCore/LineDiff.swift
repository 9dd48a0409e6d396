/// A line-by-line comparison of two texts, as `diff -u` shows it: each line of both, in
/// order, marked as only in the first (`-`), only in the second (`+`) or in both (` `), by
/// their longest common subsequence. For texts of a few hundred lines (one event and its
/// overrides): the table is the lines' product.
public enum LineDiff {
  public enum Mark: Character, Sendable, Equatable {
    case removed = "-"
    case added = "+"
    case same = " "
  }

  public static func compare(_ old: [String], _ new: [String]) -> [(mark: Mark, line: String)] {
    // The lines both start and end with are the same whatever lies between: only the middle
    // is compared (the table is its lines' product, and most of two versions is the same).
    var head = 0
    while head < old.count, head < new.count, old[head] == new[head] { head += 1 }
    var tail = 0
    while tail < old.count - head, tail < new.count - head, old[old.count - 1 - tail] == new[new.count - 1 - tail] {
      tail += 1
    }
    let same = { (lines: ArraySlice<String>) in lines.map { (mark: Mark.same, line: $0) } }
    return same(old[..<head]) + middle(Array(old[head..<(old.count - tail)]), Array(new[head..<(new.count - tail)]))
      + same(old[(old.count - tail)...])
  }

  private static func middle(_ old: [String], _ new: [String]) -> [(mark: Mark, line: String)] {
    let (n, m) = (old.count, new.count)
    // common[i][j]: the longest common subsequence of old[i...] and new[j...].
    var common = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
    for i in stride(from: n - 1, through: 0, by: -1) {
      for j in stride(from: m - 1, through: 0, by: -1) {
        common[i][j] = old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
      }
    }
    var out: [(mark: Mark, line: String)] = []
    var (i, j) = (0, 0)
    while i < n || j < m {
      if i < n, j < m, old[i] == new[j] {
        out.append((.same, old[i]))
        i += 1
        j += 1
      } else if i < n, j == m || common[i + 1][j] >= common[i][j + 1] {
        out.append((.removed, old[i]))
        i += 1
      } else {
        out.append((.added, new[j]))
        j += 1
      }
    }
    return out
  }
}
