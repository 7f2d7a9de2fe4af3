import CCrypto

/// SHA-256 (FIPS 180-4) for manifests, source digests and download checks,
/// from OpenSSL's libcrypto.
package final class SHA256Hasher {
    private let context: OpaquePointer

    package init() {
        context = EVP_MD_CTX_new()
        // libcrypto loads openssl.cnf on first use unless told not to: ~3 ms of every command that hashes.
        _ = SHA256Hasher.initialised
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    private static let initialised: Bool = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_LOAD_CONFIG), nil) == 1

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    package func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The digest in lowercase hex, as sha256sum prints it.
    package func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

package enum SHA256 {
    package static func hex(_ bytes: [UInt8]) -> String {
        let hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }

    package static func hex(_ text: String) -> String { hex(Array(text.utf8)) }

    /// The digest of a file, read a piece at a time.
    package static func hex(fileAt path: String) throws -> String {
        let hasher = SHA256Hasher()
        try Files.forEachChunk(of: path) { hasher.update($0) }
        return hasher.finalizeHex()
    }

    /// Copies a file a piece at a time (never whole in memory) and returns the digest of
    /// what it copied.
    package static func hex(copying path: String, to destination: String) throws -> String {
        let hasher = SHA256Hasher(), output = try OutputFile(destination)
        try Files.forEachChunk(of: path) { piece in
            hasher.update(piece)
            try output.append(piece)
        }
        try output.close()
        return hasher.finalizeHex()
    }
}
