import FoundationEssentials
import Glibc

/// Bytes of a file this process has finished writing (the bundle, for its gzip
/// and digest), mapped read-only: the mapping shares the page cache's pages,
/// where reading copied them into fresh memory, at 100 times national 220 MB of
/// page faults and copying. Only for files nothing else truncates while mapped.
public enum MappedFile {
    /// The whole file as Data that unmaps when let go; nil when it cannot be opened or mapped.
    public static func data(path: String) -> Data? {
        guard let (fd, size) = openRegular(path) else { return nil }
        defer { close(fd) }
        if size == 0 { return Data() }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else { return nil }
        return Data(bytesNoCopy: base, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }

    /// Calls `body` with bytes `range` of the file, mapped for the call; nil when
    /// the file is shorter than the range or cannot be mapped.
    public static func withBytes<R>(path: String, range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R? {
        guard let (fd, size) = openRegular(path) else { return nil }
        defer { close(fd) }
        guard range.lowerBound >= 0, size >= range.upperBound else { return nil }
        if range.isEmpty { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        // Mappings start on a page boundary.
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = range.lowerBound / page * page, length = range.upperBound - start
        guard let base = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, off_t(start)), base != MAP_FAILED else { return nil }
        defer { munmap(base, length) }
        let bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self) + (range.lowerBound - start), count: range.count)
        return try body(bytes)
    }

    /// The descriptor and size of a regular file opened for reading.
    private static func openRegular(_ path: String) -> (fd: Int32, size: Int)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { close(fd); return nil }
        return (fd, Int(info.st_size))
    }
}
