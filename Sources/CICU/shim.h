// ICU renames every function with its version (unorm2_normalize_72) through
// macros, which Swift does not expand; these wrappers give fixed names.
//
// <unicode/unorm2.h> is deliberately not included: its types (UErrorCode...)
// clash with the ICU copy inside Foundation in any module that sees both, as
// the test targets do (see CLibXML2's shim). Only ICU's configuration and
// version macros are used, to spell the versioned names; the two functions are
// declared with the plain C types their ICU types are: UNormalizer2 is opaque,
// UChar is uint16_t in C, UErrorCode is an int-sized enum (0 = U_ZERO_ERROR,
// 15 = U_BUFFER_OVERFLOW_ERROR, above 0 = failure).
#include <stdint.h>
#include <unicode/uconfig.h>
#include <unicode/uvernum.h>

#if U_DISABLE_RENAMING
#define CICU_ICU_NAME(name) name
#else
#define CICU_ICU_NAME(name) U_ICU_ENTRY_POINT_RENAME(name)
#endif

const void *CICU_ICU_NAME(unorm2_getNFKCInstance)(int *status);
int32_t CICU_ICU_NAME(unorm2_normalize)(const void *normalizer, const uint16_t *source, int32_t length,
                                        uint16_t *destination, int32_t capacity, int *status);

enum { CICU_ZERO_ERROR = 0, CICU_BUFFER_OVERFLOW_ERROR = 15 };

static inline const void *cicu_nfkc_instance(int *status) {
    return CICU_ICU_NAME(unorm2_getNFKCInstance)(status);
}

static inline int32_t cicu_normalize(const void *normalizer, const uint16_t *source, int32_t length,
                                     uint16_t *destination, int32_t capacity, int *status) {
    return CICU_ICU_NAME(unorm2_normalize)(normalizer, source, length, destination, capacity, status);
}
