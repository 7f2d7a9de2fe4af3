import Glibc

/// stdout or stderr, written straight to the descriptor as FileHandle wrote
/// them: unbuffered, so a message is out even if the process then dies, and
/// output keeps its order against print()'s buffered lines. Write errors (a
/// closed pipe) are dropped, as print() drops them.
public enum StandardStream {
    case output, error

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = writeAll(self == .output ? STDOUT_FILENO : STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }
}

/// Writes all of `bytes` to `fd`, again after a signal interrupts; nil when done,
/// else the errno of the write that failed.
public func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var done = 0
    while done < bytes.count {
        let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        done += n
    }
    return nil
}

/// A file read in chunks through its descriptor, for digests and magic-number
/// checks that should not load the whole file.
public final class ReadOnlyFile {
    private let fd: Int32

    public init?(path: String) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
    }

    deinit { close(fd) }

    /// The next `count` bytes (or those at `offset`, leaving the position as it
    /// was), fewer only at the end of the file (empty there); nil when reading
    /// fails (a folder, an I/O error).
    public func read(upTo count: Int, at offset: Int? = nil) -> [UInt8]? {
        var failed = false
        let out = [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
            guard let got = fill(UnsafeMutableRawBufferPointer(buffer), at: offset) else { failed = true; filled = 0; return }
            filled = got
        }
        return failed ? nil : out
    }

    /// Passes the rest of the file to `body` in chunks of at most `size` bytes,
    /// all read into one buffer (a digest of a 100 MB source touches 256 KB, not
    /// 100 MB of fresh pages); false when reading fails.
    public func forEachChunk(size: Int = 1 << 18, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            guard let got = fill(buffer, at: nil) else { return false }
            if got == 0 { return true }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<got]))
        }
    }

    /// Fills `buffer` from the position (or from `offset`), short only at the end; nil on a read error.
    private func fill(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int?) -> Int? {
        var filled = 0
        while filled < buffer.count {
            let n = offset.map { pread(fd, buffer.baseAddress! + filled, buffer.count - filled, off_t($0 + filled)) }
                ?? Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { break }
            filled += n
        }
        return filled
    }
}
