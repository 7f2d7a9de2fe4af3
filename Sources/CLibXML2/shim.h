// Debian's libxml2 is built with ICU, and encoding.h then includes the system's <unicode/ucnv.h>,
// whose UErrorCode clashes with Foundation's bundled ICU in the same Swift module. Nothing here
// uses the ICU converter fields (they trail xmlCharEncodingHandler, only ever seen via pointers),
// so hide them.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>
#include <libxml/SAX2.h>
