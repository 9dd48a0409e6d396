import Foundation

/// Where `backup FILE` writes: a new regular file that appt creates itself, and nothing else.
///
/// The copy is made in a private directory (`.appt-backup-XXXXXX`, 0700) that appt creates
/// beside FILE, so the file SQLite writes and its journal are appt's own; then it is
/// hard-linked to FILE, which fails if anything (a file, a link, a FIFO, a device node) is
/// there by then (on a file system without hard links, FILE is created with O_EXCL and the
/// copy copied into it). So nothing at FILE is ever opened, followed, replaced or removed (as root,
/// `backup /dev/full` used to delete the device node after failing, and a FIFO hung it). On
/// failure only the private directory and what is in it are removed.
struct BackupFile {
  /// The path asked for.
  let path: String
  /// The private directory the copy is made in.
  private let staging: String

  /// The file the engine writes the copy to (it exists, empty, 0600).
  var stagingFile: String { staging + "/backup.sqlite3" }

  /// Refuses an existing `url` of any kind (by `lstat`: a link is not followed), then
  /// creates the private directory and an empty 0600 file in it.
  init(_ url: URL) throws(StoreError) {
    path = url.path
    var info = stat()
    if lstat(path, &info) == 0 {
      throw .cannotOpen(path: path, reason: "it exists (\(Self.kind(info.st_mode))); refusing to overwrite")
    }
    guard errno == ENOENT else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
    var template = Array((url.deletingLastPathComponent().path + "/.appt-backup-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else {
      throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
    }
    staging = String(cString: made)
    let fd = Glibc.open(staging + "/backup.sqlite3", O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      let reason = String(cString: strerror(errno))
      discard()
      throw .cannotOpen(path: path, reason: reason)
    }
    Glibc.close(fd)
  }

  /// Syncs the finished copy, links it to `path` without replacing anything, and removes the
  /// private directory.
  /// `link` is the system call, replaceable so tests can play a file system without hard links.
  func publish(link: (String, String) -> Int32 = { Glibc.link($0, $1) }) throws(StoreError) {
    defer { discard() }
    let fd = Glibc.open(stagingFile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
    let synced = fsync(fd) == 0 ? 0 : errno
    Glibc.close(fd)
    guard synced == 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(synced))) }
    guard link(stagingFile, path) != 0 else { return }
    let code = errno
    if code == EEXIST { throw .cannotOpen(path: path, reason: "it exists; refusing to overwrite") }
    // A file system without hard links (FAT on a USB stick): create FILE, new, and copy.
    guard [EPERM, EOPNOTSUPP, EMLINK].contains(code) else {
      throw .cannotOpen(path: path, reason: String(cString: strerror(code)))
    }
    try copyToNewFile()
  }

  /// Creates `path` (O_EXCL | O_NOFOLLOW: nothing there is opened or replaced) and copies
  /// the staged file into it; on failure removes it, as appt made it.
  private func copyToNewFile() throws(StoreError) {
    let source = Glibc.open(stagingFile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard source >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
    defer { Glibc.close(source) }
    let target = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard target >= 0 else {
      let code = errno
      let reason = code == EEXIST ? "it exists; refusing to overwrite" : String(cString: strerror(code))
      throw .cannotOpen(path: path, reason: reason)
    }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var error: Int32 = 0
    copying: while true {
      let got = buffer.withUnsafeMutableBytes { Glibc.read(source, $0.baseAddress, $0.count) }
      if got < 0, errno == EINTR { continue }
      guard got > 0 else {
        if got < 0 { error = errno }
        break
      }
      var offset = 0
      while offset < got {
        let written = buffer[offset..<got].withUnsafeBytes { Glibc.write(target, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else {
          error = written < 0 ? errno : EIO
          break copying
        }
        offset += written
      }
    }
    if error == 0, fsync(target) != 0 { error = errno }
    if Glibc.close(target) != 0, error == 0 { error = errno }
    guard error == 0 else {
      unlink(path)
      throw .cannotOpen(path: path, reason: String(cString: strerror(error)))
    }
  }

  /// Removes the private directory and the files SQLite may have made in it; never `path`.
  func discard() {
    for suffix in ["", "-journal", "-wal", "-shm"] { unlink(stagingFile + suffix) }
    rmdir(staging)
  }

  /// "a FIFO", "a directory"...: what is in the way, for the message.
  private static func kind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFREG: "a file"
    case S_IFDIR: "a directory"
    case S_IFLNK: "a symbolic link"
    case S_IFIFO: "a FIFO"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFSOCK: "a socket"
    default: "not a file"
    }
  }
}
