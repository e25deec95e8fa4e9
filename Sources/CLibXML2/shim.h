#ifndef KURONEKO_CLIBXML2_SHIM_H
#define KURONEKO_CLIBXML2_SHIM_H

// libxml2 can pull in ICU headers, which clash with the ICU module Foundation ships.
// Read the version header first, then switch the ICU hooks off before anything else.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <libxml/xmlmemory.h>
#include <libxml/parserInternals.h>
#include <string.h>

/// Frees memory that libxml2 allocated; `xmlFree` itself is a mutable global that Swift 6 refuses.
static inline void kuroneko_xml_free(void *pointer) {
    xmlFree(pointer);
}

static void kuroneko_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

/// Stops libxml2 writing diagnostics (such as charset conversion failures) to stderr from this thread;
/// the parser reports what matters as typed errors instead. libxml2 keeps the handler per thread.
static inline void kuroneko_silence_libxml2_diagnostics(void) {
    xmlSetGenericErrorFunc(NULL, kuroneko_ignore_generic_error);
}

/// Makes a parser context report elements and text to `receiver` through three callbacks and build no tree.
/// Every other event (and every diagnostic callback, some of which are variadic) is switched off.
static inline void kuroneko_report_events(htmlParserCtxtPtr context, void *receiver, startElementSAXFunc start,
                                          endElementSAXFunc end, charactersSAXFunc text) {
    memset(context->sax, 0, sizeof(xmlSAXHandler));
    context->sax->startElement = start;
    context->sax->endElement = end;
    context->sax->characters = text;
    context->sax->cdataBlock = text;
    context->sax->initialized = 1;
    context->userData = receiver;
}

#endif
