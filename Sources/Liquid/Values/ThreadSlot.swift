#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// One object of type `T` per thread, released when the thread ends: the spare render context
/// (`RenderContextCache`) and the JSON key table (`KeyInterner`).
struct ThreadSlot<T: AnyObject>: @unchecked Sendable {
    let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            #if canImport(Glibc)
            if let raw { Unmanaged<AnyObject>.fromOpaque(raw).release() }
            #else
            Unmanaged<AnyObject>.fromOpaque(raw).release()
            #endif
        }
        self.key = key
    }

    /// This thread's object, still held by the slot.
    var current: T? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<T>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Takes this thread's object out of the slot (the caller now holds it).
    func take() -> T? {
        guard let raw = pthread_getspecific(key) else { return nil }
        pthread_setspecific(key, nil)
        return Unmanaged<T>.fromOpaque(raw).takeRetainedValue()
    }

    /// `true` when the slot holds nothing on this thread.
    var isEmpty: Bool { pthread_getspecific(key) == nil }

    /// Puts `object` in this thread's slot (which must be empty).
    func put(_ object: T) {
        pthread_setspecific(key, Unmanaged.passRetained(object).toOpaque())
    }
}
