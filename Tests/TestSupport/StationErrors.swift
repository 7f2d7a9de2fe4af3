import StationCore

extension Error {
    /// This error as the StationError of `kind` it must be, or nil (so a test asserts on the kind).
    package func station(_ kind: StationError.Kind) -> StationError? {
        guard let error = self as? StationError, error.kind == kind else { return nil }
        return error
    }
}
