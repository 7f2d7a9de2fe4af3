#ifndef STATIONDB_CSIMD_H
#define STATIONDB_CSIMD_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU has the SHA extensions (and the SSSE3/SSE4.1 the code
/// around them uses), else 0; always 0 off x86-64.
int csimd_cpu_has_sha(void);

/// Runs SHA-256's compression over `blocks` 64-byte blocks at `data`, updating
/// `state` (a, b, ..., h), with FIPS 180-4's 64 round constants (SHA256.swift
/// keeps the one copy). Only to be called when csimd_cpu_has_sha() is 1.
void csimd_sha256_compress(uint32_t state[8], const uint8_t *data, size_t blocks, const uint32_t round_constants[64]);

/// 1 when this CPU has SSSE3, else 0; always 0 off x86-64.
int csimd_cpu_has_ssse3(void);

/// 1 when the bytes are well-formed UTF-8 (no overlongs, surrogates, values past
/// U+10FFFF or cut sequences), else 0. Only to be called when csimd_cpu_has_ssse3() is 1.
int csimd_utf8_valid(const uint8_t *bytes, size_t count);

#endif
