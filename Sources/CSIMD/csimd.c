// The two loops that want vector instructions Swift cannot name, each beside a
// portable Swift version used where the CPU lacks them (and tested against it).
#include "csimd.h"

#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

// ---------------------------------------------------------------------------
// SHA-256 through the CPU's SHA instructions: padding and streaming stay in
// StationModel/SHA256.swift. The digests of sources, bundles and downloads ran
// at ~1/10 of this speed in Swift, and borrowing libcrypto's instead cost each
// process ~3 ms to load and configure it.

int csimd_cpu_has_sha(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    int sha = (b >> 29) & 1;
    return ssse3 && sse41 && sha;
}

__attribute__((target("sha,sse4.1,ssse3")))
void csimd_sha256_compress(uint32_t state[8], const uint8_t *data, size_t blocks, const uint32_t round_constants[64]) {
    // The instructions keep the state as (a, b, e, f) and (c, d, g, h).
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i cdab = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef_before = abef, cdgh_before = cdgh;
        // The message schedule, four words to a register: w[g & 3] holds words 4g..4g+3.
        __m128i w[4];
        for (int g = 0; g < 16; g++) {
            __m128i words;
            if (g < 4) {
                words = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), byte_swap);
            } else {
                __m128i older = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
                older = _mm_add_epi32(older, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
                words = _mm_sha256msg2_epu32(older, w[(g + 3) & 3]);
            }
            w[g & 3] = words;
            __m128i input = _mm_add_epi32(words, _mm_loadu_si128((const __m128i *)&round_constants[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, input);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(input, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}


// ---------------------------------------------------------------------------
// UTF-8 validation sixteen bytes at a time (Keiser and Lemire, "Validating
// UTF-8 in less than one instruction per byte", 2021): every CSV file read,
// sources and registry, is validated whole before it is split into fields, and
// Japanese text is mostly three-byte sequences, which the byte-by-byte check
// took ~6 cycles a byte over. Each byte is classified by three table lookups
// on its own high nibble and its predecessor's nibbles; any error sets a bit.

int csimd_cpu_has_ssse3(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return (c >> 9) & 1;
}

// Error classes of a (previous byte, byte) pair.
enum {
    TOO_SHORT = 1 << 0,   // a lead byte, then a byte that is not a continuation
    TOO_LONG = 1 << 1,    // ASCII, then a continuation
    OVERLONG_3 = 1 << 2,  // E0, then 80..9F
    TOO_LARGE = 1 << 3,   // F4, then 90..BF; or F5..FF
    SURROGATE = 1 << 4,   // ED, then A0..BF
    OVERLONG_2 = 1 << 5,  // C0 or C1
    TOO_LARGE_1000 = 1 << 6, // F5..FF, then 80..8F (shares its bit with OVERLONG_4)
    OVERLONG_4 = 1 << 6,  // F0, then 80..8F
    TWO_CONTS = 1 << 7,   // a continuation, then a continuation
    CARRY = TOO_SHORT | TOO_LONG | TWO_CONTS,
};

__attribute__((target("ssse3")))
static inline __m128i high_nibbles(__m128i v) { return _mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(0x0F)); }

// By the high nibble of the previous byte, its low nibble, and this byte's high nibble.
static const uint8_t by_previous_high[16] = {
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
    TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
};
static const uint8_t by_previous_low[16] = {
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY,
    CARRY | TOO_LARGE, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
};
static const uint8_t by_this_high[16] = {
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
};
// A block's last three bytes may open a sequence the next block must finish:
// a byte above these opens one longer than what is left of the block.
static const uint8_t incomplete_above_bytes[16] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0 - 1, 0xE0 - 1, 0xC0 - 1,
};

__attribute__((target("ssse3")))
int csimd_utf8_valid(const uint8_t *bytes, size_t count) {
    const __m128i byte_1_high = _mm_loadu_si128((const __m128i *)by_previous_high);
    const __m128i byte_1_low = _mm_loadu_si128((const __m128i *)by_previous_low);
    const __m128i byte_2_high = _mm_loadu_si128((const __m128i *)by_this_high);
    const __m128i incomplete_above = _mm_loadu_si128((const __m128i *)incomplete_above_bytes);
    __m128i error = _mm_setzero_si128(), previous = _mm_setzero_si128(), incomplete = _mm_setzero_si128();

    size_t i = 0;
    uint8_t tail[16];
    while (i < count) {
        __m128i input;
        if (i + 16 <= count) {
            input = _mm_loadu_si128((const __m128i *)(bytes + i));
        } else {
            // The last partial block, padded with NULs (ASCII).
            memset(tail, 0, sizeof tail);
            memcpy(tail, bytes + i, count - i);
            input = _mm_loadu_si128((const __m128i *)tail);
        }
        i += 16;
        if (_mm_movemask_epi8(input) == 0) {
            error = _mm_or_si128(error, incomplete);
            incomplete = _mm_setzero_si128();
        } else {
            __m128i prev1 = _mm_alignr_epi8(input, previous, 15);
            __m128i special = _mm_and_si128(
                _mm_and_si128(_mm_shuffle_epi8(byte_1_high, high_nibbles(prev1)),
                              _mm_shuffle_epi8(byte_1_low, _mm_and_si128(prev1, _mm_set1_epi8(0x0F)))),
                _mm_shuffle_epi8(byte_2_high, high_nibbles(input)));
            // Third and fourth bytes of a sequence must be continuations (TWO_CONTS is bit 7).
            __m128i prev2 = _mm_alignr_epi8(input, previous, 14), prev3 = _mm_alignr_epi8(input, previous, 13);
            __m128i must_continue = _mm_or_si128(_mm_subs_epu8(prev2, _mm_set1_epi8(0xE0 - 0x80)),
                                                 _mm_subs_epu8(prev3, _mm_set1_epi8(0xF0 - 0x80)));
            error = _mm_or_si128(error, _mm_xor_si128(_mm_and_si128(must_continue, _mm_set1_epi8(-0x80)), special));
            incomplete = _mm_subs_epu8(input, incomplete_above);
        }
        previous = input;
    }
    error = _mm_or_si128(error, incomplete);
    return _mm_movemask_epi8(_mm_cmpeq_epi8(error, _mm_setzero_si128())) == 0xFFFF;
}

#else

int csimd_cpu_has_sha(void) { return 0; }
void csimd_sha256_compress(uint32_t state[8], const uint8_t *data, size_t blocks, const uint32_t round_constants[64]) {
    (void)state; (void)data; (void)blocks; (void)round_constants;
}
int csimd_cpu_has_ssse3(void) { return 0; }
int csimd_utf8_valid(const uint8_t *bytes, size_t count) { (void)bytes; (void)count; return 0; }

#endif
