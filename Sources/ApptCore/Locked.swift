import Glibc
import Synchronization

/// A value behind a lock: `Synchronization.Mutex`, made visible to ThreadSanitizer. Every
/// in-process lock of appt and its tests is one of these (`LockedTests` refuses a bare `Mutex`;
/// the locks between processes are `flock`s).
///
/// Why not `Mutex` itself: on Linux its uncontended path is inline, where TSan sees it, but the
/// contended one (`_lockSlow`, a futex) is in the prebuilt library, where TSan does not. A
/// thread that had to wait for the lock then looks unsynchronized with the one that held it,
/// and TSan reports a "Swift access race" on the guarded value that cannot happen (shown by
/// `LockedTests` with a bare `Mutex`), the likely cause of a `make tsan` that failed by chance.
/// Under TSan (looked up in the process once; otherwise each lock tests a stored nil) each
/// critical section also tells TSan it acquires and releases this lock, which is the truth.
public final class Locked<Value: ~Copyable>: Sendable {
  @usableFromInline let mutex: Mutex<Value>
  /// `threadSanitizer`, read once here: a lazy global costs a `swift_once` call per read.
  @usableFromInline let sanitizer: ThreadSanitizerHooks?

  public init(_ value: consuming sending Value) {
    mutex = Mutex(value)
    sanitizer = threadSanitizer
  }

  /// `Mutex.withLock`: `body` runs with the value while no other thread holds the lock.
  /// Inlinable, as `Mutex.withLock` is, so each caller's module specializes it.
  @inlinable
  public func withLock<Result: ~Copyable, E: Error>(
    _ body: (inout sending Value) throws(E) -> sending Result
  ) throws(E) -> sending Result {
    guard let sanitizer else { return try mutex.withLock(body) }
    let lock = Unmanaged.passUnretained(self).toOpaque()
    return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
      sanitizer.acquire(lock)
      defer { sanitizer.release(lock) }
      return try body(&value)
    }
  }

  /// Whether this process's locks tell ThreadSanitizer what they do (only under TSan).
  static var annotatesForThreadSanitizer: Bool { threadSanitizer != nil }
}

@usableFromInline typealias SanitizerAnnotation = @convention(c) (UnsafeMutableRawPointer?) -> Void
@usableFromInline typealias ThreadSanitizerHooks = (acquire: SanitizerAnnotation, release: SanitizerAnnotation)

/// ThreadSanitizer's `__tsan_acquire` and `__tsan_release` when this process runs under it
/// (`make tsan` sets APPT_UNDER_TSAN=1, and `LockedTests` holds that they are found then).
@usableFromInline let threadSanitizer: ThreadSanitizerHooks? = {
  guard let acquire = dlsym(nil, "__tsan_acquire"), let release = dlsym(nil, "__tsan_release") else {
    return nil
  }
  let acquireHook = unsafeBitCast(acquire, to: SanitizerAnnotation.self)  // Sound: C boundary, TSan's void f(void *)
  let releaseHook = unsafeBitCast(release, to: SanitizerAnnotation.self)  // Sound: C boundary, TSan's void f(void *)
  return (acquireHook, releaseHook)
}()
