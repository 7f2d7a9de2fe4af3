// The path joins and splits stationdb used from NSString, kept to the same
// results (paths appear in messages, digests and make's dependencies) without
// linking all of Foundation for them.

public enum Path {
    /// `base` + "/" + `component`, without doubling a trailing slash; an empty
    /// side gives the other unchanged. Nothing else is normalised.
    public static func appending(_ base: String, _ component: String) -> String {
        if component.isEmpty { return base }
        if base.isEmpty { return component }
        return base.hasSuffix("/") ? base + component : base + "/" + component
    }

    /// The part after the last slash, ignoring a trailing one ("/" stays "/").
    public static func lastComponent(_ path: String) -> String {
        let fixed = collapsingSlashes(path)
        if fixed.utf16.count <= 1 { return fixed }
        return String(fixed[startOfLastComponent(fixed)...])
    }

    /// The path without its last component: "" for a single relative one, "/"
    /// for a single absolute one.
    public static func deletingLastComponent(_ path: String) -> String {
        let fixed = collapsingSlashes(path)
        if fixed == "/" || fixed.isEmpty { return fixed }
        let start = startOfLastComponent(fixed)
        if start == fixed.startIndex { return "" }
        if start == fixed.index(after: fixed.startIndex) { return "/" }
        return String(fixed[..<fixed.index(before: start)])
    }

    /// Runs of slashes become one and one trailing slash goes, except for "/"
    /// itself. After collapsing a run of n slashes NSString resumed its scan n - 1
    /// characters too far on, so a run starting within them stayed as it was
    /// ("a///b//c" gives "a/b//c"); the same scan keeps paths as they were printed.
    private static func collapsingSlashes(_ path: String) -> String {
        if path == "/" { return path }
        var chars = Array(path)
        var i = 0
        while i < chars.count {
            guard chars[i] == "/" else { i += 1; continue }
            var end = i
            while end < chars.count && chars[end] == "/" { end += 1 }
            if end != i + 1 { chars.replaceSubrange(i..<end, with: ["/"]) }
            i = end
        }
        if chars.last == "/" { chars.removeLast() }
        return String(chars)
    }

    private static func startOfLastComponent(_ fixed: String) -> String.Index {
        var i = fixed.endIndex
        while i > fixed.startIndex {
            let before = fixed.index(before: i)
            if fixed[before] == "/" { break }
            i = before
        }
        return i
    }
}
