// Small helpers shared by the benchmark commands: a monotonic clock, a seeded random number
// generator, percentiles, peak RSS, argument parsing, JSON output and process spawning.

import Foundation

// MARK: - Time

/// Nanoseconds on CLOCK_MONOTONIC: shared by every process of the machine, so a child's
/// timestamp can be compared with the parent's.
func monotonicNanos() -> UInt64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

func milliseconds(_ nanos: UInt64) -> Double { Double(nanos) / 1_000_000 }
func milliseconds(from start: UInt64, to end: UInt64) -> Double {
  end >= start ? Double(end - start) / 1_000_000 : -Double(start - end) / 1_000_000
}

// MARK: - Randomness

/// SplitMix64: tiny, fast and fully determined by its seed, so datasets are reproducible.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

// MARK: - Statistics

/// Nearest-rank percentile of `values` (0 < p <= 100); nil when empty.
func percentile(_ values: [Double], _ p: Double) -> Double? {
  guard !values.isEmpty else { return nil }
  let sorted = values.sorted()
  let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
  return sorted[min(max(rank, 1), sorted.count) - 1]
}

func median(_ values: [Double]) -> Double? {
  guard !values.isEmpty else { return nil }
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// p50, p90, p99, max and mean of a latency sample (milliseconds), for the JSON.
func latencySummary(_ values: [Double]) -> [String: Any] {
  guard !values.isEmpty else { return ["count": 0] }
  return [
    "count": values.count,
    "p50_ms": rounded(percentile(values, 50) ?? 0),
    "p90_ms": rounded(percentile(values, 90) ?? 0),
    "p99_ms": rounded(percentile(values, 99) ?? 0),
    "max_ms": rounded(values.max() ?? 0),
    "mean_ms": rounded(values.reduce(0, +) / Double(values.count)),
  ]
}

func rounded(_ value: Double, places: Int = 4) -> Double {
  let scale = pow(10, Double(places))
  return (value * scale).rounded() / scale
}

// MARK: - Memory

/// This process's peak resident set size in KiB: `VmHWM` of /proc/self/status.
///
/// Not `getrusage`'s `ru_maxrss`: Linux carries the high-water mark of the memory a process
/// had before `exec` into it, and `posix_spawn` runs the child in the parent's memory until
/// then, so a child of a 20 MiB benchmark would report at least 20 MiB whatever it does.
func peakRSSKiB() -> Int {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
  else { return 0 }
  return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
}

// MARK: - Arguments

/// `--name value` options and `--flag`s after the subcommand; `--` ends the options.
struct Arguments {
  private(set) var options: [String: String] = [:]
  private(set) var flags: Set<String> = []
  private(set) var rest: [String] = []

  init(_ words: [String], flags knownFlags: Set<String> = []) {
    var index = 0
    while index < words.count {
      let word = words[index]
      if word == "--" {
        rest = Array(words[(index + 1)...])
        return
      }
      if word.hasPrefix("--") {
        let name = String(word.dropFirst(2))
        if knownFlags.contains(name) {
          flags.insert(name)
        } else if index + 1 < words.count {
          options[name] = words[index + 1]
          index += 1
        } else {
          fail("option \(word) needs a value")
        }
      } else {
        rest.append(word)
      }
      index += 1
    }
  }

  func string(_ name: String) -> String? { options[name] }

  func required(_ name: String) -> String {
    guard let value = options[name] else { fail("missing --\(name)") }
    return value
  }

  func int(_ name: String, default fallback: Int) -> Int {
    guard let text = options[name] else { return fallback }
    guard let value = Int(text.replacingOccurrences(of: "_", with: "")) else { fail("--\(name) wants a number") }
    return value
  }
}

func fail(_ message: String) -> Never {
  writeError("appt-bench: \(message)\n")
  exit(2)
}

// MARK: - Output

/// Unbuffered write of all of `text` to a file descriptor.
func writeAll(_ text: String, to fd: Int32) {
  var bytes = Array(text.utf8)[...]
  while !bytes.isEmpty {
    let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    if written < 0 {
      if errno == EINTR { continue }
      return
    }
    bytes = bytes.dropFirst(written)
  }
}

func writeOutput(_ text: String) { writeAll(text, to: 1) }
func writeError(_ text: String) { writeAll(text, to: 2) }

/// Prints `object` as one line of JSON (keys sorted) on stdout.
func printJSON(_ object: [String: Any]) {
  writeOutput(jsonText(object, pretty: false) + "\n")
}

func jsonText(_ object: Any, pretty: Bool) -> String {
  var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
  if pretty { options.insert(.prettyPrinted) }
  guard let data = try? JSONSerialization.data(withJSONObject: object, options: options),
    let text = String(data: data, encoding: .utf8)
  else { fail("cannot encode JSON") }
  return text
}

// MARK: - Processes

/// A child process started with `posix_spawnp`, optionally with pipes to its stdin/stdout.
struct Child {
  let pid: pid_t
  /// Write end of the child's stdin, when piped.
  let input: Int32?
  /// Read end of the child's stdout, when piped.
  let output: Int32?
}

enum StandardOutput {
  case inherit
  case null
  case file(String)
  case pipe
}

/// Starts `arguments` (PATH is searched). The environment is this process's.
func spawn(_ arguments: [String], stdout: StandardOutput = .inherit, pipeStdin: Bool = false) -> Child {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }

  var inputPipe: [Int32] = [-1, -1]
  var outputPipe: [Int32] = [-1, -1]
  if pipeStdin {
    guard pipe(&inputPipe) == 0 else { fail("pipe: \(String(cString: strerror(errno)))") }
    posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
    posix_spawn_file_actions_addclose(&actions, inputPipe[0])
    posix_spawn_file_actions_addclose(&actions, inputPipe[1])
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  }
  switch stdout {
  case .inherit:
    break
  case .null:
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  case .file(let path):
    posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  case .pipe:
    guard pipe(&outputPipe) == 0 else { fail("pipe: \(String(cString: strerror(errno)))") }
    posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
    posix_spawn_file_actions_addclose(&actions, outputPipe[0])
    posix_spawn_file_actions_addclose(&actions, outputPipe[1])
  }

  let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
  var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
  var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
  defer {
    for pointer in argv { free(pointer) }
    for pointer in envp { free(pointer) }
  }
  var pid: pid_t = 0
  let rc = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, &envp)
  if pipeStdin { close(inputPipe[0]) }
  if case .pipe = stdout { close(outputPipe[1]) }
  guard rc == 0 else { fail("cannot start \(arguments[0]): \(String(cString: strerror(rc)))") }
  return Child(
    pid: pid,
    input: pipeStdin ? inputPipe[1] : nil,
    output: { if case .pipe = stdout { return outputPipe[0] } else { return nil } }()
  )
}

