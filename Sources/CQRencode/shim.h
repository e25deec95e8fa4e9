#ifndef KURONEKO_CQRENCODE_SHIM_H
#define KURONEKO_CQRENCODE_SHIM_H

// libqrencode (Debian's libqrencode-dev, 4.1): QR codes for the set-up link shown in a terminal.
#include <qrencode.h>

#endif
