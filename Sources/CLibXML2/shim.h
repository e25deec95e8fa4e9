#ifndef KURONEKO_CLIBXML2_SHIM_H
#define KURONEKO_CLIBXML2_SHIM_H

// libxml2 can pull in ICU headers, which clash with the ICU module Foundation ships.
// Read the version header first, then switch the ICU hooks off before anything else.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <libxml/xmlmemory.h>

/// Frees memory that libxml2 allocated; `xmlFree` itself is a mutable global that Swift 6 refuses.
static inline void kuroneko_xml_free(void *pointer) {
    xmlFree(pointer);
}

#endif