/// Waits for `pid`; returns its exit status (128+signal when killed) and `ru_maxrss` in KiB
/// (which, for a child of posix_spawn, is at least this process's own peak: see `peakRSSKiB`).
func waitFor(_ pid: pid_t) -> (status: Int32, maxRSSKiB: Int) {
  var status: Int32 = 0
  var usage = rusage()
  while wait4(pid, &status, 0, &usage) < 0 {
    if errno != EINTR { fail("wait4: \(String(cString: strerror(errno)))") }
  }
  let low = status & 0x7F
  let code: Int32 = low == 0 ? (status >> 8) & 0xFF : 128 + low
  return (code, Int(usage.ru_maxrss))
}

/// Reads one line (without its newline) from `fd`, blocking; nil at end of file.
func readLine(from fd: Int32) -> String? {
  var bytes: [UInt8] = []
  var byte: UInt8 = 0
  while true {
    let count = read(fd, &byte, 1)
    if count < 0, errno == EINTR { continue }
    if count <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
    if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
    bytes.append(byte)
  }
}

/// The path of this executable, to start helper children of the benchmark.
func ownExecutablePath() -> String {
  var buffer = [CChar](repeating: 0, count: 4096)
  let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
  guard count > 0 else { return CommandLine.arguments[0] }
  return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
